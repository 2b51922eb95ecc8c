"""Attribute argument counts are checked once, in the parser (front/attributes.py), with a
located error on both targets; attributes the compiler does not know are ignored."""

from __future__ import annotations

import pytest
import res_util as R

from shaderbuild.front.attributes import ATTRIBUTE_ARGS

BODY = "\n[numthreads(1,1,1)] void main() { O[0] = 1; }\n"


@pytest.mark.parametrize("target", ["spirv", "dxil"])
@pytest.mark.parametrize("src,col,message", [
    ("[[vk::binding()]] RWStructuredBuffer<float> O;" + BODY, 3,
     "attribute 'vk::binding' takes one or two arguments, not 0"),
    ("[[vk::binding(1, 2, 3)]] RWStructuredBuffer<float> O;" + BODY, 3,
     "attribute 'vk::binding' takes one or two arguments, not 3"),
    ("[[vk::counter_binding()]] RWStructuredBuffer<float> O;" + BODY, 3,
     "attribute 'vk::counter_binding' takes one argument, not 0"),
    ("[[vk::constant_id()]] const int K = 1;\nRWStructuredBuffer<float> O;" + BODY, 3,
     "attribute 'vk::constant_id' takes one argument, not 0"),
    ("RWStructuredBuffer<float> O;\ncbuffer C { [[vk::offset()]] float2 b; };" + BODY, 15,
     "attribute 'vk::offset' takes one argument, not 0"),
    ("RWStructuredBuffer<float> O;\n[numthreads(1, 1)] void main() { O[0] = 1; }\n", 2,
     "attribute 'numthreads' takes three arguments, not 2"),
    ("RWStructuredBuffer<float> O;\n[numthreads(1,1,1)] void main() { [unroll(2, 3)] for (int i = 0; i < 2; ++i) O[i] = 1; }\n",
     36, "attribute 'unroll' takes at most one argument, not 2"),
    ("RWStructuredBuffer<float> O;\n[numthreads(1,1,1)] void main() { [loop(4)] for (int i = 0; i < 2; ++i) O[i] = 1; }\n",
     36, "attribute 'loop' takes no arguments, not 1"),
])
def test_wrong_argument_count_is_a_located_error(src, col, message, target):
    res = R.compile_hlsl(src, target=target)
    line = 1 if src.startswith("[[") else 2
    assert R.errors(res) == [f"{line}:{col}: {message}"]
    assert res.binary is None or not res.ok


def test_unknown_attribute_is_ignored():
    res = R.build("RWStructuredBuffer<float> O;\n[numthreads(1,1,1)] [vendor::hint(1, 2, 3)] void main() { O[0] = 1; }")
    assert res.ok and not R.errors(res)


def test_every_bound_is_sane():
    for name, (lo, hi) in ATTRIBUTE_ARGS.items():
        assert 0 <= lo <= hi <= 3, name
