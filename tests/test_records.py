"""Record classes: __init__ generated on first instantiation from one compiled template per
shape of fields (records._first_init), renamed for each class."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from shaderbuild import records, user_cache
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


# ------------------------------------------------------------- the __init__ code cache


def _fresh_code_cache(monkeypatch, cache_home) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache_home))
    monkeypatch.setattr(records, "_init_codes", None)
    monkeypatch.setattr(records, "_init_used", [])
    monkeypatch.setattr(records, "_init_codes_added", False)


def test_init_code_is_saved_and_reused_by_a_later_process(tmp_path, monkeypatch):
    _fresh_code_cache(monkeypatch, tmp_path)

    class Edge(Record):
        src: str
        dst: str = "end"
        marks: list = Record.factory(list)

    assert (Edge("a").dst, Edge("a").marks) == ("end", [])
    assert records._init_codes_added
    records.save_init_code_cache()
    assert Path(user_cache.path_of(records._INIT_CODE_CACHE)).is_file()

    _fresh_code_cache(monkeypatch, tmp_path)           # "the next process"

    class Edge2(Record):                               # the same generated source
        src: str
        dst: str = "end"
        marks: list = Record.factory(list)

    e = Edge2("b", marks=[1])
    assert (e.src, e.dst, e.marks) == ("b", "end", [1])
    assert Edge2("c").marks is not Edge2("c").marks
    assert not records._init_codes_added               # the code came from the cache


@pytest.mark.parametrize("junk", [b"", b"\x00junk", marshal.dumps({"format": 1, "data": {"def x": 5}}),
                                  marshal.dumps({"format": 99, "data": {}})])
def test_a_broken_init_code_cache_is_ignored(tmp_path, monkeypatch, junk):
    _fresh_code_cache(monkeypatch, tmp_path)
    path = Path(user_cache.path_of(records._INIT_CODE_CACHE))
    path.parent.mkdir(parents=True)
    path.write_bytes(junk)

    class Leaf(Record):
        name: str

    assert Leaf("x").name == "x"


def test_the_compile_command_saves_the_cache(tmp_path):
    src = tmp_path / "cs.hlsl"
    src.write_text("RWStructuredBuffer<uint> O : register(u0);\n"
                   "[numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { O[id.x] = 1; }\n")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    cmd = [sys.executable, "-m", "shaderbuild", "compile", str(src), "-T", "cs_6_0", "-spirv", "-o", str(tmp_path / "o.spv")]
    subprocess.run(cmd, env=env, check=True, timeout=60)
    files = sorted(p.name for p in (tmp_path / "cache" / "shaderbuild").iterdir())
    assert any(f.startswith("record-inits-") for f in files) and any(f.startswith("entry-points-") for f in files)
    subprocess.run(cmd, env=env, check=True, timeout=60)     # and the next run uses it
    assert (tmp_path / "o.spv").read_bytes()[:4] == b"\x03\x02\x23\x07"
