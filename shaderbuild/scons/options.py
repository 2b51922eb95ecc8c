"""Compile options as one canonical string construction variable.

`SHADERBUILD_OPTIONS` holds the JSON form of a `CompileOptions`.  It is both
the data the action, the scanner and the emitter read back and (through the
digest in the action's `varlist`) part of the build signature, so changing a
define, the profile or any backend option rebuilds exactly the targets it affects.
"""

from __future__ import annotations

import json
import os

from ..options import BindingShift, CompileOptions

OPTIONS_VAR = "SHADERBUILD_OPTIONS"
OUTPUTS_VAR = "SHADERBUILD_EXTRA_OUTPUTS"
LABEL_VAR = "SHADERBUILD_LABEL"      # names the shader in generated headers
BINARY_VAR = "SHADERBUILD_BINARY"    # the binary's path, for the scanner (not part of the signature)
# The action's varlist: one digest of the options, the extra outputs, the label and the compiler
# version (SCons substitutes each varlist variable ~3 times per target: the four variables cost
# ~0.15 ms per target, the digest ~0.03 ms)
SIGNATURE_VAR = "SHADERBUILD_SIGNATURE"
FIELDS = frozenset(CompileOptions._fields)
# HLSL(...) keyword -> CompileOptions field (friendly names; the rest pass through unchanged)
ALIASES = {"backend": "target", "includes": "include_dirs", "include_path": "include_dirs"}


def encode(options: CompileOptions) -> str:
    """Canonical text: equal options give equal strings (sorted keys and defines)."""
    return json.dumps(options.cache_fields(), sort_keys=True, separators=(",", ":"))


def decode(text: str) -> CompileOptions:
    data = json.loads(text)
    data["defines"] = dict(data["defines"])
    data["binding_shifts"] = [BindingShift(*row) for row in data["binding_shifts"]]
    return CompileOptions(**{k: v for k, v in data.items() if k in FIELDS})


def normalise_defines(defines) -> dict[str, str]:
    """Accept {'A': 1}, ['A=1', 'B'] or 'A=1 B' like the CLI's -D (a bare name means 1)."""
    if defines is None:
        return {}
    if isinstance(defines, dict):
        return {str(k): "1" if v is True else str(v) for k, v in defines.items() if v is not None and v is not False}
    if isinstance(defines, str):
        defines = defines.split()
    out = {}
    for item in defines:
        name, eq, value = str(item).partition("=")
        out[name] = value if eq else "1"
    return out


def from_keywords(env_defaults: dict, keywords: dict, resolve_dir) -> CompileOptions:
    """Merge per-call keywords over environment defaults into CompileOptions.

    `resolve_dir(path) -> str` makes include directories absolute (relative to
    the calling SConscript).  Unknown keywords raise TypeError like a function would.
    """
    values = dict(env_defaults)
    for key, value in keywords.items():
        name = ALIASES.get(key, key)
        if name not in FIELDS:
            raise TypeError(f"HLSL() got an unexpected keyword argument '{key}'")
        values[name] = value
    values["defines"] = normalise_defines(values.get("defines"))
    dirs = values.get("include_dirs") or []
    values["include_dirs"] = [resolve_dir(str(d)) for d in ([dirs] if isinstance(dirs, str) else dirs)]
    shifts = values.get("binding_shifts") or []
    values["binding_shifts"] = [s if isinstance(s, BindingShift) else BindingShift(*s) for s in shifts]
    return CompileOptions(**values)


def absolute(path: str, base: str) -> str:
    return os.path.normpath(path if os.path.isabs(path) else os.path.join(base, path))
