"""build/json_text.py writes exactly what json.dumps(indent=N, sort_keys=True) writes."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from shaderbuild.build import json_text

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                     st.text())
_DATA = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=30)


@settings(max_examples=300, deadline=None)
@given(_DATA, st.sampled_from([1, 2]))
def test_same_bytes_as_json_dumps(doc, indent):
    assert json_text.dumps(doc, indent) == json.dumps(doc, indent=indent, sort_keys=True)


def test_values_it_leaves_to_json_dumps():
    for doc in ({1: "a", 2: "b"}, {"x": [math.inf, -math.inf]}, {"a": 1.5, "b": [True, None, 2**70]}, [],
                {"é\u2028\"\\": "\x00\ud800"}):
        assert json_text.dumps(doc, 1) == json.dumps(doc, indent=1, sort_keys=True)
    mixed = {1: "a", "b": 2}      # json.dumps cannot sort these either
    for fn in (lambda: json_text.dumps(mixed, 1), lambda: json.dumps(mixed, indent=1, sort_keys=True)):
        try:
            fn()
        except TypeError:
            continue
        raise AssertionError("sorting int and str keys should fail")
    loop: list = []
    loop.append(loop)
    try:
        json_text.dumps(loop, 1)
    except ValueError as exc:
        assert "Circular" in str(exc)
    else:
        raise AssertionError("a circular document must fail as in json.dumps")
