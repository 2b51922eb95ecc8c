"""Issue 20, round 13: HLSL 2021 / C++ features a real engine's shaders use, hunted for programs DXC compiles
that we refused or compiled wrongly.  Each shader is our own; the expected values are worked out in the test."""

from __future__ import annotations

import res_util as R

STATIC_MEMBERS = """RWStructuredBuffer<float> Out : register(u0);
struct Kernel {
    static const int K = 3;
    static const uint L = K + 1;
    float w[K];
    uint pad[L];
    float total() { float t = 0; for (int i = 0; i < K; i++) t += w[i]; return t; }
    float scaled(float s) { float k = s * L; return k + total(); }
};
namespace NS { struct T { static const int Q = 2; int v[Q * 2]; }; }
[numthreads(1, 1, 1)]
void main() {
    Kernel s; s.w[0] = 1; s.w[1] = 2; s.w[2] = 5;
    Out[0] = s.total();
    Out[1] = sizeof(Kernel) / 4;
    NS::T t;
    Out[2] = sizeof(t) / 4;
    Out[3] = Kernel::L;
    Out[4] = s.scaled(0.5);
}
"""


def test_static_const_members_size_arrays_and_survive_methods_run():
    """`float w[K]` with K a static member of the struct (was 'use of undeclared identifier 'K''), and a struct
    whose method declares a local: the struct's static members were taken into that method's first declaration
    statement (so `Kernel::L` in main was undeclared)."""
    out = R.cs(STATIC_MEMBERS, {"Out": R.storage(R.sentinel(5))})
    k, l_ = 3, 3 + 1
    w = [1, 2, 5]
    assert R.unpack("f", out["Out"]) == [sum(w), k + l_, 2 * 2, l_, 0.5 * l_ + sum(w)]
