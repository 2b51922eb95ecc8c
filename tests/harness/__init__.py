"""Test harness: checks compiler output with tools we did not write.

vulkan_runner  -- execute SPIR-V on lavapipe in a crash-isolated worker process
tools          -- spirv-val / spirv-dis / spirv-cross / glslangValidator wrappers
dxil_tools     -- DXBC container + DXIL bitcode checks with the llvm-19 tools, then dxil_consumer
dxil_consumer  -- dxil-spirv (vkd3d-proton's DXIL front end) converts our DXIL; spirv-val checks the result
dxil_exec      -- run DXIL compute shaders on the CPU (llvm-dis -> dx.op shim + C runtime -> lli-19)
"""
