"""shaderbuild/_record_inits.py (the pre-generated Record __init__ templates) matches the
templates records.py would compile, and Records built from it behave like compiled ones."""

import ast
import inspect

from shaderbuild import _record_inits, records


def _shapes():
    for name, fn in vars(_record_inits).items():
        if name.startswith("init_") and callable(fn):
            shape, _, post = name[len("init_"):].partition("_")
            yield name, tuple(shape), post == "post"


def test_every_generated_template_is_the_compiled_source():
    shapes = list(_shapes())
    assert len(shapes) > 20
    for name, shape, post in shapes:
        assert set(shape) <= {"p", "d", "f"}, name
        assert records.template_name(shape, post) == name
        expected = ast.dump(ast.parse(records.template_source(shape, post, name)))
        assert ast.dump(ast.parse(inspect.getsource(getattr(_record_inits, name)))) == expected


def test_a_record_from_a_generated_template():
    class Node(records.Record):
        a: int
        z: int
        b: list = records.Record.factory(list)

    assert records.template_name(("p", "p", "f"), False) in vars(_record_inits)
    n, m = Node(1, 0), Node(2, 0, [3])
    assert (n.a, n.b, m.a, m.b) == (1, [], 2, [3])
    assert n.b is not Node(1, 0).b
    assert type(n).__init__.__code__.co_name == "__init__"
