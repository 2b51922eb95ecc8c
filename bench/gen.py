"""Generates compute shaders of a given size for the scaling benchmarks.

The shaders are ordinary HLSL that both shaderbuild and glslangValidator accept:
helper functions with arithmetic, branches and loops, all reachable from one
entry point so no compiler can drop them as dead code.
"""

from __future__ import annotations

HEADER = """RWStructuredBuffer<float4> Out : register(u0);
StructuredBuffer<float4> In : register(t1);
"""

FUNC = """float4 step{n}(float4 v, uint i)
{{
    float4 acc = v * {a}.5 + float4(i, {n}, 1, 2);
    for (uint k = 0; k < {k}u; k++)
    {{
        acc.xy += acc.zw * 0.25;
        if (acc.x > {a}.0)
            acc.x -= {a}.0;
        else
            acc.y = max(acc.y, acc.x * 2.0);
    }}
    acc.z = clamp(acc.z, -1.0, 1.0) + dot(acc.xy, acc.zw);
    return acc + sqrt(abs(v));
}}
"""
FUNC_LINES = FUNC.count("\n")


def shader(lines: int) -> str:
    """A shader of about `lines` lines."""
    n_funcs = max(1, (lines - 12) // FUNC_LINES)
    parts = [HEADER]
    for n in range(n_funcs):
        parts.append(FUNC.format(n=n, a=n % 7 + 1, k=n % 3 + 2))
    body = ["[numthreads(64, 1, 1)]", "void main(uint3 id : SV_DispatchThreadID)", "{",
            "    float4 v = In[id.x];"]
    body += [f"    v = step{n}(v, id.x);" for n in range(n_funcs)]
    body += ["    Out[id.x] = v;", "}", ""]
    parts.append("\n".join(body))
    return "\n".join(parts)
