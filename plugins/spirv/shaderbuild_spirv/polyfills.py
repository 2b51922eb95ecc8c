"""The intrinsics this backend has passes/polyfill.py expand instead of lowering them itself (its
Capabilities.polyfills; a module of its own so that registering the plugin imports no lowering code)."""

# ldexp: GLSL's Ldexp takes an integer exponent, HLSL's is a float: x * exp2(e), as DXC emits
# atan2: the quadrant expansion DXC emits for D3D (GLSL's Atan2 differs at signed zeros: atan2(-0, -1) is
# -pi there, +pi on D3D), so both targets give D3D's results (docs/CONFORMANCE.md)
POLYFILLED = frozenset({"lit", "dst", "msad4", "D3DCOLORtoUBYTE4", "ldexp", "atan2",
                        # packed bytes (SM 6.4 / 6.6): shifts, masks and products, as DXC's SPIR-V
                        "dot4add_u8packed", "dot4add_i8packed", "dot2add", "pack_u8", "pack_s8", "pack_clamp_u8",
                        "pack_clamp_s8", "unpack_u8u32", "unpack_s8s32", "unpack_u8u16", "unpack_s8s16",
                        # quad votes by three quad reads, as DXC's SPIR-V without SPV_KHR_quad_control
                        "QuadAny", "QuadAll",
                        # SM 6.5 partitioned wave operations: loops of portable subgroup operations (DXC's
                        # SPIR-V needs SPV_NV_shader_subgroup_partitioned, which lavapipe lacks)
                        "WaveMatch", "WaveMultiPrefixSum", "WaveMultiPrefixProduct", "WaveMultiPrefixBitAnd",
                        "WaveMultiPrefixBitOr", "WaveMultiPrefixBitXor", "WaveMultiPrefixCountBits"})
