"""Vulkan worker process: runs compute dispatches and offscreen draws on lavapipe for vulkan_runner.

Runs as a separate process so a driver crash on a bad binary cannot take pytest down.
Protocol (binary, on the original stdout/stdin): each message is an 8-byte little-endian
length followed by a pickle.  Requests are dicts with an "op" key; replies are
("ok", value) or ("err", text).  fd 1 is redirected to stderr so driver chatter cannot
corrupt the protocol.  Standalone on purpose: imports nothing from the harness.
"""

from __future__ import annotations

import os
import pickle
import struct
import sys
import traceback

import vkaccel  # the acceleration-structure builder beside this script (runs in the worker only)
import vkmsfill  # per-sample contents of multisampled images (worker only)
import vkraytrace  # ray-tracing pipelines and shader binding tables (worker only)
import vulkan as vk

ffi = vk.ffi
_HDR = struct.Struct("<Q")
_FENCE_TIMEOUT_NS = 30_000_000_000
API_VERSION = vk.VK_MAKE_VERSION(1, 3, 0)

# buffer-backed descriptor kind -> (descriptor type, buffer usage)
_KINDS = {
    "storage": (vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT),
    "uniform": (vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, vk.VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT),
    "uniform_texel_buffer": (vk.VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER,
                             vk.VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT),
    "storage_texel_buffer": (vk.VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER,
                             vk.VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT),
}
# descriptor type -> the per-stage limit it counts against
_STAGE_LIMITS = {
    vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: "maxPerStageDescriptorStorageBuffers",
    vk.VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER: "maxPerStageDescriptorUniformBuffers",
    vk.VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER: "maxPerStageDescriptorSampledImages",
    vk.VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE: "maxPerStageDescriptorSampledImages",
    vk.VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: "maxPerStageDescriptorStorageImages",
    vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE: "maxPerStageDescriptorStorageImages",
    vk.VK_DESCRIPTOR_TYPE_SAMPLER: "maxPerStageDescriptorSamplers",
}
_TEXEL_KINDS = frozenset({"uniform_texel_buffer", "storage_texel_buffer"})
# image/sampler descriptor kinds -> descriptor type
_IMAGE_KINDS = {
    "sampled_image": vk.VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE,
    "storage_image": vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
    "sampler": vk.VK_DESCRIPTOR_TYPE_SAMPLER,
}
# texel format name -> (VkFormat, aspect)
_TEXEL_FORMATS = {
    "rgba8": (vk.VK_FORMAT_R8G8B8A8_UNORM, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "r32f": (vk.VK_FORMAT_R32_SFLOAT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "rg32f": (vk.VK_FORMAT_R32G32_SFLOAT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "rgba32f": (vk.VK_FORMAT_R32G32B32A32_SFLOAT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "r32ui": (vk.VK_FORMAT_R32_UINT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "r32i": (vk.VK_FORMAT_R32_SINT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "rgba32ui": (vk.VK_FORMAT_R32G32B32A32_UINT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "rgba32i": (vk.VK_FORMAT_R32G32B32A32_SINT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "d32f": (vk.VK_FORMAT_D32_SFLOAT, vk.VK_IMAGE_ASPECT_DEPTH_BIT),
    "rg32ui": (vk.VK_FORMAT_R32G32_UINT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "r8": (vk.VK_FORMAT_R8_UNORM, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "rgba8_snorm": (vk.VK_FORMAT_R8G8B8A8_SNORM, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "r16f": (vk.VK_FORMAT_R16_SFLOAT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
    "rgba16f": (vk.VK_FORMAT_R16G16B16A16_SFLOAT, vk.VK_IMAGE_ASPECT_COLOR_BIT),
}
# dim name -> (image type, view type, cube compatible)
_DIMS = {
    "1d": (vk.VK_IMAGE_TYPE_1D, vk.VK_IMAGE_VIEW_TYPE_1D, False),
    "1d_array": (vk.VK_IMAGE_TYPE_1D, vk.VK_IMAGE_VIEW_TYPE_1D_ARRAY, False),
    "2d": (vk.VK_IMAGE_TYPE_2D, vk.VK_IMAGE_VIEW_TYPE_2D, False),
    "2d_array": (vk.VK_IMAGE_TYPE_2D, vk.VK_IMAGE_VIEW_TYPE_2D_ARRAY, False),
    "3d": (vk.VK_IMAGE_TYPE_3D, vk.VK_IMAGE_VIEW_TYPE_3D, False),
    "cube": (vk.VK_IMAGE_TYPE_2D, vk.VK_IMAGE_VIEW_TYPE_CUBE, True),
    "cube_array": (vk.VK_IMAGE_TYPE_2D, vk.VK_IMAGE_VIEW_TYPE_CUBE_ARRAY, True),
}
_FILTERS = {"nearest": vk.VK_FILTER_NEAREST, "linear": vk.VK_FILTER_LINEAR}
_MIPMAP_MODES = {"nearest": vk.VK_SAMPLER_MIPMAP_MODE_NEAREST, "linear": vk.VK_SAMPLER_MIPMAP_MODE_LINEAR}
_ADDRESS_MODES = {
    "wrap": vk.VK_SAMPLER_ADDRESS_MODE_REPEAT, "mirror": vk.VK_SAMPLER_ADDRESS_MODE_MIRRORED_REPEAT,
    "clamp": vk.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE, "border": vk.VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_BORDER,
}
_COMPARE_OPS = {
    "never": vk.VK_COMPARE_OP_NEVER, "less": vk.VK_COMPARE_OP_LESS, "equal": vk.VK_COMPARE_OP_EQUAL,
    "less_equal": vk.VK_COMPARE_OP_LESS_OR_EQUAL, "greater": vk.VK_COMPARE_OP_GREATER,
    "not_equal": vk.VK_COMPARE_OP_NOT_EQUAL, "greater_equal": vk.VK_COMPARE_OP_GREATER_OR_EQUAL,
    "always": vk.VK_COMPARE_OP_ALWAYS,
}
_BORDER_COLORS = {
    "transparent_black": vk.VK_BORDER_COLOR_FLOAT_TRANSPARENT_BLACK,
    "opaque_black": vk.VK_BORDER_COLOR_FLOAT_OPAQUE_BLACK,
    "opaque_white": vk.VK_BORDER_COLOR_FLOAT_OPAQUE_WHITE,
}
_HOST_MEM = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT

# Feature structs queried and enabled as a pNext chain: (C type, sType).
_FEATURE_CHAIN = (
    ("VkPhysicalDeviceVulkan11Features", vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES),
    ("VkPhysicalDeviceVulkan12Features", vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES),
    ("VkPhysicalDeviceVulkan13Features", vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES),
)
# Device extensions enabled when the device has them, with their feature structs (chained likewise):
# mutable descriptors let one binding hold descriptors of several types (SM 6.6 heaps as DXC maps them)
# transform feedback captures a GS stream's vertices to a buffer
_XFB_EXTENSION = "VK_EXT_transform_feedback"
_OPTIONAL_EXTENSIONS = (
    ("VK_EXT_mutable_descriptor_type", "VkPhysicalDeviceMutableDescriptorTypeFeaturesEXT",
     vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MUTABLE_DESCRIPTOR_TYPE_FEATURES_EXT),
    (_XFB_EXTENSION, "VkPhysicalDeviceTransformFeedbackFeaturesEXT",
     vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TRANSFORM_FEEDBACK_FEATURES_EXT),
    # acceleration structures (vkaccel.py) for ray queries and ray-tracing pipelines
    ("VK_KHR_deferred_host_operations", None, None),
    ("VK_KHR_acceleration_structure", "VkPhysicalDeviceAccelerationStructureFeaturesKHR",
     vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR),
    ("VK_KHR_ray_query", "VkPhysicalDeviceRayQueryFeaturesKHR",
     vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR),
    ("VK_KHR_ray_tracing_pipeline", "VkPhysicalDeviceRayTracingPipelineFeaturesKHR",
     vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_FEATURES_KHR),
    # mesh and amplification (task) shaders: draws with vkCmdDrawMeshTasksEXT (run_graphics with r["ms"])
    ("VK_EXT_mesh_shader", "VkPhysicalDeviceMeshShaderFeaturesEXT",
     vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MESH_SHADER_FEATURES_EXT),
    # SV_StencilRef (FragStencilRefEXT)
    ("VK_EXT_shader_stencil_export", None, None),
    # SM 6.6 derivatives in compute shaders; the KHR struct is the NV one (same layout and sType value)
    ("VK_KHR_compute_shader_derivatives", "VkPhysicalDeviceComputeShaderDerivativesFeaturesNV",
     vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COMPUTE_SHADER_DERIVATIVES_FEATURES_NV),
)


class Context:
    """Instance, device, queue and command pool; created once per worker."""

    def __init__(self) -> None:
        app = vk.VkApplicationInfo(
            pApplicationName="shaderbuild-tests", applicationVersion=1,
            pEngineName="none", engineVersion=1, apiVersion=API_VERSION,
        )
        self.instance = vk.vkCreateInstance(vk.VkInstanceCreateInfo(pApplicationInfo=app), None)
        pds = vk.vkEnumeratePhysicalDevices(self.instance)
        if not pds:
            raise RuntimeError("no Vulkan physical device (is mesa-vulkan-drivers installed?)")
        self.pd = pds[0]
        self.props = vk.vkGetPhysicalDeviceProperties(self.pd)
        self.mem_props = vk.vkGetPhysicalDeviceMemoryProperties(self.pd)
        families = vk.vkGetPhysicalDeviceQueueFamilyProperties(self.pd)
        self.qfi = next(i for i, f in enumerate(families) if f.queueFlags & vk.VK_QUEUE_COMPUTE_BIT)
        have = {e.extensionName for e in vk.vkEnumerateDeviceExtensionProperties(self.pd, None)}
        self.extensions = [e for e, _c, _s in _OPTIONAL_EXTENSIONS if e in have]
        self.available = sorted(have)   # every device extension, enabled or not (reported by the info op)
        self.xfb = _XFB_EXTENSION in self.extensions
        self._features = self._query_features()
        ext_names = [ffi.new("char[]", e.encode()) for e in self.extensions]
        self._ext_names = (ext_names, ffi.new("char*[]", ext_names))    # alive as long as the device
        prio = ffi.new("float[]", [1.0])
        qinfo = ffi.new("VkDeviceQueueCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
            "queueFamilyIndex": self.qfi, "queueCount": 1, "pQueuePriorities": prio,
        })
        dinfo = ffi.new("VkDeviceCreateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
            "pNext": self._features[0], "queueCreateInfoCount": 1, "pQueueCreateInfos": qinfo,
            "enabledExtensionCount": len(self.extensions), "ppEnabledExtensionNames": self._ext_names[1],
        })
        self.device = vk.vkCreateDevice(self.pd, dinfo[0], None)
        self.queue = vk.vkGetDeviceQueue(self.device, self.qfi, 0)
        self.cmd_pool = vk.vkCreateCommandPool(self.device, vk.VkCommandPoolCreateInfo(
            flags=vk.VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, queueFamilyIndex=self.qfi), None)

    def _query_features(self) -> list:
        """Query core + 1.1/1.2/1.3 features; the same chain is enabled as-is (all supported)."""
        chain = []
        nxt = ffi.NULL
        optional = tuple((c, s) for e, c, s in _OPTIONAL_EXTENSIONS if e in self.extensions and c)
        for ctype, stype in reversed(_FEATURE_CHAIN + optional):
            s = ffi.new(ctype + "*", {"sType": stype, "pNext": nxt})
            chain.insert(0, s)
            nxt = s
        f2 = ffi.new("VkPhysicalDeviceFeatures2*", {
            "sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, "pNext": nxt})
        vk.vkGetPhysicalDeviceFeatures2(self.pd, f2)
        return [f2, *chain]  # keep every struct alive as long as the device

    def feature_flags(self) -> dict[str, bool]:
        """Names of the enabled features, for tests and diagnostics."""
        out = {}
        structs = [self._features[0].features, *(p[0] for p in self._features[1:])]
        for s in structs:
            for name, _field in ffi.typeof(s).fields:
                if name not in ("sType", "pNext"):
                    out[name] = bool(getattr(s, name))
        return out

    def memory_type(self, type_bits: int, flags: int) -> int:
        for i in range(self.mem_props.memoryTypeCount):
            if type_bits & (1 << i) and (self.mem_props.memoryTypes[i].propertyFlags & flags) == flags:
                return i
        raise RuntimeError("no host-visible coherent memory type")


class Resources:
    """Every object one dispatch creates; destroyed in reverse order by close()."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._undo: list = []

    def add(self, destroy, handle):
        self._undo.append((destroy, handle))
        return handle

    def close(self) -> None:
        dev = self.ctx.device
        for destroy, handle in reversed(self._undo):
            destroy(dev, handle, None)
        self._undo.clear()

    def host_buffer(self, data: bytes, usage: int):
        """Host-visible coherent buffer holding `data`; returns (buffer, memory, mapping)."""
        dev = self.ctx.device
        size = max(len(data), 4)
        buf = self.add(vk.vkDestroyBuffer, vk.vkCreateBuffer(dev, vk.VkBufferCreateInfo(
            size=size, usage=usage, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None))
        req = vk.vkGetBufferMemoryRequirements(dev, buf)
        mem = self.add(vk.vkFreeMemory, vk.vkAllocateMemory(dev, vk.VkMemoryAllocateInfo(
            allocationSize=req.size,
            memoryTypeIndex=self.ctx.memory_type(req.memoryTypeBits, _HOST_MEM)), None))
        vk.vkBindBufferMemory(dev, buf, mem, 0)
        mapping = vk.vkMapMemory(dev, mem, 0, size, 0)
        mapping[:size] = bytes(data).ljust(size, b"\0")
        return buf, mem, mapping


def _texel_size(fmt: str) -> int:
    return {"rgba8": 4, "rg32f": 8, "rgba32f": 16, "rgba32ui": 16, "rgba32i": 16, "rg32ui": 8, "r8": 1,
            "rgba8_snorm": 4, "r16f": 2, "rgba16f": 8}.get(fmt, 4)


def _image_levels(d: dict) -> list[tuple[int, int, int]]:
    """(width, height, depth) of every mip level of image descriptor d."""
    w, h, dep = d["width"], d.get("height", 1), d.get("depth", 1)
    return [(max(1, w >> m), max(1, h >> m), max(1, dep >> m)) for m in range(d.get("mips", 1))]


def image_data_size(d: dict) -> int:
    """Bytes of an image's data: per mip level, every layer's texels (rows of width texels)."""
    layers = d.get("layers", 1)
    if d.get("samples", 1) > 1 and d.get("per_sample"):     # every sample of every texel (vkmsfill)
        return d["width"] * d.get("height", 1) * layers * d["samples"] * _texel_size(d["format"])
    if d.get("samples", 1) > 1:     # a multisampled image: one texel, every sample cleared to it
        return _texel_size(d["format"])
    return sum(w * h * dep * layers for w, h, dep in _image_levels(d)) * _texel_size(d["format"])


class Descriptors:
    """The descriptors of one dispatch or draw: their objects, set layouts and sets, plus the
    transfer commands that upload images before the work and read storage images back after it.

    Each request descriptor is a dict with set, binding, index (array element), kind, data and,
    for images, format/width/height/depth/layers/mips/dim, for samplers filter/mipmap/address/
    compare/border/max_lod, for texel buffers format."""

    def __init__(self, res: Resources, descs: list[dict]) -> None:
        self.res, self.descs = res, descs
        self.items = [self._create(d) for d in descs]
        self._check_limits()
        self.layouts = self._set_layouts()
        self.sets = self._descriptor_sets()

    # ---- object creation
    def _create(self, d: dict) -> dict:
        kind = d["kind"]
        if kind in _KINDS:
            buf, _mem, mapping = self.res.host_buffer(d["data"], _KINDS[kind][1])
            item = {"type": _KINDS[kind][0], "buffer": buf, "mapping": mapping, "size": len(d["data"])}
            if kind in _TEXEL_KINDS:
                item["view"] = self.res.add(vk.vkDestroyBufferView, vk.vkCreateBufferView(
                    self.res.ctx.device, vk.VkBufferViewCreateInfo(
                        buffer=buf, format=_TEXEL_FORMATS[d["format"]][0], offset=0,
                        range=len(d["data"]) - len(d["data"]) % _texel_size(d["format"])),
                    None))
            return item
        if kind == "sampler":
            return {"type": _IMAGE_KINDS[kind], "sampler": self._sampler(d)}
        if kind == "acceleration_structure":
            return {"type": vk.VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR,
                    "accel": vkaccel.build_scene(self.res, d["scene"])}
        if kind in _IMAGE_KINDS:
            return self._image(d)
        raise ValueError(f"unknown descriptor kind {kind!r}")

    def _sampler(self, d: dict):
        compare = d.get("compare")
        addr = _ADDRESS_MODES[d.get("address", "clamp")]
        filt = _FILTERS[d.get("filter", "nearest")]
        info = vk.VkSamplerCreateInfo(
            magFilter=filt, minFilter=filt, mipmapMode=_MIPMAP_MODES[d.get("mipmap", "nearest")],
            addressModeU=addr, addressModeV=addr, addressModeW=addr, mipLodBias=0.0,
            anisotropyEnable=vk.VK_FALSE, maxAnisotropy=1.0,
            compareEnable=vk.VK_TRUE if compare else vk.VK_FALSE,
            compareOp=_COMPARE_OPS[compare or "never"], minLod=0.0, maxLod=float(d.get("max_lod", 1000.0)),
            borderColor=_BORDER_COLORS[d.get("border", "transparent_black")],
            unnormalizedCoordinates=vk.VK_FALSE)
        return self.res.add(vk.vkDestroySampler, vk.vkCreateSampler(self.res.ctx.device, info, None))

    def _image(self, d: dict) -> dict:
        dev = self.res.ctx.device
        fmt, aspect = _TEXEL_FORMATS[d["format"]]
        itype, vtype, cube = _DIMS[d.get("dim", "2d")]
        size = image_data_size(d)
        if len(d["data"]) != size:
            raise ValueError(f"image data is {len(d['data'])} bytes, its shape needs {size}")
        storage = d["kind"] == "storage_image"
        per_sample = d.get("samples", 1) > 1 and d.get("per_sample", False)
        usage = vk.VK_IMAGE_USAGE_SAMPLED_BIT | vk.VK_IMAGE_USAGE_TRANSFER_DST_BIT | vk.VK_IMAGE_USAGE_TRANSFER_SRC_BIT
        if storage or per_sample:
            usage |= vk.VK_IMAGE_USAGE_STORAGE_BIT
        mips, layers = d.get("mips", 1), d.get("layers", 1)
        image = self.res.add(vk.vkDestroyImage, vk.vkCreateImage(dev, vk.VkImageCreateInfo(
            flags=vk.VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT if cube else 0, imageType=itype, format=fmt,
            extent=vk.VkExtent3D(width=d["width"], height=d.get("height", 1), depth=d.get("depth", 1)),
            mipLevels=mips, arrayLayers=layers, samples=d.get("samples", 1),     # VkSampleCountFlagBits = the count
            tiling=vk.VK_IMAGE_TILING_OPTIMAL, usage=usage, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE,
            initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED), None))
        req = vk.vkGetImageMemoryRequirements(dev, image)
        mem = self.res.add(vk.vkFreeMemory, vk.vkAllocateMemory(dev, vk.VkMemoryAllocateInfo(
            allocationSize=req.size, memoryTypeIndex=self.res.ctx.memory_type(req.memoryTypeBits, 0)), None))
        vk.vkBindImageMemory(dev, image, mem, 0)
        subrange = vk.VkImageSubresourceRange(aspectMask=aspect, baseMipLevel=0, levelCount=mips,
                                              baseArrayLayer=0, layerCount=layers)
        view = self.res.add(vk.vkDestroyImageView, vk.vkCreateImageView(dev, vk.VkImageViewCreateInfo(
            image=image, viewType=vtype, format=fmt, subresourceRange=subrange), None))
        staging = self.res.host_buffer(d["data"], vk.VK_BUFFER_USAGE_TRANSFER_SRC_BIT | vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT
                                       | (vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT if per_sample else 0))
        regions, offset = [], 0
        for m, (w, h, dep) in enumerate(_image_levels(d)):
            regions.append(vk.VkBufferImageCopy(
                bufferOffset=offset, bufferRowLength=0, bufferImageHeight=0,
                imageSubresource=vk.VkImageSubresourceLayers(aspectMask=aspect, mipLevel=m, baseArrayLayer=0,
                                                             layerCount=layers),
                imageOffset=vk.VkOffset3D(x=0, y=0, z=0), imageExtent=vk.VkExtent3D(width=w, height=h, depth=dep)))
            offset += w * h * dep * layers * _texel_size(d["format"])
        item = {"type": _IMAGE_KINDS[d["kind"]], "image": image, "view": view, "staging": staging,
                "regions": regions, "subrange": subrange, "readback": storage, "size": size}
        if per_sample:                  # no buffer copies into multisampled images: stored by a shader
            item["fill"] = vkmsfill.prepare(self.res, d, image, fmt, aspect, staging[0])
        elif d.get("samples", 1) > 1:   # no buffer copies into multisampled images: cleared to the one texel
            code = {"r32ui": "I", "rg32ui": "I", "rgba32ui": "I", "r32i": "i", "rgba32i": "i"}.get(d["format"], "f")
            vals = list(struct.unpack(f"<{size // 4}{code}", d["data"])) + [0] * (4 - size // 4)
            field = {"I": "uint32", "i": "int32", "f": "float32"}[code]
            item["clear"] = vk.VkClearColorValue(**{field: vals})
        return item

    def _check_limits(self) -> None:
        """Exceeding a per-stage descriptor limit is undefined behaviour (lavapipe segfaults): refuse it."""
        limits = self.res.ctx.props.limits
        totals: dict[str, int] = {}
        kinds = self._binding_types()
        for key, (_dtype, count) in self._bindings().items():
            for field in {_STAGE_LIMITS.get(t, "") for t in kinds[key]} - {""}:  # mutable: counts per type
                totals[field] = totals.get(field, 0) + count
        for field, total in totals.items():
            if total > getattr(limits, field):
                raise ValueError(f"{total} descriptors exceed the device's {field} = {getattr(limits, field)}")

    # ---- layouts and sets
    def _bindings(self) -> dict[tuple[int, int], tuple[int, int]]:
        """(set, binding) -> (descriptor type, count); a binding whose elements are of several types
        is a VK_DESCRIPTOR_TYPE_MUTABLE_EXT binding (VK_EXT_mutable_descriptor_type)."""
        out: dict[tuple[int, int], tuple[int, int]] = {}
        for (key, types), count in zip(self._binding_types().items(), self._binding_counts().values()):
            if len(types) > 1 and "VK_EXT_mutable_descriptor_type" not in self.res.ctx.extensions:
                raise ValueError(f"set {key[0]} binding {key[1]} mixes descriptor kinds")
            out[key] = (types[0] if len(types) == 1 else vk.VK_DESCRIPTOR_TYPE_MUTABLE_EXT, count)
        return out

    def _binding_types(self) -> dict[tuple[int, int], list[int]]:
        out: dict[tuple[int, int], list[int]] = {}
        for d, item in zip(self.descs, self.items):
            types = out.setdefault((d["set"], d["binding"]), [])
            if item["type"] not in types:
                types.append(item["type"])
        return out

    def _binding_counts(self) -> dict[tuple[int, int], int]:
        out: dict[tuple[int, int], int] = {}
        for d in self.descs:
            key = (d["set"], d["binding"])
            out[key] = max(out.get(key, 0), d.get("index", 0) + 1)
        return out

    def _set_layouts(self) -> list:
        """One layout per set number 0..max (gaps get empty layouts)."""
        dev = self.res.ctx.device
        bindings = self._bindings()
        nsets = max((s for s, _b in bindings), default=-1) + 1
        layouts = []
        for s in range(nsets):
            mine = [(b, t, n) for (ss, b), (t, n) in sorted(bindings.items()) if ss == s]
            entries = [vk.VkDescriptorSetLayoutBinding(binding=b, descriptorType=t, descriptorCount=n,
                                                       stageFlags=vk.VK_SHADER_STAGE_ALL) for b, t, n in mine]
            mutable = None
            if any(t == vk.VK_DESCRIPTOR_TYPE_MUTABLE_EXT for _b, t, _n in mine):
                kinds = self._binding_types()
                lists = [vk.VkMutableDescriptorTypeListEXT(
                    descriptorTypeCount=len(kinds[(s, b)]) if t == vk.VK_DESCRIPTOR_TYPE_MUTABLE_EXT else 0,
                    pDescriptorTypes=kinds[(s, b)] if t == vk.VK_DESCRIPTOR_TYPE_MUTABLE_EXT else None)
                    for b, t, _n in mine]
                mutable = vk.VkMutableDescriptorTypeCreateInfoEXT(mutableDescriptorTypeListCount=len(lists),
                                                                  pMutableDescriptorTypeLists=lists)
            extra = {"pNext": mutable} if mutable is not None else {}
            info = vk.VkDescriptorSetLayoutCreateInfo(bindingCount=len(entries), pBindings=entries or None, **extra)
            layouts.append(self.res.add(vk.vkDestroyDescriptorSetLayout,
                                        vk.vkCreateDescriptorSetLayout(dev, info, None)))
        return layouts

    def _descriptor_sets(self) -> list:
        dev = self.res.ctx.device
        if not self.layouts:
            return []
        counts: dict[int, int] = {}
        for t, n in self._bindings().values():
            counts[t] = counts.get(t, 0) + n
        sizes = [vk.VkDescriptorPoolSize(type=t, descriptorCount=n) for t, n in counts.items()]
        if not sizes:  # only empty sets: pools still need one size entry
            sizes = [vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=1)]
        pool = self.res.add(vk.vkDestroyDescriptorPool, vk.vkCreateDescriptorPool(dev, vk.VkDescriptorPoolCreateInfo(
            maxSets=len(self.layouts), poolSizeCount=len(sizes), pPoolSizes=sizes), None))
        sets = vk.vkAllocateDescriptorSets(dev, vk.VkDescriptorSetAllocateInfo(
            descriptorPool=pool, descriptorSetCount=len(self.layouts), pSetLayouts=self.layouts))
        self._keep: list = []
        writes = [vkaccel.descriptor_write(sets[d["set"]], d["binding"], d.get("index", 0), item["accel"],
                                           self._keep) if "accel" in item else self._write(sets[d["set"]], d, item)
                  for d, item in zip(self.descs, self.items)]
        if writes:
            vk.vkUpdateDescriptorSets(dev, len(writes), writes, 0, None)
        return sets

    @staticmethod
    def _write(dst_set, d: dict, item: dict):
        common = dict(dstSet=dst_set, dstBinding=d["binding"], dstArrayElement=d.get("index", 0),
                      descriptorCount=1, descriptorType=item["type"])
        if "image" in item:
            layout = vk.VK_IMAGE_LAYOUT_GENERAL
            return vk.VkWriteDescriptorSet(**common, pImageInfo=[vk.VkDescriptorImageInfo(
                imageView=item["view"], imageLayout=layout)])
        if "sampler" in item:
            return vk.VkWriteDescriptorSet(**common, pImageInfo=[vk.VkDescriptorImageInfo(sampler=item["sampler"])])
        if "view" in item:
            return vk.VkWriteDescriptorSet(**common, pTexelBufferView=[item["view"]])
        return vk.VkWriteDescriptorSet(**common, pBufferInfo=[vk.VkDescriptorBufferInfo(
            buffer=item["buffer"], offset=0, range=max(item["size"], 4))])

    # ---- commands
    def _images(self) -> list[dict]:
        return [item for item in self.items if "image" in item]

    @staticmethod
    def _transition(cmd, item: dict, old: int, new: int, src_access: int, dst_access: int) -> None:
        barrier = vk.VkImageMemoryBarrier(
            srcAccessMask=src_access, dstAccessMask=dst_access, oldLayout=old, newLayout=new,
            srcQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED, dstQueueFamilyIndex=vk.VK_QUEUE_FAMILY_IGNORED,
            image=item["image"], subresourceRange=item["subrange"])
        vk.vkCmdPipelineBarrier(cmd, vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                0, 0, None, 0, None, 1, [barrier])

    def record_uploads(self, cmd) -> None:
        """Copy every image's data in and leave it in GENERAL layout for the shaders."""
        for item in self._images():
            if "fill" in item:          # a multisampled image with per-sample data (vkmsfill)
                self._transition(cmd, item, vk.VK_IMAGE_LAYOUT_UNDEFINED, vk.VK_IMAGE_LAYOUT_GENERAL,
                                 0, vk.VK_ACCESS_SHADER_WRITE_BIT)
                item["fill"](cmd)
                self._transition(cmd, item, vk.VK_IMAGE_LAYOUT_GENERAL, vk.VK_IMAGE_LAYOUT_GENERAL,
                                 vk.VK_ACCESS_SHADER_WRITE_BIT,
                                 vk.VK_ACCESS_SHADER_READ_BIT | vk.VK_ACCESS_SHADER_WRITE_BIT)
                continue
            self._transition(cmd, item, vk.VK_IMAGE_LAYOUT_UNDEFINED, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                             0, vk.VK_ACCESS_TRANSFER_WRITE_BIT)
            if "clear" in item:
                vk.vkCmdClearColorImage(cmd, item["image"], vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, item["clear"], 1,
                                        [item["subrange"]])
            else:
                vk.vkCmdCopyBufferToImage(cmd, item["staging"][0], item["image"],
                                          vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, len(item["regions"]),
                                          item["regions"])
            self._transition(cmd, item, vk.VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, vk.VK_IMAGE_LAYOUT_GENERAL,
                             vk.VK_ACCESS_TRANSFER_WRITE_BIT,
                             vk.VK_ACCESS_SHADER_READ_BIT | vk.VK_ACCESS_SHADER_WRITE_BIT)

    def record_readbacks(self, cmd) -> None:
        """After the work: storage images back into their staging buffers, then make all host-visible."""
        barrier = vk.VkMemoryBarrier(srcAccessMask=vk.VK_ACCESS_SHADER_WRITE_BIT | vk.VK_ACCESS_TRANSFER_WRITE_BIT,
                                     dstAccessMask=vk.VK_ACCESS_TRANSFER_READ_BIT | vk.VK_ACCESS_HOST_READ_BIT)
        vk.vkCmdPipelineBarrier(cmd, vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                                0, 1, [barrier], 0, None, 0, None)
        for item in self._images():
            if item["readback"]:
                vk.vkCmdCopyImageToBuffer(cmd, item["image"], vk.VK_IMAGE_LAYOUT_GENERAL, item["staging"][0],
                                          len(item["regions"]), item["regions"])
        host = vk.VkMemoryBarrier(srcAccessMask=vk.VK_ACCESS_TRANSFER_WRITE_BIT | vk.VK_ACCESS_SHADER_WRITE_BIT,
                                  dstAccessMask=vk.VK_ACCESS_HOST_READ_BIT)
        vk.vkCmdPipelineBarrier(cmd, vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, vk.VK_PIPELINE_STAGE_HOST_BIT,
                                0, 1, [host], 0, None, 0, None)

    def results(self) -> list[bytes]:
        """Final contents per descriptor: buffers and storage images as read back, others as given."""
        out = []
        for d, item in zip(self.descs, self.items):
            if "mapping" in item:
                out.append(bytes(item["mapping"][: item["size"]]))
            elif item.get("readback"):
                out.append(bytes(item["staging"][2][: item["size"]]))
            else:
                out.append(bytes(d["data"]))
        return out


def _specialization_info(spec: dict[int, bytes] | None, keep: list):
    """VkSpecializationInfo for {constant id: value bytes}; cffi buffers are kept alive in `keep`."""
    if not spec:
        return None
    entries, data, offset = [], b"", 0
    for cid, value in sorted(spec.items()):
        entries.append(vk.VkSpecializationMapEntry(constantID=cid, offset=offset, size=len(value)))
        data += value
        offset += len(value)
    blob = ffi.new("char[]", data)
    keep += [blob, entries]
    return vk.VkSpecializationInfo(mapEntryCount=len(entries), pMapEntries=entries, dataSize=len(data),
                                   pData=blob)


def run_compute(ctx: Context, spirv: bytes, entry: str, descs: list, groups: tuple, push: bytes,
                spec: dict[int, bytes] | None = None) -> list[bytes]:
    """descs: descriptor dicts (see Descriptors); spec: specialization constants {id: bytes}.
    Returns final contents, same order."""
    if len(spirv) % 4:
        raise ValueError(f"SPIR-V size {len(spirv)} is not a multiple of 4")
    dev = ctx.device
    res = Resources(ctx)
    try:
        bound = Descriptors(res, descs)
        layouts = bound.layouts
        pc_ranges = []
        if push:
            pc_ranges = [vk.VkPushConstantRange(
                stageFlags=vk.VK_SHADER_STAGE_COMPUTE_BIT, offset=0, size=(len(push) + 3) & ~3)]
        playout = res.add(vk.vkDestroyPipelineLayout, vk.vkCreatePipelineLayout(dev, vk.VkPipelineLayoutCreateInfo(
            setLayoutCount=len(layouts), pSetLayouts=layouts or None,
            pushConstantRangeCount=len(pc_ranges), pPushConstantRanges=pc_ranges or None), None))
        module = res.add(vk.vkDestroyShaderModule, vk.vkCreateShaderModule(dev, vk.VkShaderModuleCreateInfo(
            codeSize=len(spirv), pCode=spirv), None))
        name = ffi.new("char[]", entry.encode())  # must outlive the create call (dangling pName pitfall)
        keep: list = []
        spec_info = _specialization_info(spec, keep)
        stage = vk.VkPipelineShaderStageCreateInfo(
            stage=vk.VK_SHADER_STAGE_COMPUTE_BIT, module=module, pName=name, pSpecializationInfo=spec_info)
        pinfo = vk.VkComputePipelineCreateInfo(stage=stage, layout=playout)
        pipeline = vk.vkCreateComputePipelines(dev, vk.VK_NULL_HANDLE, 1, [pinfo], None)[0]
        res.add(vk.vkDestroyPipeline, pipeline)
        sets = bound.sets

        cmd = vk.vkAllocateCommandBuffers(dev, vk.VkCommandBufferAllocateInfo(
            commandPool=ctx.cmd_pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
        res.add(lambda d, c, _a: vk.vkFreeCommandBuffers(d, ctx.cmd_pool, 1, [c]), cmd)
        vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
        bound.record_uploads(cmd)
        vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipeline)
        if sets:
            vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, playout, 0,
                                       len(sets), sets, 0, None)
        if push:
            padded = bytes(push).ljust(pc_ranges[0].size, b"\0")
            vk.vkCmdPushConstants(cmd, playout, vk.VK_SHADER_STAGE_COMPUTE_BIT, 0, len(padded),
                                  ffi.new("char[]", padded))
        vk.vkCmdDispatch(cmd, *groups)
        bound.record_readbacks(cmd)
        vk.vkEndCommandBuffer(cmd)
        _submit_and_wait(res, cmd)
        return bound.results()
    finally:
        res.close()


def _submit_and_wait(res: Resources, cmd) -> None:
    dev = res.ctx.device
    fence = res.add(vk.vkDestroyFence, vk.vkCreateFence(dev, vk.VkFenceCreateInfo(), None))
    vk.vkQueueSubmit(res.ctx.queue, 1, [vk.VkSubmitInfo(commandBufferCount=1, pCommandBuffers=[cmd])], fence)
    vk.vkWaitForFences(dev, 1, [fence], vk.VK_TRUE, _FENCE_TIMEOUT_NS)


_VERTEX_FORMATS = {
    "float": vk.VK_FORMAT_R32_SFLOAT, "float2": vk.VK_FORMAT_R32G32_SFLOAT,
    "float3": vk.VK_FORMAT_R32G32B32_SFLOAT, "float4": vk.VK_FORMAT_R32G32B32A32_SFLOAT,
    "uint": vk.VK_FORMAT_R32_UINT, "uint2": vk.VK_FORMAT_R32G32_UINT,
    "uint3": vk.VK_FORMAT_R32G32B32_UINT, "uint4": vk.VK_FORMAT_R32G32B32A32_UINT,
    "int": vk.VK_FORMAT_R32_SINT, "int2": vk.VK_FORMAT_R32G32_SINT,
    "int3": vk.VK_FORMAT_R32G32B32_SINT, "int4": vk.VK_FORMAT_R32G32B32A32_SINT,
}
_COLOR_FORMAT = vk.VK_FORMAT_R8G8B8A8_UNORM


def _color_target(res: Resources, width: int, height: int, layers: int = 1, samples: int = 1):
    """RGBA8 image + view usable as color attachment and copy source (a 2D array view when layered); with
    samples > 1 a multisampled attachment only (resolved into a single-sampled target)."""
    dev = res.ctx.device
    image = res.add(vk.vkDestroyImage, vk.vkCreateImage(dev, vk.VkImageCreateInfo(
        imageType=vk.VK_IMAGE_TYPE_2D, format=_COLOR_FORMAT,
        extent=vk.VkExtent3D(width=width, height=height, depth=1), mipLevels=1, arrayLayers=layers,
        samples=samples, tiling=vk.VK_IMAGE_TILING_OPTIMAL,
        usage=vk.VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | (vk.VK_IMAGE_USAGE_TRANSFER_SRC_BIT if samples == 1 else 0),
        sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE, initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED), None))
    req = vk.vkGetImageMemoryRequirements(dev, image)
    mem = res.add(vk.vkFreeMemory, vk.vkAllocateMemory(dev, vk.VkMemoryAllocateInfo(
        allocationSize=req.size, memoryTypeIndex=res.ctx.memory_type(req.memoryTypeBits, 0)), None))
    vk.vkBindImageMemory(dev, image, mem, 0)
    view = res.add(vk.vkDestroyImageView, vk.vkCreateImageView(dev, vk.VkImageViewCreateInfo(
        image=image, viewType=vk.VK_IMAGE_VIEW_TYPE_2D_ARRAY if layers > 1 else vk.VK_IMAGE_VIEW_TYPE_2D,
        format=_COLOR_FORMAT, subresourceRange=vk.VkImageSubresourceRange(
            aspectMask=vk.VK_IMAGE_ASPECT_COLOR_BIT, baseMipLevel=0, levelCount=1,
            baseArrayLayer=0, layerCount=layers)), None))
    return image, view


_DEPTH_FORMAT = vk.VK_FORMAT_D32_SFLOAT
_DEPTH_STENCIL_FORMAT = vk.VK_FORMAT_D32_SFLOAT_S8_UINT     # with r['stencil']


def _depth_target(res: Resources, width: int, height: int, fmt: int = _DEPTH_FORMAT):
    """D32 depth image + view (r['depth'] set: depth test LESS and depth writes; r['stencil'] set: D32S8 and
    the stencil test EQUAL against the reference, which a pixel shader's SV_StencilRef replaces)."""
    dev = res.ctx.device
    image = res.add(vk.vkDestroyImage, vk.vkCreateImage(dev, vk.VkImageCreateInfo(
        imageType=vk.VK_IMAGE_TYPE_2D, format=fmt,
        extent=vk.VkExtent3D(width=width, height=height, depth=1), mipLevels=1, arrayLayers=1,
        samples=vk.VK_SAMPLE_COUNT_1_BIT, tiling=vk.VK_IMAGE_TILING_OPTIMAL,
        usage=vk.VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
        sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE, initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED), None))
    req = vk.vkGetImageMemoryRequirements(dev, image)
    mem = res.add(vk.vkFreeMemory, vk.vkAllocateMemory(dev, vk.VkMemoryAllocateInfo(
        allocationSize=req.size, memoryTypeIndex=res.ctx.memory_type(req.memoryTypeBits, 0)), None))
    vk.vkBindImageMemory(dev, image, mem, 0)
    return res.add(vk.vkDestroyImageView, vk.vkCreateImageView(dev, vk.VkImageViewCreateInfo(
        image=image, viewType=vk.VK_IMAGE_VIEW_TYPE_2D, format=fmt,
        subresourceRange=vk.VkImageSubresourceRange(
            aspectMask=vk.VK_IMAGE_ASPECT_DEPTH_BIT | (vk.VK_IMAGE_ASPECT_STENCIL_BIT if fmt != _DEPTH_FORMAT else 0),
            baseMipLevel=0, levelCount=1,
            baseArrayLayer=0, layerCount=1)), None))


def _render_pass(res: Resources, targets: int = 1, depth: int | None = None, samples: int = 1):
    """Attachments: the color targets; with samples > 1 multisampled ones first, then the single-sampled
    targets they resolve into; the depth buffer last."""
    attachment = vk.VkAttachmentDescription(
        format=_COLOR_FORMAT, samples=vk.VK_SAMPLE_COUNT_1_BIT,
        loadOp=vk.VK_ATTACHMENT_LOAD_OP_CLEAR, storeOp=vk.VK_ATTACHMENT_STORE_OP_STORE,
        stencilLoadOp=vk.VK_ATTACHMENT_LOAD_OP_DONT_CARE, stencilStoreOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE,
        initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED, finalLayout=vk.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL)
    refs = [vk.VkAttachmentReference(attachment=i, layout=vk.VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)
            for i in range(targets)]
    attachments = [attachment] * targets
    resolve = None
    if samples > 1:
        attachments = [vk.VkAttachmentDescription(
            format=_COLOR_FORMAT, samples=samples, loadOp=vk.VK_ATTACHMENT_LOAD_OP_CLEAR,
            storeOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE, stencilLoadOp=vk.VK_ATTACHMENT_LOAD_OP_DONT_CARE,
            stencilStoreOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE, initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED,
            finalLayout=vk.VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)] * targets + attachments
        resolve = [vk.VkAttachmentReference(attachment=targets + i, layout=vk.VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL)
                   for i in range(targets)]
    depth_ref = None
    if depth is not None:       # the depth (depth/stencil) attachment's format
        attachments.append(vk.VkAttachmentDescription(
            format=depth, samples=vk.VK_SAMPLE_COUNT_1_BIT,
            loadOp=vk.VK_ATTACHMENT_LOAD_OP_CLEAR, storeOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE,
            stencilLoadOp=vk.VK_ATTACHMENT_LOAD_OP_CLEAR, stencilStoreOp=vk.VK_ATTACHMENT_STORE_OP_DONT_CARE,
            initialLayout=vk.VK_IMAGE_LAYOUT_UNDEFINED,
            finalLayout=vk.VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL))
        depth_ref = vk.VkAttachmentReference(attachment=len(attachments) - 1,
                                             layout=vk.VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL)
    subpass = vk.VkSubpassDescription(pipelineBindPoint=vk.VK_PIPELINE_BIND_POINT_GRAPHICS,
                                      colorAttachmentCount=targets, pColorAttachments=refs,
                                      pResolveAttachments=resolve, pDepthStencilAttachment=depth_ref)
    dep = vk.VkSubpassDependency(
        srcSubpass=0, dstSubpass=vk.VK_SUBPASS_EXTERNAL,
        srcStageMask=vk.VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, dstStageMask=vk.VK_PIPELINE_STAGE_TRANSFER_BIT,
        srcAccessMask=vk.VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, dstAccessMask=vk.VK_ACCESS_TRANSFER_READ_BIT)
    return res.add(vk.vkDestroyRenderPass, vk.vkCreateRenderPass(res.ctx.device, vk.VkRenderPassCreateInfo(
        attachmentCount=len(attachments), pAttachments=attachments, subpassCount=1, pSubpasses=[subpass],
        dependencyCount=1, pDependencies=[dep]), None))


_TOPOLOGIES = {
    "point_list": vk.VK_PRIMITIVE_TOPOLOGY_POINT_LIST, "line_list": vk.VK_PRIMITIVE_TOPOLOGY_LINE_LIST,
    "line_strip": vk.VK_PRIMITIVE_TOPOLOGY_LINE_STRIP, "triangle_list": vk.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST,
    "triangle_strip": vk.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_STRIP,
    "line_list_adjacency": vk.VK_PRIMITIVE_TOPOLOGY_LINE_LIST_WITH_ADJACENCY,
    "triangle_list_adjacency": vk.VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST_WITH_ADJACENCY,
}
_CULL_MODES = {"none": vk.VK_CULL_MODE_NONE, "front": vk.VK_CULL_MODE_FRONT_BIT, "back": vk.VK_CULL_MODE_BACK_BIT}


def _graphics_pipeline(res: Resources, r: dict, layout, render_pass):
    dev = res.ctx.device
    keep = []  # C strings referenced by the create infos
    stages = []
    for key, stage_bit in (("vs", vk.VK_SHADER_STAGE_VERTEX_BIT),
                           ("hs", vk.VK_SHADER_STAGE_TESSELLATION_CONTROL_BIT),
                           ("ds", vk.VK_SHADER_STAGE_TESSELLATION_EVALUATION_BIT),
                           ("gs", vk.VK_SHADER_STAGE_GEOMETRY_BIT), ("as", vk.VK_SHADER_STAGE_TASK_BIT_EXT),
                           ("ms", vk.VK_SHADER_STAGE_MESH_BIT_EXT), ("ps", vk.VK_SHADER_STAGE_FRAGMENT_BIT)):
        if r.get(key) is None:
            continue
        spirv, entry = r[key]
        module = res.add(vk.vkDestroyShaderModule, vk.vkCreateShaderModule(dev, vk.VkShaderModuleCreateInfo(
            codeSize=len(spirv), pCode=spirv), None))
        keep.append(ffi.new("char[]", entry.encode()))
        stages.append(vk.VkPipelineShaderStageCreateInfo(stage=stage_bit, module=module, pName=keep[-1]))
    bindings, attrs = [], []
    for i, (_data, stride, attributes) in enumerate(r["vertex_buffers"]):
        bindings.append(vk.VkVertexInputBindingDescription(
            binding=i, stride=stride, inputRate=vk.VK_VERTEX_INPUT_RATE_VERTEX))
        attrs += [vk.VkVertexInputAttributeDescription(location=loc, binding=i, format=_VERTEX_FORMATS[fmt],
                                                       offset=off) for loc, fmt, off in attributes]
    vinput = vk.VkPipelineVertexInputStateCreateInfo(
        vertexBindingDescriptionCount=len(bindings), pVertexBindingDescriptions=bindings or None,
        vertexAttributeDescriptionCount=len(attrs), pVertexAttributeDescriptions=attrs or None)
    w, h = r["size"]
    n = r.get("viewports", 1)      # n > 1: side-by-side vertical strips of the target, viewport i the i-th
    viewports = [vk.VkViewport(x=float(i * w // n), y=0.0, width=float(w // n), height=float(h), minDepth=0.0,
                               maxDepth=1.0) for i in range(n)]
    scissors = [vk.VkRect2D(offset=vk.VkOffset2D(x=i * w // n, y=0), extent=vk.VkExtent2D(width=w // n, height=h))
                for i in range(n)]
    blends = [vk.VkPipelineColorBlendAttachmentState(colorWriteMask=0xF)] * r.get("targets", 1)
    stencil = vk.VkStencilOpState(failOp=vk.VK_STENCIL_OP_KEEP, passOp=vk.VK_STENCIL_OP_KEEP,
                                  depthFailOp=vk.VK_STENCIL_OP_KEEP, compareOp=vk.VK_COMPARE_OP_EQUAL,
                                  compareMask=0xFF, writeMask=0, reference=0)
    points = r.get("patch_control_points")    # with hs + ds: a patch list
    tess = vk.VkPipelineTessellationStateCreateInfo(patchControlPoints=points) if points else None
    mesh = r.get("ms") is not None      # a mesh pipeline has no vertex input or input assembly
    info = vk.VkGraphicsPipelineCreateInfo(
        stageCount=len(stages), pStages=stages, pVertexInputState=None if mesh else vinput, pTessellationState=tess,
        pInputAssemblyState=None if mesh else vk.VkPipelineInputAssemblyStateCreateInfo(
            topology=vk.VK_PRIMITIVE_TOPOLOGY_PATCH_LIST if points else _TOPOLOGIES[r.get("topology", "triangle_list")]),
        pViewportState=vk.VkPipelineViewportStateCreateInfo(
            viewportCount=n, pViewports=viewports, scissorCount=n, pScissors=scissors),
        pRasterizationState=vk.VkPipelineRasterizationStateCreateInfo(
            polygonMode=vk.VK_POLYGON_MODE_FILL, cullMode=_CULL_MODES[r.get("cull", "none")],
            frontFace=vk.VK_FRONT_FACE_COUNTER_CLOCKWISE, lineWidth=1.0),
        pMultisampleState=vk.VkPipelineMultisampleStateCreateInfo(
            rasterizationSamples=r.get("samples", 1)),
        pColorBlendState=vk.VkPipelineColorBlendStateCreateInfo(attachmentCount=len(blends), pAttachments=blends),
        pDepthStencilState=vk.VkPipelineDepthStencilStateCreateInfo(
            depthTestEnable=r.get("depth") is not None, depthWriteEnable=r.get("depth") is not None,
            depthCompareOp=vk.VK_COMPARE_OP_LESS, stencilTestEnable=r.get("stencil") is not None,
            front=stencil, back=stencil) if r.get("depth") is not None or r.get("stencil") is not None else None,
        layout=layout, renderPass=render_pass, subpass=0)
    pipeline = vk.vkCreateGraphicsPipelines(dev, vk.VK_NULL_HANDLE, 1, [info], None)[0]
    del keep
    return res.add(vk.vkDestroyPipeline, pipeline)


def run_graphics(ctx: Context, r: dict):
    """Draw r['vertex_count'] vertices (r['instance_count'] instances) into r['targets'] RGBA8 targets
    cleared to r['clear']; return the pixels of target 0, or with r['full'] the tuple
    (pixels of every target, final contents of every descriptor)."""
    dev = ctx.device
    w, h = r["size"]
    ntargets = r.get("targets", 1)
    layers = r.get("layers", 1)
    res = Resources(ctx)
    try:
        bound = Descriptors(res, r["buffers"])
        vbufs = [res.host_buffer(vb[0], vk.VK_BUFFER_USAGE_VERTEX_BUFFER_BIT)[0] for vb in r["vertex_buffers"]]
        readbacks = [res.host_buffer(bytes(w * h * 4 * layers), vk.VK_BUFFER_USAGE_TRANSFER_DST_BIT)
                     for _ in range(ntargets)]
        layouts = bound.layouts
        playout = res.add(vk.vkDestroyPipelineLayout, vk.vkCreatePipelineLayout(dev, vk.VkPipelineLayoutCreateInfo(
            setLayoutCount=len(layouts), pSetLayouts=layouts or None), None))
        targets = [_color_target(res, w, h, layers) for _ in range(ntargets)]
        depth = r.get("depth")
        if depth is not None and layers > 1:
            raise RuntimeError("a depth buffer with a layered target is not supported by the harness")
        samples = r.get("samples", 1)
        stencil = r.get("stencil")
        ds_format = _DEPTH_STENCIL_FORMAT if stencil is not None else _DEPTH_FORMAT if depth is not None else None
        if samples > 1 and ds_format is not None:
            raise RuntimeError("a depth buffer with a multisampled target is not supported by the harness")
        multisampled = [_color_target(res, w, h, layers, samples)[1] for _ in range(ntargets)] if samples > 1 else []
        views = multisampled + [t[1] for t in targets] + ([_depth_target(res, w, h, ds_format)] if ds_format else [])
        rpass = _render_pass(res, ntargets, ds_format, samples)
        fb = res.add(vk.vkDestroyFramebuffer, vk.vkCreateFramebuffer(dev, vk.VkFramebufferCreateInfo(
            renderPass=rpass, attachmentCount=len(views), pAttachments=views, width=w, height=h,
            layers=layers), None))
        pipeline = _graphics_pipeline(res, r, playout, rpass)
        sets = bound.sets
        xfb = None
        if r.get("xfb"):                # a capture buffer for transform feedback (buffer 0)
            if not ctx.xfb:
                raise RuntimeError(f"the device has no {_XFB_EXTENSION}")
            xfb = res.host_buffer(bytes(r["xfb"]), vk.VK_BUFFER_USAGE_TRANSFORM_FEEDBACK_BUFFER_BIT_EXT)

        cmd = vk.vkAllocateCommandBuffers(dev, vk.VkCommandBufferAllocateInfo(
            commandPool=ctx.cmd_pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
        res.add(lambda d, c, _a: vk.vkFreeCommandBuffers(d, ctx.cmd_pool, 1, [c]), cmd)
        vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(
            flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
        bound.record_uploads(cmd)
        clear = vk.VkClearValue(color=vk.VkClearColorValue(float32=list(r["clear"])))
        clears = [clear] * (ntargets * (2 if samples > 1 else 1))
        if ds_format is not None:
            clears.append(vk.VkClearValue(depthStencil=vk.VkClearDepthStencilValue(
                depth=1.0 if depth is None else float(depth), stencil=stencil or 0)))
        vk.vkCmdBeginRenderPass(cmd, vk.VkRenderPassBeginInfo(
            renderPass=rpass, framebuffer=fb,
            renderArea=vk.VkRect2D(offset=vk.VkOffset2D(x=0, y=0), extent=vk.VkExtent2D(width=w, height=h)),
            clearValueCount=len(clears), pClearValues=clears), vk.VK_SUBPASS_CONTENTS_INLINE)
        vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline)
        if sets:
            vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_GRAPHICS, playout, 0,
                                       len(sets), sets, 0, None)
        if vbufs:
            vk.vkCmdBindVertexBuffers(cmd, 0, len(vbufs), vbufs, [0] * len(vbufs))
        if xfb is not None:
            proc = vk.vkGetDeviceProcAddr
            proc(dev, "vkCmdBindTransformFeedbackBuffersEXT")(cmd, 0, 1, [xfb[0]], [0], [r["xfb"]])
            proc(dev, "vkCmdBeginTransformFeedbackEXT")(cmd, 0, 0, None, None)
        if r.get("ms") is not None:     # VK_EXT_mesh_shader: the python wrapper has no extension commands
            draw = ffi.cast("PFN_vkCmdDrawMeshTasksEXT", vk.lib.vkGetDeviceProcAddr(dev, b"vkCmdDrawMeshTasksEXT"))
            draw(cmd, *r["mesh_groups"])
        else:
            vk.vkCmdDraw(cmd, r["vertex_count"], r.get("instance_count", 1), r.get("first_vertex", 0),
                         r.get("first_instance", 0))
        if xfb is not None:
            vk.vkGetDeviceProcAddr(dev, "vkCmdEndTransformFeedbackEXT")(cmd, 0, 0, None, None)
        vk.vkCmdEndRenderPass(cmd)
        region = vk.VkBufferImageCopy(
            bufferOffset=0, bufferRowLength=0, bufferImageHeight=0,
            imageSubresource=vk.VkImageSubresourceLayers(
                aspectMask=vk.VK_IMAGE_ASPECT_COLOR_BIT, mipLevel=0, baseArrayLayer=0, layerCount=layers),
            imageOffset=vk.VkOffset3D(x=0, y=0, z=0), imageExtent=vk.VkExtent3D(width=w, height=h, depth=1))
        for (image, _view), rb in zip(targets, readbacks):
            vk.vkCmdCopyImageToBuffer(cmd, image, vk.VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, rb[0], 1, [region])
        bound.record_readbacks(cmd)
        vk.vkEndCommandBuffer(cmd)
        _submit_and_wait(res, cmd)
        pixels = [bytes(rb[2][: w * h * 4 * layers]) for rb in readbacks]   # layer after layer
        if xfb is not None:
            return pixels, bytes(xfb[2][: r["xfb"]])
        if r.get("full"):
            return pixels, bound.results()
        return pixels[0]
    finally:
        res.close()


def _crash(_ctx, how: str):
    """Test hook: die the way a driver crash would, to exercise the client's recovery path."""
    if how == "segv":
        import ctypes
        ctypes.string_at(0)
    os._exit(3)


_OPS = {
    "compute": lambda ctx, r: run_compute(ctx, r["spirv"], r["entry"], r["buffers"], r["groups"], r["push"],
                                          r.get("spec")),
    "graphics": run_graphics,
    "raytrace": lambda ctx, r: vkraytrace.run(ctx, r, Resources, Descriptors, _submit_and_wait),
    "info": lambda ctx, r: {"device": ctx.props.deviceName, "api": ctx.props.apiVersion,
                            "features": ctx.feature_flags(), "available_extensions": ctx.available},
    "crash": lambda ctx, r: _crash(ctx, r.get("how", "exit")),
}


def _read(stream, n: int) -> bytes:
    data = stream.read(n)
    if len(data) != n:
        raise EOFError
    return data


def main() -> None:
    proto_out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything the driver prints goes to stderr
    proto_in = sys.stdin.buffer
    ctx = None
    while True:
        try:
            (n,) = _HDR.unpack(_read(proto_in, _HDR.size))
            req = pickle.loads(_read(proto_in, n))
        except EOFError:
            return
        try:
            if ctx is None:
                ctx = Context()
            reply = ("ok", _OPS[req["op"]](ctx, req))
        except Exception as exc:  # reported to the client, worker stays usable
            reply = ("err", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
            if isinstance(exc, vk.VkErrorDeviceLost):
                ctx = None  # a lost device cannot be reused; the next request makes a new one
        blob = pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)
        proto_out.write(_HDR.pack(len(blob)) + blob)
        proto_out.flush()


if __name__ == "__main__":
    main()
