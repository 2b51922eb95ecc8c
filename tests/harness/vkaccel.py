"""Worker side of the acceleration-structure builder: a scene (see accel.py for its shape) becomes
bottom-level structures and one top-level structure on the device, for ray queries and ray-tracing
pipelines.  Imported only by vkworker.py, inside the worker process (it needs the Vulkan device);
standalone like the worker: imports nothing from the harness.

The python `vulkan` package has no wrappers for VK_KHR_acceleration_structure's functions, so they
are called through their raw pointers (vkGetDeviceProcAddr) with cffi structs built here."""

from __future__ import annotations

import struct

import vulkan as vk

ffi = vk.ffi
# the `vulkan` package lacks these two core 1.2 names (its SHADER_DEVICE_ADDRESS_BIT_KHR is None)
_ADDR_USAGE = 0x20000          # VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
_DEVICE_ADDRESS_ALLOC = 0x2    # VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT
_INDEX_TYPE_NONE = 1000165000  # VK_INDEX_TYPE_NONE_KHR: the package's value (1000150000) is wrong
_INPUT_USAGE = vk.VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_BIT_KHR | _ADDR_USAGE
_HOST_MEM = vk.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | vk.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
EXTENSIONS = ("VK_KHR_acceleration_structure", "VK_KHR_ray_query")


def _proc(dev, name: str):
    """The device's entry point `name`, cast to its PFN type."""
    fn = vk.lib.vkGetDeviceProcAddr(dev, name.encode())
    if fn == ffi.NULL:
        raise RuntimeError(f"the device has no {name} (is {EXTENSIONS[0]} enabled?)")
    return ffi.cast("PFN_" + name, fn)


