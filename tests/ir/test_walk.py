"""ir.walk_expr: every sub-expression once, pre-order, children left to right (its callers'
passes depend on the order: the first use of a value is the one they keep)."""

from shaderbuild import ir
from shaderbuild.ir.types import FLOAT


def _c(v):
    return ir.Const(FLOAT, v)


def test_walk_expr_is_pre_order_left_to_right():
    # (1 + max(2, 3 * 4)) + -(5): numbered in the order a pre-order walk meets the constants
    mul = ir.Binary("*", _c(3.0), _c(4.0), FLOAT)
    call = ir.Intrinsic("max", [_c(2.0), mul], FLOAT)
    left = ir.Binary("+", _c(1.0), call, FLOAT)
    neg = ir.Unary("-", _c(5.0), FLOAT)
    root = ir.Binary("+", left, neg, FLOAT)
    seen = list(ir.walk_expr(root))
    assert seen == [root, left, seen[2], call, seen[4], mul, seen[6], seen[7], neg, seen[9]]
    assert [e.value for e in seen if isinstance(e, ir.Const)] == [1.0, 2.0, 3.0, 4.0, 5.0]


def test_walk_expr_sees_a_shared_node_at_each_use():
    shared = _c(7.0)
    root = ir.Binary("+", shared, ir.Binary("*", shared, shared, FLOAT), FLOAT)
    assert sum(e is shared for e in ir.walk_expr(root)) == 3


def test_leaf_expressions_hold_no_expression():
    """walk_expr does not look inside ir.nodes.LEAF_EXPRS: a field added to one of them that could
    hold an expression must take the class out of the table (this lists their fields as written)."""
    from shaderbuild.ir.nodes import LEAF_EXPRS

    fields = {cls.__name__: set(cls._fields) for cls in LEAF_EXPRS}
    assert fields == {"Const": {"type", "value"}, "SpecConst": {"type", "value", "spec_id", "name"},
                      "VarRef": {"var", "loc"}}


def test_body_exprs_is_every_statement_expression_walked():
    """ir.body_exprs (one list, its own statement walk) yields the nodes of `walk_expr` over each
    statement's expressions, statements in `walk_stmts` order: checked on a function whose
    if/else, loop, switch and nesting survive lowering (-O0: no unrolling or folding)."""
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions

    src = """RWStructuredBuffer<float> B : register(u0);
[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {
    float a = B[0];
    [loop] for (uint i = 0; i < id.x; ++i) {
        if (a > 1.0) { a = a * 2.0 + B[i]; } else { switch (i) { case 0: a -= 1.0; break;
            case 3: { if (a < 0.5) a = -a; } break; default: a = max(a, B[i + 1]); } }
        [loop] while (a > 100.0) { a = a / 3.0; }
    }
    B[1] = a;
}
"""
    opts = CompileOptions(entry="main", profile="cs_6_0", target="spirv", opt_level=0)
    res = compile_file("walk.hlsl", opts, text=src, keep_module=True)
    assert res.ok, res.diagnostics
    bodies = [f.body for f in res.module.functions]
    body = max(bodies, key=lambda b: len(list(ir.walk_stmts(b))))
    kinds = {type(s) for s in ir.walk_stmts(body)}
    assert {ir.If, ir.Loop, ir.Switch} <= kinds
    expected = [n for s in ir.walk_stmts(body) for e in ir.stmt_exprs(s) for n in ir.walk_expr(e)]
    got = ir.body_exprs(body)
    assert len(got) == len(expected) > 30
    assert all(a is b for a, b in zip(got, expected))


def _module_with_reads():
    """A module whose one function stores `g0` to `out` (two globals, no passes run)."""
    out = ir.Variable("out", FLOAT, ir.Storage.PRIVATE)
    g0 = ir.Variable("g0", FLOAT, ir.Storage.PRIVATE)
    g1 = ir.Variable("g1", FLOAT, ir.Storage.PRIVATE)
    fn = ir.Function("f", [], ir.VOID, [ir.Store(ir.VarRef(out), ir.Load(ir.VarRef(g0), FLOAT))])
    module = ir.Module("compute", (6, 0), globals=[out, g0, g1], functions=[fn])
    return module, fn, g1


