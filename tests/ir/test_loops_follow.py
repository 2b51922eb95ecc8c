"""ir.loops.follow_stores: the one place where sema (offsets held by locals) and passes/unroll (offsets of
unrolled copies) read a local stored once back to its value.  Statements are built by hand so each rule
(stored once, at the top level, ahead of the reader; chains; the skipped counter) is seen on its own."""

from shaderbuild import ir
from shaderbuild.ir.loops import MAX_LOCAL_CHAIN, const_int, follow_stores
from shaderbuild.ir.types import INT


def _local(name):
    return ir.Variable(name, INT, ir.Storage.FUNCTION)


def _load(v):
    return ir.Load(ir.VarRef(v), INT)


def _store(v, e):
    return ir.Store(ir.VarRef(v), e)


def _c(n):
    return ir.Const(INT, n)


def test_a_chain_of_locals_folds_to_the_first_constant():
    # a = 3; b = a + 1; c = b * 2;  [reader]   -> c reads as (3 + 1) * 2 = 8
    a, b, c = _local("a"), _local("b"), _local("c")
    body = [_store(a, _c(3)), _store(b, ir.Binary("add", _load(a), _c(1), INT)),
            _store(c, ir.Binary("mul", _load(b), _c(2), INT)), ir.Eval(_load(c))]
    assert const_int(follow_stores(_load(c), body, 3)) == [8]


def test_only_stores_ahead_of_the_reader_count():
    a = _local("a")
    body = [ir.Eval(_load(a)), _store(a, _c(5))]
    e = follow_stores(_load(a), body, 0)
    assert const_int(e) is None and isinstance(e, ir.Load) and e.place.var is a
    assert const_int(follow_stores(_load(a), body, 2)) == [5]


def test_a_local_stored_twice_or_in_a_branch_is_kept():
    a, b = _local("a"), _local("b")
    twice = [_store(a, _c(1)), _store(a, _c(2))]
    nested = [ir.If(ir.Const(ir.BOOL, True), [_store(b, _c(1))], [])]
    assert const_int(follow_stores(_load(a), twice, 2)) is None
    assert const_int(follow_stores(_load(b), nested, 1)) is None


def test_the_skipped_variable_stays_a_load():
    # the unroll pass skips its counter: it substitutes the iteration's value itself
    i, a = _local("i"), _local("a")
    body = [_store(i, _c(7)), _store(a, ir.Binary("add", _load(i), _c(1), INT))]
    e = follow_stores(_load(a), body, 2, skip=i)
    assert const_int(e) is None
    assert [x.place.var for x in ir.walk_expr(e) if isinstance(x, ir.Load)] == [i]
    assert const_int(follow_stores(_load(a), body, 2)) == [8]


def test_non_function_variables_are_not_followed():
    g = ir.Variable("g", INT, ir.Storage.PRIVATE)
    assert const_int(follow_stores(_load(g), [_store(g, _c(1))], 1)) is None


def test_chains_stop_after_the_limit():
    # v0 = 1; v1 = v0; ...; vn = v(n-1): one round per link, so MAX_LOCAL_CHAIN links fold and one more does not
    vs = [_local(f"v{k}") for k in range(MAX_LOCAL_CHAIN + 2)]
    body = [_store(vs[0], _c(1))] + [_store(vs[k], _load(vs[k - 1])) for k in range(1, len(vs))]
    n = len(body)
    assert const_int(follow_stores(_load(vs[MAX_LOCAL_CHAIN - 1]), body, n)) == [1]
    assert const_int(follow_stores(_load(vs[MAX_LOCAL_CHAIN + 1]), body, n)) is None


def test_found_keeps_the_answers_for_later_calls():
    a = _local("a")
    body = [_store(a, _c(4))]
    found: dict = {}
    follow_stores(_load(a), body, 1, found=found)
    assert found[id(a)] == (0, body[0].value)
