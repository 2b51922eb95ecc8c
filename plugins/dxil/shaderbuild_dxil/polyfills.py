"""The intrinsics this backend has passes/polyfill.py expand instead of lowering them itself (its
Capabilities.polyfills; a module of its own so that registering the plugin imports no lowering code):
arithmetic DXIL has no single operation for."""

POLYFILLED = frozenset({
    "lit", "dst", "msad4", "D3DCOLORtoUBYTE4", "smoothstep", "step", "reflect", "refract", "faceforward",
    "determinant", "degrees", "radians", "rcp", "exp", "log", "log10", "atan2", "ldexp", "fwidth", "distance",
    "clamp", "sign", "all", "any", "and", "or", "transpose",
    # SM 6.4 / 6.6 packed bytes: shifts, masks and products (DXC has dot4AddPacked / pack / unpack operations)
    "dot4add_u8packed", "dot4add_i8packed", "dot2add", "pack_u8", "pack_s8", "pack_clamp_u8", "pack_clamp_s8",
    "unpack_u8u32", "unpack_s8s32", "unpack_u8u16", "unpack_s8s16",
    "QuadAny", "QuadAll",       # three quad reads (DXC: QuadVote, SM 6.7)
})
