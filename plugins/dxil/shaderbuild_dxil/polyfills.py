"""The intrinsics this backend has passes/polyfill.py expand instead of lowering them itself (its
Capabilities.polyfills; a module of its own so that registering the plugin imports no lowering code):
arithmetic DXIL has no single operation for."""

POLYFILLED = frozenset({
    "lit", "dst", "msad4", "D3DCOLORtoUBYTE4", "smoothstep", "step", "reflect", "refract", "faceforward",
    "determinant", "degrees", "radians", "rcp", "exp", "log", "log10", "atan2", "ldexp", "fwidth", "distance",
    "clamp", "sign", "all", "any", "and", "or", "transpose",
})
