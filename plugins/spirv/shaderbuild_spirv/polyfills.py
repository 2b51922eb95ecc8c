"""The intrinsics this backend has passes/polyfill.py expand instead of lowering them itself (its
Capabilities.polyfills; a module of its own so that registering the plugin imports no lowering code)."""

# ldexp: GLSL's Ldexp takes an integer exponent, HLSL's is a float: x * exp2(e), as DXC emits
POLYFILLED = frozenset({"lit", "dst", "msad4", "D3DCOLORtoUBYTE4", "ldexp"})
