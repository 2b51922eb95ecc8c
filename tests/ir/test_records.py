"""Record classes: __init__ generated on first instantiation from one compiled template per
shape of fields (records._first_init), renamed for each class."""

from __future__ import annotations

import pytest

from shaderbuild.records import DataRecord, InternedRecord, Record, ValueRecord


class Point(Record):
    x: int
    y: int = 7
    tags: list = Record.factory(list)


class Size(Record):              # the same shape as Point, other names and defaults
    w: int
    h: int = 3
    notes: dict = Record.factory(dict)


class Swapped(Record):           # field names that are also the template's placeholder names
    a1: str
    a0: str = "zero"


class Point3(Point):
    z: int = 0


class Checked(DataRecord):
    lo: int
    hi: int

    def __post_init__(self) -> None:
        if self.lo > self.hi:
            raise ValueError("lo > hi")


class Pair(InternedRecord):
    first: str
    second: str = "b"


def test_positional_keyword_default_and_factory_fields():
    p = Point(1)
    assert (p.x, p.y, p.tags) == (1, 7, [])
    q = Point(2, y=5, tags=["t"])
    assert (q.x, q.y, q.tags) == (2, 5, ["t"])
    assert Point(x=3).tags is not Point(x=3).tags             # a fresh list per instance
    s = Size(4)
    assert (s.w, s.h, s.notes) == (4, 3, {})
    assert Point(1).y == 7                                     # Size's template reuse changed nothing


def test_argument_errors_name_the_fields():
    with pytest.raises(TypeError, match="'x'"):
        Point()
    with pytest.raises(TypeError, match="'nope'"):
        Point(1, nope=2)
    with pytest.raises(TypeError):
        Point(1, 2, [], 4)
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        Point(1, x=2)


def test_placeholder_like_field_names():
    s = Swapped("one")
    assert (s.a1, s.a0) == ("one", "zero")
    assert Swapped(a0="x", a1="y").a0 == "x"


def test_inherited_fields_post_init_and_value_semantics():
    p = Point3(1, 2, z=3)
    assert (p.x, p.y, p.tags, p.z) == (1, 2, [], 3)
    assert Checked(1, 2) == Checked(lo=1, hi=2)
    with pytest.raises(ValueError, match="lo > hi"):
        Checked(3, 2)
    assert Pair("a") is Pair("a", "b") and Pair("a", second="c") is not Pair("a")


class V(ValueRecord):
    k: str
    n: int = 0


def test_value_records_hash_by_fields():
    assert V("a") == V("a", 0) and hash(V("a")) == hash(V("a", 0)) and V("a") != V("a", 1)
    assert {V("a"): 1}[V("a")] == 1


def test_constants_keep_identity_through_pickle_and_copy():
    """`Constant` members (ir.Storage, TokKind) are what enum members were here: named, valued, and the
    same object after pickling (the build engine's workers) or copying."""
    import copy
    import pickle

    from shaderbuild.front.tokens import TokKind
    from shaderbuild.ir import Storage

    for member in (Storage.FUNCTION, Storage.PAYLOAD, TokKind.IDENT):
        assert pickle.loads(pickle.dumps(member)) is member
        assert copy.copy(member) is member and copy.deepcopy([member])[0] is member
    assert (Storage.WORKGROUP.name, Storage.WORKGROUP.value) == ("WORKGROUP", "groupshared")
    assert repr(TokKind.EOF) == "<TokKind.EOF: 'end of file'>"
    assert Storage.INPUT != Storage.OUTPUT and len({Storage.INPUT, Storage.INPUT, Storage.OUTPUT}) == 2


def test_record_classes_are_plain_types():
    """No metaclass: `isinstance` against a class whose metaclass is `type` is answered in C, while a
    metaclass's `__instancecheck__` is a call per failed test (issue 23).  Every Record class of the
    compiler and both backends (every module imported)."""
    import importlib
    import pkgutil

    for name in ("shaderbuild", "shaderbuild_spirv", "shaderbuild_dxil"):
        for info in pkgutil.walk_packages(importlib.import_module(name).__path__, name + "."):
            if not info.name.endswith(".__main__"):     # it runs the command line
                importlib.import_module(info.name)
    todo, seen = [Record], []
    while todo:
        cls = todo.pop()
        seen.append(cls)
        todo += cls.__subclasses__()
    assert len(seen) > 150
    assert [c.__qualname__ for c in seen if type(c) is not type] == []


def test_defaults_stay_on_the_class_as_in_a_dataclass():
    """As with dataclass fields, a plain default is also a class attribute, a `Record.factory` marker is
    not, and an instance reads its own value."""
    assert Point.y == 7 and Point3.z == 0 and "tags" not in vars(Point) and not hasattr(Point, "x")
    assert Point._fields == ("x", "y", "tags") and Point3._fields == ("x", "y", "tags", "z")
    assert Point3._defaults["y"] == 7 and Point3(1).tags == [] and Point3(1, 2).y == 2


_BUILT: list[int] = []


class Count(InternedRecord):
    n: int
    tag: str = "t"

    def __post_init__(self) -> None:
        _BUILT.append(self.n)


def test_interned_records_are_built_once():
    """A second construction with equal fields returns the first instance without initialising it
    again (its __post_init__ ran once), for positional, keyword and default arguments alike."""
    first = Count(5)
    assert Count(5, "t") is first and Count(n=5, tag="t") is first and Count(5, tag="u") is not first
    assert _BUILT == [5, 5] and (first.n, first.tag) == (5, "t")
    assert Pair("x") is Pair(first="x") is Pair("x", second="b") and Pair("x").second == "b"
    with pytest.raises(TypeError, match="'first'"):
        Pair()
    with pytest.raises(TypeError, match="'third'"):
        Pair("x", third=1)
    import pickle
    assert pickle.loads(pickle.dumps(Pair("p", "q"))) is Pair("p", "q")


def test_a_record_whose_slots_leave_its_fields_no_storage_is_refused():
    """Fields live in the instance __dict__; a class whose bases up to Record all declare __slots__,
    declaring its own, would have none: refused when the class is made, not at its first use."""
    class Slotted(Record):
        __slots__ = ()

    with pytest.raises(TypeError, match=r"Orphan declares __slots__ but no slot for its fields \['a'\]"):
        class Orphan(Slotted):
            __slots__ = ("cache",)
            a: int

    class Stored(Slotted):       # a field with its own slot has storage
        __slots__ = ("a",)
        a: int

    class Open(Slotted):         # no __slots__: a __dict__
        a: int
        b: int = 2

    assert Stored(1).a == 1 and (Open(1).a, Open(1).b) == (1, 2)
