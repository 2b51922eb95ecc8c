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