class _Builder:
    """Buffers with device addresses, and the structures built in them; every object is registered
    with the dispatch's Resources so that it is destroyed after the work."""

    def __init__(self, res) -> None:
        self.res = res
        self.dev = res.ctx.device
        self.create = _proc(self.dev, "vkCreateAccelerationStructureKHR")
        self.destroy = _proc(self.dev, "vkDestroyAccelerationStructureKHR")
        self.sizes = _proc(self.dev, "vkGetAccelerationStructureBuildSizesKHR")
        self.build = _proc(self.dev, "vkCmdBuildAccelerationStructuresKHR")
        self.address_of = _proc(self.dev, "vkGetAccelerationStructureDeviceAddressKHR")
        self.keep: list = []        # cffi objects referenced by recorded commands

    def buffer(self, size: int, usage: int, data: bytes = b""):
        """A host-visible buffer with a device address, holding `data`; returns (buffer, address)."""
        dev = self.dev
        size = max(size, len(data), 16)
        buf = self.res.add(vk.vkDestroyBuffer, vk.vkCreateBuffer(dev, vk.VkBufferCreateInfo(
            size=size, usage=usage | _ADDR_USAGE, sharingMode=vk.VK_SHARING_MODE_EXCLUSIVE), None))
        req = vk.vkGetBufferMemoryRequirements(dev, buf)
        flags = ffi.new("VkMemoryAllocateFlagsInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
            "flags": _DEVICE_ADDRESS_ALLOC})
        info = ffi.new("VkMemoryAllocateInfo*", {
            "sType": vk.VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, "pNext": flags, "allocationSize": req.size,
            "memoryTypeIndex": self.res.ctx.memory_type(req.memoryTypeBits, _HOST_MEM)})
        mem = self.res.add(vk.vkFreeMemory, vk.vkAllocateMemory(dev, info[0], None))
        vk.vkBindBufferMemory(dev, buf, mem, 0)
        if data:
            mapping = vk.vkMapMemory(dev, mem, 0, size, 0)
            mapping[:len(data)] = data
            vk.vkUnmapMemory(dev, mem)
        addr = vk.lib.vkGetBufferDeviceAddress(dev, ffi.new("VkBufferDeviceAddressInfo*", {   # (its wrapper is broken)
            "sType": vk.VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO, "buffer": buf}))
        return buf, addr

    def structure(self, cmd, level: int, geometries: list, counts: list[int]):
        """Record the build of one structure of `level` from cffi geometries with `counts` primitives
        each; returns (handle, device address)."""
        n = len(geometries)
        geoms = ffi.new("VkAccelerationStructureGeometryKHR[]", n)
        for i, g in enumerate(geometries):
            geoms[i] = g[0]
        info = ffi.new("VkAccelerationStructureBuildGeometryInfoKHR*", {
            "sType": vk.VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_GEOMETRY_INFO_KHR, "type": level,
            "flags": vk.VK_BUILD_ACCELERATION_STRUCTURE_PREFER_FAST_TRACE_BIT_KHR,
            "mode": vk.VK_BUILD_ACCELERATION_STRUCTURE_MODE_BUILD_KHR, "geometryCount": n, "pGeometries": geoms})
        sizes = ffi.new("VkAccelerationStructureBuildSizesInfoKHR*", {
            "sType": vk.VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_BUILD_SIZES_INFO_KHR})
        self.sizes(self.dev, vk.VK_ACCELERATION_STRUCTURE_BUILD_TYPE_DEVICE_KHR, info,
                   ffi.new("uint32_t[]", counts), sizes)
        storage, _addr = self.buffer(sizes.accelerationStructureSize,
                                     vk.VK_BUFFER_USAGE_ACCELERATION_STRUCTURE_STORAGE_BIT_KHR)
        create = ffi.new("VkAccelerationStructureCreateInfoKHR*", {
            "sType": vk.VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_CREATE_INFO_KHR, "buffer": storage,
            "size": sizes.accelerationStructureSize, "type": level})
        handle_p = ffi.new("VkAccelerationStructureKHR*")
        if self.create(self.dev, create, ffi.NULL, handle_p) != vk.VK_SUCCESS:
            raise RuntimeError("vkCreateAccelerationStructureKHR failed")
        handle = handle_p[0]
        self.res.add(lambda d, h, _a: self.destroy(d, h, ffi.NULL), handle)
        _scratch, scratch_addr = self.buffer(sizes.buildScratchSize, vk.VK_BUFFER_USAGE_STORAGE_BUFFER_BIT)
        info.dstAccelerationStructure = handle
        info.scratchData.deviceAddress = scratch_addr
        ranges = ffi.new("VkAccelerationStructureBuildRangeInfoKHR[]", [
            {"primitiveCount": c, "primitiveOffset": 0, "firstVertex": 0, "transformOffset": 0} for c in counts])
        range_ptrs = ffi.new("VkAccelerationStructureBuildRangeInfoKHR*[]", [ranges])
        self.build(cmd, 1, info, range_ptrs)
        self.keep += [geometries, geoms, info, ranges, range_ptrs]
        address = self.address_of(self.dev, ffi.new("VkAccelerationStructureDeviceAddressInfoKHR*", {
            "sType": vk.VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_DEVICE_ADDRESS_INFO_KHR,
            "accelerationStructure": handle}))
        return handle, address

    def geometry(self, g: dict):
        """One cffi VkAccelerationStructureGeometryKHR (in a 1-element array) for a geometry dict."""
        flags = vk.VK_GEOMETRY_OPAQUE_BIT_KHR if g["opaque"] else 0
        geom = ffi.new("VkAccelerationStructureGeometryKHR[1]")
        geom[0].sType = vk.VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR
        geom[0].flags = flags
        if g["kind"] == "triangles":
            floats = [c for v in g["vertices"] for c in v]
            _buf, addr = self.buffer(4 * len(floats), _INPUT_USAGE, struct.pack(f"<{len(floats)}f", *floats))
            geom[0].geometryType = vk.VK_GEOMETRY_TYPE_TRIANGLES_KHR
            tri = geom[0].geometry.triangles
            tri.sType = vk.VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_TRIANGLES_DATA_KHR
            tri.vertexFormat = vk.VK_FORMAT_R32G32B32_SFLOAT
            tri.vertexData.deviceAddress = addr
            tri.vertexStride = 12
            tri.maxVertex = len(g["vertices"]) - 1
            tri.indexType = _INDEX_TYPE_NONE
            return geom, len(g["vertices"]) // 3
        floats = [c for lo, hi in g["boxes"] for c in (*lo, *hi)]
        _buf, addr = self.buffer(4 * len(floats), _INPUT_USAGE, struct.pack(f"<{len(floats)}f", *floats))
        geom[0].geometryType = vk.VK_GEOMETRY_TYPE_AABBS_KHR
        aabbs = geom[0].geometry.aabbs
        aabbs.sType = vk.VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_AABBS_DATA_KHR
        aabbs.data.deviceAddress = addr
        aabbs.stride = 24
        return geom, len(g["boxes"])


