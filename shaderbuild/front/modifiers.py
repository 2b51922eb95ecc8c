"""Which declaration modifiers DXC allows on which kind of declaration, and its words when one is
misplaced (DXC's SemaHLSL.cpp DiagnoseHLSLDecl / err_hlsl_varmodifierna).  One table; sema checks
every declaration against it."""

from __future__ import annotations

from ..diagnostics import CompileError, Diagnostic, SourceLoc, error

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

LOCAL, GLOBAL, PARAMETER, FIELD, FUNCTION, METHOD, TYPEDEF = (
    "local variable", "global variable", "parameter", "field", "function", "method", "typedef")

_INTERPOLATION = frozenset({PARAMETER, FIELD, FUNCTION})
# modifier -> the declaration kinds it may appear on
ALLOWED: dict[str, frozenset[str]] = {
    "extern": frozenset({FUNCTION, GLOBAL}),
    "export": frozenset({FUNCTION}),     # library linkage; a function of another target compiles as usual
    "static": frozenset({LOCAL, GLOBAL, FUNCTION, METHOD, FIELD}),
    "shared": frozenset({GLOBAL}),
    "groupshared": frozenset({GLOBAL, PARAMETER}),
    "uniform": frozenset({GLOBAL, PARAMETER}),
    "nointerpolation": _INTERPOLATION,
    "linear": _INTERPOLATION,
    "centroid": _INTERPOLATION,
    "noperspective": _INTERPOLATION,
    "sample": _INTERPOLATION,
    "point": frozenset({PARAMETER}),
    "line": frozenset({PARAMETER}),
    "lineadj": frozenset({PARAMETER}),
    "triangle": frozenset({PARAMETER}),
    "triangleadj": frozenset({PARAMETER}),
}
USAGES = ("in", "out", "inout")        # parameter usages: "HLSL usage 'in' is only valid on a parameter"
_INTERPOLATING = ("linear", "sample", "noperspective", "centroid")
_INTERPOLATION_MODIFIERS = ("nointerpolation", *_INTERPOLATING)
# pairs DXC refuses together: "'static' and 'uniform' cannot be used together for a global variable"; an
# interpolation modifier beside nointerpolation, uniform or a geometry shader's primitive (DiagnoseHLSLDecl)
EXCLUSIVE = (("static", "uniform"), ("static", "shared"), ("extern", "groupshared"), ("extern", "static"),
             *(("nointerpolation", m) for m in _INTERPOLATING),
             *((m, "uniform") for m in _INTERPOLATION_MODIFIERS),
             *((p, m) for p in ("point", "line", "lineadj", "triangle", "triangleadj") for m in _INTERPOLATION_MODIFIERS))


def check_modifiers(quals: Iterable[str], kind: str, loc: SourceLoc) -> None:
    """Refuse a modifier DXC does not allow on a declaration of `kind` (one of the constants above)."""
    q = set(quals)
    for m in sorted(q):
        allowed = ALLOWED.get(m)
        if allowed is not None and kind not in allowed:
            raise error(f"'{m}' is not a valid modifier for a {kind}", loc)
        if m in USAGES and kind != PARAMETER:
            raise error(f"HLSL usage '{m}' is only valid on a parameter", loc)
    if kind == FIELD and "const" in q and "static" not in q:
        raise error(f"'const' is not a valid modifier for a {kind}", loc)
    for a, b in EXCLUSIVE:
        if a in q and b in q:
            raise error(f"'{a}' and '{b}' cannot be used together for a {kind}", loc)


def report_modifiers(quals: Iterable[str], kind: str, loc: SourceLoc, errors: list[Diagnostic]) -> None:
    """check_modifiers, its error recorded in `errors` rather than raised: a misplaced modifier is ignored,
    so the declaration stays usable and its uses add no error."""
    try:
        check_modifiers(quals, kind, loc)
    except CompileError as e:
        errors.extend(e.diagnostics)


def interpolation_mode(quals: Iterable[str]) -> str | None:
    """The one mode a declaration's (checked) modifiers name, as IOInfo spells it; None: none given.  DXC's
    DxilInterpolationMode: `sample` overrides `centroid`, `noperspective` keeps a centroid / sample beside it,
    `linear` adds nothing (EXCLUSIVE refuses nointerpolation with any of them)."""
    q = set(quals)
    if "nointerpolation" in q:
        return "nointerpolation"
    where = "sample" if "sample" in q else "centroid" if "centroid" in q else None
    if "noperspective" in q:
        return f"noperspective {where}" if where else "noperspective"
    return where or ("linear" if "linear" in q else None)
