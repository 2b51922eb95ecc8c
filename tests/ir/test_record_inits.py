"""shaderbuild/_record_inits.py (the pre-generated Record __init__ templates) matches the
templates records.py would compile, and Records built from it behave like compiled ones."""

import ast
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

from shaderbuild import _record_inits, records

PACKAGES = ("shaderbuild", "shaderbuild_spirv", "shaderbuild_dxil")


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

    assert records.template_name(("p", "p", "f"), False) in vars(_record_inits)   # TypeRef's shape
    n, m = Node(1, 0), Node(2, 0, [3])
    assert (n.a, n.b, m.a, m.b) == (1, [], 2, [3])
    assert n.b is not Node(1, 0).b
    assert type(n).__init__.__code__.co_name == "__init__"


def class_shapes() -> dict[tuple[tuple[str, ...], bool], list[str]]:
    """(shape, post) -> names of the Record classes of the three packages whose __init__ is generated
    (every module but `__main__` imported first)."""
    for name in PACKAGES:
        pkg = importlib.import_module(name)
        for info in pkgutil.walk_packages(pkg.__path__, name + "."):
            if not info.name.endswith(".__main__"):     # it runs the command line
                importlib.import_module(info.name)
    todo, shapes = list(records.Record.__subclasses__()), {}
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        init = cls.__dict__.get("__init__")
        if issubclass(cls, records.InternedRecord):      # initialised by __new__, with the same templates
            generated = cls is not records.InternedRecord
        else:
            generated = init is records._first_init or init.__code__.co_filename in (
                _record_inits.__file__, "<record __init__>")
        if cls.__module__.split(".")[0] in PACKAGES and generated:
            shapes.setdefault(records.init_shape(cls), []).append(f"{cls.__module__}.{cls.__qualname__}")
    return shapes


def test_every_record_class_of_the_packages_has_its_template():
    """A shape missing from _record_inits.py is compiled when its class is first instantiated, and
    a process's first compile() sets up the compiler: ~10 M instructions, ~5% of a cold compile
    (StructDecl's did so on every sample shader).  Stale shapes only cost unmarshalling."""
    shapes = class_shapes()
    generated = {(shape, post) for _, shape, post in _shapes()}
    hint = "regenerate: `python tests/ir/test_record_inits.py` (this checkout on PYTHONPATH)"
    missing = {records.template_name(*k): v for k, v in shapes.items() if k not in generated}
    assert not missing, f"{hint}: {missing}"
    assert not generated - set(shapes), f"{hint}: stale {sorted(generated - set(shapes))}"


if __name__ == "__main__":     # with this checkout's packages on PYTHONPATH, as the tests run
    target = Path(records.__file__).with_name("_record_inits.py")
    if not target.is_relative_to(Path(__file__).resolve().parents[2]):
        sys.exit(f"shaderbuild imported from {target.parent}, not this checkout: set PYTHONPATH")
    records.write_inits(set(class_shapes()), str(target))
