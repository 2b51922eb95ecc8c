"""Worker side of ray-tracing pipelines (VK_KHR_ray_tracing_pipeline): the shaders of one SPIR-V
library module become stages and shader groups (ray generation, miss, hit groups, callable), the
group handles a shader binding table laid out with the device's handle size and alignments, and
vkCmdTraceRaysKHR runs it.  Imported only by vkworker.py, inside the worker process; like vkaccel.py
it imports nothing from the harness.

The python `vulkan` package has no wrappers for the extension's functions: they are called through
their raw pointers (vkaccel._proc) with cffi structs built here."""

from __future__ import annotations

import vkaccel
import vulkan as vk

ffi = vk.ffi
_UNUSED = 0xFFFFFFFF                 # VK_SHADER_UNUSED_KHR
_SBT_USAGE = 0x400                   # VK_BUFFER_USAGE_SHADER_BINDING_TABLE_BIT_KHR
_BIND_POINT = 1000165000             # VK_PIPELINE_BIND_POINT_RAY_TRACING_KHR
_STAGE_BITS = {"raygeneration": 0x100, "anyhit": 0x200, "closesthit": 0x400, "miss": 0x800,
               "intersection": 0x1000, "callable": 0x2000}
_GENERAL, _TRIANGLES, _PROCEDURAL = 0, 1, 2    # VkRayTracingShaderGroupTypeKHR


def _align(n: int, a: int) -> int:
    return (n + a - 1) // a * a


