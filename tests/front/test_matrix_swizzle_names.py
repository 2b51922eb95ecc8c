"""Matrix swizzle names (`m._m00_m11`, `m._11_22`) are read with string tests, not regular expressions
(issue 23: no `re` on the compile path): they must accept exactly what the patterns accept."""

from __future__ import annotations

import itertools
import re

from shaderbuild.front.sema.exprs import matrix_swizzle_pairs


def _by_pattern(name: str) -> list[tuple[int, int]] | None:
    if re.fullmatch(r"(?:_m([0-3])([0-3]))+", name):
        return [(int(a), int(b)) for a, b in re.findall(r"_m([0-3])([0-3])", name)]
    if re.fullmatch(r"(?:_([1-4])([1-4]))+", name):
        return [(int(a) - 1, int(b) - 1) for a, b in re.findall(r"_([1-4])([1-4])", name)]
    return None


def test_every_short_name_is_read_as_the_patterns_read_it() -> None:
    """Every string of up to 6 characters over `_m0145x`, and every sequence of up to 4 pieces (valid
    and broken elements of both forms)."""
    pieces = ["_m01", "_m33", "_m40", "_m0", "_14", "_41", "_50", "_1", "m", "x", "_", "0"]
    names = {"".join(c) for n in range(7) for c in itertools.product("_m0145x", repeat=n)}
    names |= {"".join(c) for n in range(1, 5) for c in itertools.product(pieces, repeat=n)}
    accepted = 0
    for name in sorted(names):
        expected = _by_pattern(name)
        assert matrix_swizzle_pairs(name) == expected, name
        accepted += expected is not None
    assert accepted > 50


def test_examples() -> None:
    assert matrix_swizzle_pairs("_m00_m32") == [(0, 0), (3, 2)]
    assert matrix_swizzle_pairs("_11_44_21") == [(0, 0), (3, 3), (1, 0)]
    assert matrix_swizzle_pairs("_m04") is None and matrix_swizzle_pairs("_10") is None
    assert matrix_swizzle_pairs("_m00_11") is None and matrix_swizzle_pairs("") is None
