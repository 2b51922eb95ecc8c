"""Per-sample contents of a multisampled image (worker only, beside vkworker.py).

Vulkan has no buffer-to-image copy into a multisampled image, so an image asked for with
`per_sample` data is also a storage image, and a small compute shader (GLSL, compiled once per
texel class by glslangValidator: only the harness is under test here) stores every sample of every
texel from the image's data before the work: imageStore with a sample index (the device's
shaderStorageImageMultisample and shaderStorageImageWriteWithoutFormat features).  Data layout:
layer by layer, rows from y = 0, texel by texel, each texel's samples in order, each sample the
format's 32-bit components.
"""

from __future__ import annotations

import os
import struct
import subprocess
import tempfile

import vulkan as vk

_SOURCE = """#version 450
layout(local_size_x = 1, local_size_y = 1, local_size_z = 1) in;
layout(set = 0, binding = 0, std430) readonly buffer Data { uint words[]; };
layout(set = 0, binding = 1) uniform writeonly %(prefix)simage2DMSArray img;
layout(push_constant) uniform Shape { uint width; uint height; uint samples; uint comps; } shape;
void main() {
    uvec3 p = gl_GlobalInvocationID;
    for (uint s = 0u; s < shape.samples; ++s) {
        uint base = (((p.z * shape.height + p.y) * shape.width + p.x) * shape.samples + s) * shape.comps;
        uvec4 v = uvec4(0u);
        for (uint c = 0u; c < shape.comps; ++c)
            v[c] = words[base + c];
        imageStore(img, ivec3(p), int(s), %(convert)s);
    }
}
"""
# texel class -> (GLSL image prefix, conversion of the uvec4 of words)
_CLASSES = {"f": ("", "uintBitsToFloat(v)"), "i": ("i", "ivec4(v)"), "u": ("u", "v")}
_COMPONENTS = {"r32f": ("f", 1), "rg32f": ("f", 2), "rgba32f": ("f", 4), "r32ui": ("u", 1), "rg32ui": ("u", 2),
               "rgba32ui": ("u", 4), "r32i": ("i", 1), "rgba32i": ("i", 4)}
_SPIRV: dict[str, bytes] = {}


def supported(fmt: str) -> bool:
    return fmt in _COMPONENTS


def _shader(cls: str) -> bytes:
    if cls not in _SPIRV:
        prefix, convert = _CLASSES[cls]
        with tempfile.TemporaryDirectory(prefix="sbmsfill-") as tmp:
            src, out = os.path.join(tmp, "fill.comp"), os.path.join(tmp, "fill.spv")
            with open(src, "w") as f:
                f.write(_SOURCE % {"prefix": prefix, "convert": convert})
            subprocess.run(["glslangValidator", "--quiet", "-V", src, "-o", out], check=True, capture_output=True)
            with open(out, "rb") as f:
                _SPIRV[cls] = f.read()
    return _SPIRV[cls]


def prepare(res, d: dict, image, fmt: int, aspect: int, data_buffer):
    """Create what fills image (created with the storage usage) from `data_buffer` (a storage buffer holding
    d['data']); returns the command recorder: cmd -> None, to run with the image in GENERAL layout."""
    dev = res.ctx.device
    cls, comps = _COMPONENTS[d["format"]]
    width, height, layers = d["width"], d.get("height", 1), d.get("layers", 1)
    view = res.add(vk.vkDestroyImageView, vk.vkCreateImageView(dev, vk.VkImageViewCreateInfo(
        image=image, viewType=vk.VK_IMAGE_VIEW_TYPE_2D_ARRAY, format=fmt,
        subresourceRange=vk.VkImageSubresourceRange(aspectMask=aspect, baseMipLevel=0, levelCount=1,
                                                    baseArrayLayer=0, layerCount=layers)), None))
    all_stages = vk.VK_SHADER_STAGE_COMPUTE_BIT
    layout = res.add(vk.vkDestroyDescriptorSetLayout, vk.vkCreateDescriptorSetLayout(
        dev, vk.VkDescriptorSetLayoutCreateInfo(bindingCount=2, pBindings=[
            vk.VkDescriptorSetLayoutBinding(binding=0, descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                            descriptorCount=1, stageFlags=all_stages),
            vk.VkDescriptorSetLayoutBinding(binding=1, descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                            descriptorCount=1, stageFlags=all_stages)]), None))
    pc = vk.VkPushConstantRange(stageFlags=all_stages, offset=0, size=16)
    playout = res.add(vk.vkDestroyPipelineLayout, vk.vkCreatePipelineLayout(dev, vk.VkPipelineLayoutCreateInfo(
        setLayoutCount=1, pSetLayouts=[layout], pushConstantRangeCount=1, pPushConstantRanges=[pc]), None))
    code = _shader(cls)
    module = res.add(vk.vkDestroyShaderModule, vk.vkCreateShaderModule(dev, vk.VkShaderModuleCreateInfo(
        codeSize=len(code), pCode=code), None))
    name = vk.ffi.new("char[]", b"main")
    stage = vk.VkPipelineShaderStageCreateInfo(stage=vk.VK_SHADER_STAGE_COMPUTE_BIT, module=module, pName=name)
    pipeline = vk.vkCreateComputePipelines(dev, vk.VK_NULL_HANDLE, 1, [vk.VkComputePipelineCreateInfo(
        stage=stage, layout=playout)], None)[0]
    res.add(vk.vkDestroyPipeline, pipeline)
    pool = res.add(vk.vkDestroyDescriptorPool, vk.vkCreateDescriptorPool(dev, vk.VkDescriptorPoolCreateInfo(
        maxSets=1, poolSizeCount=2, pPoolSizes=[
            vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount=1),
            vk.VkDescriptorPoolSize(type=vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, descriptorCount=1)]), None))
    dset = vk.vkAllocateDescriptorSets(dev, vk.VkDescriptorSetAllocateInfo(
        descriptorPool=pool, descriptorSetCount=1, pSetLayouts=[layout]))[0]
    vk.vkUpdateDescriptorSets(dev, 2, [
        vk.VkWriteDescriptorSet(dstSet=dset, dstBinding=0, dstArrayElement=0, descriptorCount=1,
                                descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                pBufferInfo=[vk.VkDescriptorBufferInfo(buffer=data_buffer, offset=0,
                                                                       range=max(len(d["data"]), 4))]),
        vk.VkWriteDescriptorSet(dstSet=dset, dstBinding=1, dstArrayElement=0, descriptorCount=1,
                                descriptorType=vk.VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                                pImageInfo=[vk.VkDescriptorImageInfo(imageView=view,
                                                                     imageLayout=vk.VK_IMAGE_LAYOUT_GENERAL)])],
        0, None)
    shape = vk.ffi.new("char[]", struct.pack("<4I", width, height, d["samples"], comps))

    def record(cmd) -> None:
        vk.vkCmdBindPipeline(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, pipeline)
        vk.vkCmdBindDescriptorSets(cmd, vk.VK_PIPELINE_BIND_POINT_COMPUTE, playout, 0, 1, [dset], 0, None)
        vk.vkCmdPushConstants(cmd, playout, vk.VK_SHADER_STAGE_COMPUTE_BIT, 0, 16, shape)
        vk.vkCmdDispatch(cmd, width, height, layers)

    return record