def _named(exprs):
    return [x.var.name for x in exprs if isinstance(x, ir.VarRef)]


def test_function_exprs_is_remembered_until_forgotten_or_the_body_is_replaced():
    """ir.function_exprs: body_exprs of the body, the same list again while nothing forgets it; a
    body replaced as a whole is walked afresh, an in-place change only after forget_exprs."""
    module, fn, g1 = _module_with_reads()
    first = ir.function_exprs(module, fn)
    assert _named(first) == ["out", "g0"]
    assert ir.function_exprs(module, fn) is first
    fn.body.append(ir.Store(ir.VarRef(g1), ir.Const(FLOAT, 1.0)))     # in place: not seen yet
    assert ir.function_exprs(module, fn) is first
    ir.forget_exprs(module)
    assert _named(ir.function_exprs(module, fn)) == ["out", "g0", "g1"]
    fn.body = fn.body[:1]                                               # replaced: seen at once
    assert _named(ir.function_exprs(module, fn)) == ["out", "g0"]


def test_pass_driver_forgets_the_walks_before_a_pass_not_marked_to_keep_them(monkeypatch):
    """passes.run_passes: a raise pass that changes a body in place (not marked ir.keeps_exprs), even
    after searching it, is followed by searches that see the change; a marked one keeps the lists;
    none are left after.
    (The hand-made module has no entry point, which the IR validator would refuse.)"""
    from shaderbuild.capabilities import Capabilities
    from shaderbuild.options import CompileOptions
    from shaderbuild.passes import run_passes

    monkeypatch.setenv("SHADERBUILD_VALIDATE_IR", "0")
    module, fn, g1 = _module_with_reads()
    seen: list[list[str]] = []

    @ir.keeps_exprs
    def look(m, options):
        seen.append(_named(ir.function_exprs(m, fn)))

    def write(m, options):
        fn.body.append(ir.Store(ir.VarRef(g1), ir.Const(FLOAT, 1.0)))

    def look_then_write(m, options):            # an unmarked pass may search, then write
        ir.function_exprs(m, fn)
        fn.body.append(ir.Store(ir.VarRef(g1), ir.Const(FLOAT, 2.0)))

    caps = Capabilities(raise_passes=(look, write, look, look, look_then_write, look))
    run_passes(module, CompileOptions(profile="cs_6_0", opt_level=0), caps)
    assert seen == [["out", "g0"], ["out", "g0", "g1"], ["out", "g0", "g1"], ["out", "g0", "g1", "g1"]]
    assert ir.remembered_exprs(module) == 0


def test_manifest_walks_the_bodies_afresh():
    """build_manifest's used globals: a body changed in place after a remembered walk (a backend may)
    is walked again, and the manifest forgets its own walks when it is done."""
    from shaderbuild.compiler import compile_file
    from shaderbuild.options import CompileOptions
    from shaderbuild.reflect.manifest import build_manifest

    src = """RWStructuredBuffer<float> A : register(u0);
RWStructuredBuffer<float> B : register(u1);
[numthreads(1, 1, 1)] void main() { A[0] = 1.0; }
"""
    opts = CompileOptions(entry="main", profile="cs_6_0", target="spirv")
    res = compile_file("m.hlsl", opts, text=src, keep_module=True)
    assert res.ok, res.diagnostics
    module = res.module
    assert ir.remembered_exprs(module) == 0
    used = {r["name"]: r["used"] for r in res.manifest["resources"]}
    assert used == {"A": True, "B": False}
    fn = module.entry.function
    ir.function_exprs(module, fn)                                   # remembered before the change
    b = next(v for v in module.globals if v.name == "B")
    fn.body.insert(0, ir.Eval(ir.VarRef(b)))
    manifest = build_manifest(module, opts, "m.hlsl", {})
    assert {r["name"]: r["used"] for r in manifest["resources"]} == {"A": True, "B": True}
    assert ir.remembered_exprs(module) == 0