def _instance_bytes(inst: dict, blas_address: int) -> bytes:
    """One VkAccelerationStructureInstanceKHR (64 bytes; its bit fields packed by hand)."""
    return struct.pack("<12fIIQ", *inst["transform"], (inst["instance_id"] & 0xFFFFFF) | (inst["mask"] << 24),
                       (inst["sbt_offset"] & 0xFFFFFF) | (inst["flags"] << 24), blas_address)


def _build_barrier(cmd) -> None:
    barrier = vk.VkMemoryBarrier(
        srcAccessMask=vk.VK_ACCESS_ACCELERATION_STRUCTURE_WRITE_BIT_KHR,
        dstAccessMask=vk.VK_ACCESS_ACCELERATION_STRUCTURE_READ_BIT_KHR)
    stage = vk.VK_PIPELINE_STAGE_ACCELERATION_STRUCTURE_BUILD_BIT_KHR
    vk.vkCmdPipelineBarrier(cmd, stage, stage | vk.VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, [barrier],
                            0, None, 0, None)


def build_scene(res, scene: dict):
    """Build `scene`'s bottom-level structures, then its top-level structure over its instances, on
    the device (one submission, waited for); returns the top-level handle."""
    dev = res.ctx.device
    pool = res.ctx.cmd_pool
    cmd = vk.vkAllocateCommandBuffers(dev, vk.VkCommandBufferAllocateInfo(
        commandPool=pool, level=vk.VK_COMMAND_BUFFER_LEVEL_PRIMARY, commandBufferCount=1))[0]
    res.add(lambda d, c, _a: vk.vkFreeCommandBuffers(d, pool, 1, [c]), cmd)
    vk.vkBeginCommandBuffer(cmd, vk.VkCommandBufferBeginInfo(flags=vk.VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT))
    b = _Builder(res)
    blas_addresses = []
    for blas in scene["blases"]:
        parts = [b.geometry(g) for g in blas]
        _handle, addr = b.structure(cmd, vk.VK_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL_KHR,
                                    [p[0] for p in parts], [p[1] for p in parts])
        blas_addresses.append(addr)
    _build_barrier(cmd)
    data = b"".join(_instance_bytes(i, blas_addresses[i["blas"]]) for i in scene["instances"])
    _buf, addr = b.buffer(len(data), _INPUT_USAGE, data)
    geom = ffi.new("VkAccelerationStructureGeometryKHR[1]")
    geom[0].sType = vk.VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_KHR
    geom[0].geometryType = vk.VK_GEOMETRY_TYPE_INSTANCES_KHR
    inst = geom[0].geometry.instances
    inst.sType = vk.VK_STRUCTURE_TYPE_ACCELERATION_STRUCTURE_GEOMETRY_INSTANCES_DATA_KHR
    inst.arrayOfPointers = vk.VK_FALSE
    inst.data.deviceAddress = addr
    handle, _addr = b.structure(cmd, vk.VK_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL_KHR, [geom],
                                [len(scene["instances"])])
    _build_barrier(cmd)
    vk.vkEndCommandBuffer(cmd)
    fence = res.add(vk.vkDestroyFence, vk.vkCreateFence(dev, vk.VkFenceCreateInfo(), None))
    vk.vkQueueSubmit(res.ctx.queue, 1, [vk.VkSubmitInfo(commandBufferCount=1, pCommandBuffers=[cmd])], fence)
    vk.vkWaitForFences(dev, 1, [fence], vk.VK_TRUE, 30_000_000_000)
    return handle


def descriptor_write(dst_set, binding: int, index: int, handle, keep: list):
    """The VkWriteDescriptorSet binding the top-level structure `handle` (its pNext kept in `keep`)."""
    handles = ffi.new("VkAccelerationStructureKHR[1]", [handle])
    ext = ffi.new("VkWriteDescriptorSetAccelerationStructureKHR*", {
        "sType": vk.VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET_ACCELERATION_STRUCTURE_KHR,
        "accelerationStructureCount": 1, "pAccelerationStructures": handles})
    keep += [handles, ext]
    return vk.VkWriteDescriptorSet(pNext=ext, dstSet=dst_set, dstBinding=binding, dstArrayElement=index,
                                   descriptorCount=1,
                                   descriptorType=vk.VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR)
