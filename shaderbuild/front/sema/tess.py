"""Hull and domain shader attributes: [domain], [partitioning], [outputtopology],
[outputcontrolpoints], [patchconstantfunc], [maxtessfactor] -> ir.TessInfo.

Each rule's diagnostic names the attribute and points at it (or at the entry when a
required one is missing)."""

from __future__ import annotations

from ... import ir
from ...diagnostics import error
from .. import ast
from .scope import FuncInfo, FuncSymbol
from .typeresolve import PATCH_TYPES

DOMAINS = ("tri", "quad", "isoline")
PARTITIONINGS = ("integer", "fractional_even", "fractional_odd", "pow2")
OUTPUT_TOPOLOGIES = ("point", "line", "triangle_cw", "triangle_ccw")
MAX_CONTROL_POINTS = 32
MAX_TESS_FACTOR = 64.0


def _attr(d: ast.FuncDecl, name: str) -> ast.Attribute | None:
    return next((a for a in d.attributes if a.name == name), None)


def _string(a: ast.Attribute, allowed: tuple[str, ...]) -> str:
    arg = a.args[0]
    if not isinstance(arg, ast.StringLit):
        raise error(f"[{a.name}] takes a string: one of {', '.join(repr(x) for x in allowed)}", arg.loc)
    if arg.value not in allowed:
        raise error(f"invalid [{a.name}(\"{arg.value}\")]: expected one of {', '.join(repr(x) for x in allowed)}",
                    arg.loc)
    return arg.value


def _number(a: ast.Attribute) -> float:
    arg = a.args[0]
    neg = isinstance(arg, ast.UnaryOp) and arg.op == "-"
    if isinstance(arg, ast.UnaryOp) and arg.op in "+-":
        arg = arg.operand
    if not isinstance(arg, (ast.FloatLit, ast.IntLit)):
        raise error(f"[{a.name}] takes a numeric literal", a.args[0].loc)
    return -float(arg.value) if neg else float(arg.value)


def _required(d: ast.FuncDecl, name: str, what: str) -> ast.Attribute:
    a = _attr(d, name)
    if a is None:
        raise error(f"hull shader entry point '{d.name}' requires the [{name}(...)] attribute ({what})", d.loc)
    return a


def find_patch_constant_function(an, entry: FuncInfo) -> FuncInfo:
    """The function a hull entry's [patchconstantfunc("Name")] names (it must be defined)."""
    d = entry.decl
    a = _required(d, "patchconstantfunc", "the function that computes the tessellation factors")
    arg = a.args[0]
    if not isinstance(arg, ast.StringLit):
        raise error("[patchconstantfunc] takes the function's name as a string", arg.loc)
    sym = an.scope.lookup(arg.value)
    defined = [f for f in sym.overloads if f.defined] if isinstance(sym, FuncSymbol) else []
    if not defined:
        raise error(f"patch-constant function '{arg.value}' named by [patchconstantfunc] is not defined", arg.loc)
    if len(defined) > 1:
        raise error(f"patch-constant function '{arg.value}' named by [patchconstantfunc] is overloaded", arg.loc)
    return defined[0]


def _patch_sizes(info: FuncInfo, kind: str) -> list[tuple[int, ast.VarDecl]]:
    out = []
    for p, t in zip(info.decl.params, info.param_types):
        if p.type.name == kind and isinstance(t, ir.Array) and t.size is not None:
            out.append((t.size, p))
    return out


def _output_patch_params(info: FuncInfo) -> list[ir.Variable]:
    return [ip.var for p, ip in zip(info.decl.params, info.ir_func.params) if p.type.name == "OutputPatch"]


def tess_info(an, info: FuncInfo, patch_constant: FuncInfo | None) -> ir.TessInfo:
    """Read and check a hull or domain entry's tessellation attributes."""
    d = info.decl
    stage = an.profile.stage
    dom = _attr(d, "domain")
    if dom is None:
        raise error(f"{stage} shader entry point '{d.name}' requires the [domain(\"tri\"|\"quad\"|\"isoline\")] "
                    f"attribute", d.loc)
    tess = ir.TessInfo(_string(dom, DOMAINS))
    if (a := _attr(d, "maxtessfactor")) is not None:
        v = _number(a)
        if not 1.0 <= v <= MAX_TESS_FACTOR:
            raise error(f"[maxtessfactor] must be between 1.0 and {MAX_TESS_FACTOR:g}, not {v:g}", a.args[0].loc)
        tess.max_tess_factor = v
    for p in info.decl.params:
        if p.type.name in PATCH_TYPES and (stage, p.type.name) not in (("hull", "InputPatch"),
                                                                       ("domain", "OutputPatch")):
            raise error(f"'{p.type.name}' is not a valid {stage} shader entry parameter "
                        f"(hull shaders take an InputPatch, domain shaders an OutputPatch)", p.loc)
    tess.output_patch_params = _output_patch_params(info)
    if stage == "domain":
        sizes = _patch_sizes(info, "OutputPatch")
        tess.input_control_points = sizes[0][0] if sizes else None
        return tess
    tess.partitioning = _string(_required(d, "partitioning", "how the tessellator splits edges"), PARTITIONINGS)
    topo_attr = _required(d, "outputtopology", "the primitives the tessellator makes")
    topo = _string(topo_attr, OUTPUT_TOPOLOGIES)
    if topo == "line" and tess.domain != "isoline" or topo.startswith("triangle") and tess.domain == "isoline":
        raise error(f"[outputtopology(\"{topo}\")] does not fit [domain(\"{tess.domain}\")]", topo_attr.loc)
    tess.output_topology = topo
    a = _required(d, "outputcontrolpoints", "the number of control points the hull shader writes")
    n = an.const_int(a.args[0])
    if not 1 <= n <= MAX_CONTROL_POINTS:      # DXC: "outside the valid range of [1..32]"
        raise error(f"[outputcontrolpoints] must be between 1 and {MAX_CONTROL_POINTS}, not {n}", a.args[0].loc)
    tess.output_control_points = n
    sizes = _patch_sizes(info, "InputPatch")
    if patch_constant is not None:
        pc = patch_constant.decl.name
        if any(f is patch_constant for f in an.reachable(info)):       # DXC's words (SemaHLSLDiagnoseTU.cpp)
            raise error(f"patch constant function '{pc}' should not be reachable from entry function '{d.name}'",
                        d.loc)
        if any(f is info for f in an.reachable(patch_constant)):
            raise error(f"entry function '{d.name}' should not be reachable from patch constant function '{pc}'",
                        d.loc)
        sizes += _patch_sizes(patch_constant, "InputPatch")
        for p, t in zip(patch_constant.decl.params, patch_constant.param_types):
            if p.type.name == "OutputPatch" and isinstance(t, ir.Array) and t.size != n:
                raise error(f"OutputPatch of {t.size} control points in the patch-constant function does not match "
                            f"[outputcontrolpoints({n})]", p.loc)
        tess.patch_source = patch_constant.ir_func
        tess.output_patch_params += _output_patch_params(patch_constant)
    if not sizes:
        raise error(f"hull shader entry point '{d.name}' needs an InputPatch<T, N> parameter "
                    f"(in it or in its patch-constant function)", d.loc)
    for size, p in sizes[1:]:
        if size != sizes[0][0]:
            raise error(f"InputPatch of {size} control points does not match the other InputPatch ({sizes[0][0]})",
                        p.loc)
    tess.input_control_points = sizes[0][0]
    return tess
