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