def properties(ctx) -> dict:
    """The device's VkPhysicalDeviceRayTracingPipelinePropertiesKHR fields the table needs."""
    rt = ffi.new("VkPhysicalDeviceRayTracingPipelinePropertiesKHR*", {
        "sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_TRACING_PIPELINE_PROPERTIES_KHR})
    props = ffi.new("VkPhysicalDeviceProperties2*", {
        "sType": vk.VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, "pNext": rt})
    vk.lib.vkGetPhysicalDeviceProperties2(ctx.pd, props)
    return {"handle_size": rt.shaderGroupHandleSize, "handle_alignment": rt.shaderGroupHandleAlignment,
            "base_alignment": rt.shaderGroupBaseAlignment, "max_recursion": rt.maxRayRecursionDepth}


class _Stages:
    """One VkPipelineShaderStageCreateInfo per (entry point, kind), in first-use order."""

    def __init__(self, module, own: dict | None = None) -> None:
        self.module = module
        self.own = own or {}       # entry name -> a module of its own whose entry point is "main" (dxil-spirv's)
        self.index: dict[tuple[str, str], int] = {}
        self.names: list = []
        self.infos: list = []

    def __call__(self, name: str | None, kind: str) -> int:
        if not name:
            return _UNUSED
        key = (name, kind)
        if key not in self.index:
            self.index[key] = len(self.infos)
            module = self.own.get(name, self.module)
            cname = ffi.new("char[]", b"main" if name in self.own else name.encode())   # outlives the create call
            self.names.append(cname)
            self.infos.append({"sType": vk.VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                               "stage": _STAGE_BITS[kind], "module": module, "pName": cname})
        return self.index[key]


def _group(kind: int, general: int = _UNUSED, closest: int = _UNUSED, any_hit: int = _UNUSED,
           intersection: int = _UNUSED) -> dict:
    return {"sType": vk.VK_STRUCTURE_TYPE_RAY_TRACING_SHADER_GROUP_CREATE_INFO_KHR, "type": kind,
            "generalShader": general, "closestHitShader": closest, "anyHitShader": any_hit,
            "intersectionShader": intersection}


def run(ctx, r: dict, resources_cls, descriptors_cls, submit_and_wait) -> dict:
    """r: spirv, raygen, miss [names], hit_groups [{closest, any, intersection}] (procedural when it
    has an intersection shader), callables [names], size (w, h) or (w, h, d), buffers, max_recursion.  Returns
    {"buffers": final descriptor contents, "sbt": the table's layout} (the layout lets a test check
    that the strides and offsets follow the device's properties)."""
    dev = ctx.device
    res = resources_cls(ctx)
    try:
        bound = descriptors_cls(res, r["buffers"])
        layouts = bound.layouts
        playout = res.add(vk.vkDestroyPipelineLayout, vk.vkCreatePipelineLayout(dev, vk.VkPipelineLayoutCreateInfo(
            setLayoutCount=len(layouts), pSetLayouts=layouts or None), None))
        def shader_module(spirv: bytes):
            return res.add(vk.vkDestroyShaderModule, vk.vkCreateShaderModule(dev, vk.VkShaderModuleCreateInfo(
                codeSize=len(spirv), pCode=spirv), None))
        # one library module, or (r["modules"]: from DXIL through dxil-spirv) one module per shader
        module = shader_module(r["spirv"]) if r["spirv"] else None
        stage = _Stages(module, {name: shader_module(code) for name, code in r.get("modules", {}).items()})
        groups = [_group(_GENERAL, general=stage(r["raygen"], "raygeneration"))]
        groups += [_group(_GENERAL, general=stage(m, "miss")) for m in r["miss"]]
        for h in r["hit_groups"]:
            procedural = bool(h.get("intersection"))
            groups.append(_group(_PROCEDURAL if procedural else _TRIANGLES, closest=stage(h.get("closest"), "closesthit"),
                                 any_hit=stage(h.get("any"), "anyhit"),
                                 intersection=stage(h.get("intersection"), "intersection")))
        groups += [_group(_GENERAL, general=stage(c, "callable")) for c in r["callables"]]
        stages_c = ffi.new("VkPipelineShaderStageCreateInfo[]", stage.infos)
        groups_c = ffi.new("VkRayTracingShaderGroupCreateInfoKHR[]", groups)
        info = ffi.new("VkRayTracingPipelineCreateInfoKHR*", {
            "sType": vk.VK_STRUCTURE_TYPE_RAY_TRACING_PIPELINE_CREATE_INFO_KHR,
            "stageCount": len(stage.infos), "pStages": stages_c, "groupCount": len(groups), "pGroups": groups_c,
            "maxPipelineRayRecursionDepth": int(r.get("max_recursion", 1)), "layout": playout})
        pipeline_p = ffi.new("VkPipeline*")
        create = vkaccel._proc(dev, "vkCreateRayTracingPipelinesKHR")
        result = create(dev, ffi.NULL, ffi.NULL, 1, info, ffi.NULL, pipeline_p)
        if result != vk.VK_SUCCESS:
            raise RuntimeError(f"vkCreateRayTracingPipelinesKHR failed ({result})")
        pipeline = pipeline_p[0]
        res.add(vk.vkDestroyPipeline, pipeline)

        p = properties(ctx)
        size = p["handle_size"]
        handles = ffi.new("char[]", size * len(groups))
        get = vkaccel._proc(dev, "vkGetRayTracingShaderGroupHandlesKHR")
        if get(dev, pipeline, 0, len(groups), size * len(groups), handles) != vk.VK_SUCCESS:
            raise RuntimeError("vkGetRayTracingShaderGroupHandlesKHR failed")
        blob = ffi.buffer(handles)[:]
        # regions: raygen (its size equals its stride), miss, hit, callable; each starts at a multiple of
        # shaderGroupBaseAlignment, records are handle-sized and shaderGroupHandleAlignment apart
        stride = _align(size, p["handle_alignment"])
        counts = [1, len(r["miss"]), len(r["hit_groups"]), len(r["callables"])]
        layout, table, first = [], b"", 0
        for i, n in enumerate(counts):
            region_stride = _align(stride, p["base_alignment"]) if i == 0 else stride
            offset = _align(len(table), p["base_alignment"])
            table = table.ljust(offset, b"\0")
            for g in range(first, first + n):
                table += blob[g * size:(g + 1) * size].ljust(region_stride, b"\0")
            layout.append((offset, region_stride, region_stride * n))
            first += n
        _buf, address = vkaccel._Builder(res).buffer(len(table), _SBT_USAGE, table)
        regions = [ffi.new("VkStridedDeviceAddressRegionKHR*", {
            "deviceAddress": address + off if n else 0, "stride": st if n else 0, "size": sz})
            for (off, st, sz), n in zip(layout, counts)]

        cmd = vk.vkAllocateCommandBuffers(dev, vk.VkCommandBufferAllocateInfo(
            commandPool=ctx.cmd_pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
        res.add(lambda d, c, _a: vk.vkFreeCommandBuffers(d, ctx.cmd_pool, 1, [c]), cmd)
        vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
        bound.record_uploads(cmd)
        vk.vkCmdBindPipeline(cmd, _BIND_POINT, pipeline)
        sets = bound.sets
        if sets:
            vk.vkCmdBindDescriptorSets(cmd, _BIND_POINT, playout, 0, len(sets), sets, 0, None)
        trace = vkaccel._proc(dev, "vkCmdTraceRaysKHR")
        width, height, depth = (*r["size"], 1)[:3]
        trace(cmd, *regions, width, height, depth)
        bound.record_readbacks(cmd)
        vk.vkEndCommandBuffer(cmd)
        submit_and_wait(res, cmd)
        return {"buffers": bound.results(), "sbt": {"properties": p, "regions": layout}}
    finally:
        res.close()
