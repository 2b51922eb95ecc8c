"""Mutations of our own shaders: token deletion/duplication/swap/replacement, truncation,
random bytes, huge literals, deep nesting, line-ending and BOM changes, line splicing.

Seeds are the complete compute shaders embedded in tests/*.py (string constants containing
`numthreads`) and the sample project's shaders.  All randomness comes from a `random.Random`,
so a (seed list, rng seed) pair reproduces a batch exactly.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import REPO_DIR, TESTS_DIR

SAMPLE_SHADERS = REPO_DIR / "sample_project" / "shaders"
_TOKEN = re.compile(rb"\s+|[A-Za-z_]\w*|0[xX][0-9a-fA-F]+[uUlL]*|\d+\.?\d*(?:[eE][-+]?\d+)?[fFhHlLuU]*|"
                    rb"\"(?:[^\"\\\n]|\\.)*\"|//[^\n]*|/\*.*?\*/|<<=|>>=|[-+*/%&|^<>=!]=|&&|\|\||\+\+|--|<<|>>|::|"
                    rb"##|.", re.S)
_NUMBER = re.compile(rb"^(?:0[xX][0-9a-fA-F]+|\d)")
HUGE_LITERALS = (b"99999999999999999999999999999", b"0xFFFFFFFFFFFFFFFFFFFF", b"4294967296", b"2147483648",
                 b"18446744073709551616u", b"1e999999", b"1e-999999", b"3.4e39f", b"340282366920938463463374607431768211457",
                 b"0x" + b"F" * 200, b"9" * 5000, b"1." + b"0" * 3000 + b"1", b"-2147483648", b"0xFFFFFFFFu")
VOCAB = (b"(", b")", b"{", b"}", b"[", b"]", b";", b",", b".", b"=", b"+", b"<", b">", b"?", b":", b"#", b"\\",
         b"int", b"uint", b"float", b"float4", b"int3", b"bool", b"void", b"return", b"if", b"else", b"for", b"while",
         b"do", b"switch", b"case", b"default", b"break", b"continue", b"struct", b"static", b"const", b"in", b"out",
         b"inout", b"#define", b"#include", b"#if", b"#endif", b"register", b"RWStructuredBuffer", b"Texture2D",
         b"main", b"numthreads", b"SV_DispatchThreadID", b"discard", b"typedef", b"cbuffer", b"__LINE__",
         b"matrix", b"vector", b"sizeof", b"groupshared", b"0", b"1", b"-1", b"1.5", b"x", b"xyzw", b"'")
DEEP = (16, 100, 300, 1000, 5000)


def _tokens(data: bytes) -> list[bytes]:
    return _TOKEN.findall(data)


def _significant(toks: list[bytes]) -> list[int]:
    return [i for i, t in enumerate(toks) if not t.isspace()]


# ---------------------------------------------------------------- one mutation each


def delete_tokens(rng: random.Random, data: bytes) -> bytes:
    toks = _tokens(data)
    sig = _significant(toks)
    if not sig:
        return data
    start = rng.choice(sig)
    for i in range(start, min(len(toks), start + rng.choice((1, 1, 1, 2, 3, 8)))):
        toks[i] = b"" if not toks[i].isspace() else toks[i]
    return b"".join(toks)


def duplicate_token(rng: random.Random, data: bytes) -> bytes:
    toks = _tokens(data)
    sig = _significant(toks)
    if not sig:
        return data
    i = rng.choice(sig)
    toks[i] = toks[i] + b" " + toks[i] if rng.random() < 0.5 else toks[i] * rng.choice((2, 3))
    return b"".join(toks)


def swap_tokens(rng: random.Random, data: bytes) -> bytes:
    toks = _tokens(data)
    sig = _significant(toks)
    if len(sig) < 2:
        return data
    i = rng.choice(sig)
    j = rng.choice(sig) if rng.random() < 0.5 else sig[min(len(sig) - 1, sig.index(i) + 1)]
    toks[i], toks[j] = toks[j], toks[i]
    return b"".join(toks)


def replace_token(rng: random.Random, data: bytes) -> bytes:
    toks = _tokens(data)
    sig = _significant(toks)
    if not sig:
        return data
    i = rng.choice(sig)
    toks[i] = rng.choice(VOCAB) if rng.random() < 0.6 else toks[rng.choice(sig)]
    return b"".join(toks)


def truncate(rng: random.Random, data: bytes) -> bytes:
    return data[:rng.randrange(len(data) + 1)]


def random_bytes(rng: random.Random, data: bytes) -> bytes:
    pos = rng.randrange(len(data) + 1)
    pool = (b"\x00", b"\xff", b"\xc3", b"\xe2\x82", b"\xef\xbb\xbf", b"\r", b"\\\n", b"\x1a", b"\t", b"\x7f")
    junk = b"".join(rng.choice(pool) if rng.random() < 0.5 else bytes([rng.randrange(256)])
                    for _ in range(rng.choice((1, 1, 2, 4, 16))))
    return data[:pos] + junk + data[pos:]


def huge_literal(rng: random.Random, data: bytes) -> bytes:
    toks = _tokens(data)
    nums = [i for i, t in enumerate(toks) if _NUMBER.match(t)]
    lit = rng.choice(HUGE_LITERALS)
    if not nums:
        return data + b"\nstatic const uint K = " + lit + b";\n"
    toks[rng.choice(nums)] = lit
    return b"".join(toks)


def _nesters(n: int) -> list[tuple[bytes, bytes, bytes]]:
    """(where, opener, closer) families; `where` says if they go in an expression or a body."""
    return [(b"expr", b"(" * n, b")" * n), (b"expr", b"-" * n, b""), (b"expr", b"!" * n, b""),
            (b"expr", b"(int)" * n, b""), (b"expr", b"1+(" * n, b")" * n), (b"expr", b"f(" * n, b")" * n),
            (b"expr", b"true?(" * n, b"):0" * n), (b"expr", b"int2(" * n, b",1)" * n),
            (b"body", b"{" * n, b"}" * n), (b"body", b"if(true)" * n, b";"),
            (b"body", b"for(;;){" * n, b"}" * n), (b"body", b"while(false){" * n, b"}" * n),
            (b"body", b"switch(0){default:" * n, b"}" * n)]


def deep_nesting(rng: random.Random, data: bytes) -> bytes:
    n = rng.choice(DEEP)
    where, opener, closer = rng.choice(_nesters(n))
    if where == b"body":
        brace = data.rfind(b"{")
        if brace < 0:
            return data + b"\nvoid f() " + opener + closer + b"\n"
        return data[:brace + 1] + opener + closer + data[brace + 1:]
    toks = _tokens(data)
    cands = [i for i, t in enumerate(toks) if _NUMBER.match(t) or (t[:1].isalpha() and t.islower())]
    if not cands:
        return data + b"\nstatic const int D = " + opener + b"1" + closer + b";\n"
    i = rng.choice(cands)
    toks[i] = opener + toks[i] + closer
    return b"".join(toks)


def deep_types(rng: random.Random, data: bytes) -> bytes:
    """Deeply nested declarators, struct chains and macro chains appended as declarations."""
    n = rng.choice(DEEP)
    kind = rng.randrange(4)
    if kind == 0:
        decl = b"static int A" + b"[1]" * n + b";\n"
    elif kind == 1:
        decl = b"".join(b"struct S%d { S%d m; };\n" % (i + 1, i) for i in range(n)).replace(b"S0 m", b"int m", 1)
    elif kind == 2:
        decl = b"".join(b"#define M%d M%d+1\n" % (i, i + 1) for i in range(n)) + b"static const int MM = M0;\n"
    else:
        decl = b"typedef int T0;\n" + b"".join(b"typedef T%d T%d;\n" % (i, i + 1) for i in range(n))
    return decl + data if rng.random() < 0.5 else data + b"\n" + decl


def line_endings(rng: random.Random, data: bytes) -> bytes:
    choice = rng.randrange(4)
    if choice == 0:
        return data.replace(b"\n", b"\r\n")
    if choice == 1:
        return b"\xef\xbb\xbf" + data
    if choice == 2:
        return data.replace(b"\n", b"\r")
    return b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")


def splice_lines(rng: random.Random, data: bytes, donor: bytes) -> bytes:
    lines, extra = data.split(b"\n"), donor.split(b"\n")
    pos = rng.randrange(len(lines) + 1)
    k = rng.randrange(len(extra))
    return b"\n".join(lines[:pos] + extra[k:k + rng.choice((1, 2, 5))] + lines[pos:])


MUTATORS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "delete": delete_tokens, "duplicate": duplicate_token, "swap": swap_tokens, "replace": replace_token,
    "truncate": truncate, "bytes": random_bytes, "huge_literal": huge_literal, "deep_nesting": deep_nesting,
    "deep_types": deep_types, "line_endings": line_endings,
}
# token edits dominate; the expensive ones (deep nesting, huge types) are rarer
WEIGHTS = {"delete": 6, "duplicate": 4, "swap": 4, "replace": 6, "truncate": 3, "bytes": 3, "huge_literal": 3,
           "deep_nesting": 2, "deep_types": 1, "line_endings": 1}


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes
    include_dirs: tuple[str, ...] = ()


STUB_MAIN = "\nRWStructuredBuffer<int> FuzzOut : register(u7);\n[numthreads(1, 1, 1)]\nvoid main() { FuzzOut[0] = 1; }\n"
_HLSL_HINT = re.compile(r"[;{]\s*\n.*[;}]", re.S)


def _strings_in(path: Path) -> list[str]:
    """Complete shaders, and HLSL fragments (helper preludes) completed with a stub entry point."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return []
    out = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Constant) and isinstance(n.value, str)):
            continue
        if "numthreads" in n.value:
            out.append(n.value)
        elif len(n.value) > 60 and _HLSL_HINT.search(n.value) and "def " not in n.value and "void main" not in n.value:
            out.append(n.value + STUB_MAIN)
    return out


def load_seeds() -> list[Seed]:
    """Complete shaders from the test files (tests/**/*.py, by file name) and sample_project/shaders, in a stable order."""
    seeds: list[Seed] = []
    seen: set[bytes] = set()
    helpers = {TESTS_DIR / "fuzz", TESTS_DIR / "harness"}
    for path in sorted((p for p in TESTS_DIR.rglob("*.py") if p.parent not in helpers), key=lambda p: p.name):
        for k, s in enumerate(_strings_in(path)):
            data = s.encode()
            if data not in seen and len(data) < 20000:
                seen.add(data)
                seeds.append(Seed(f"{path.stem}_{k}.hlsl", data))
    for path in sorted(SAMPLE_SHADERS.rglob("*.hlsl")):
        seeds.append(Seed(path.name, path.read_bytes(), (str(SAMPLE_SHADERS), str(path.parent))))
    return seeds


def mutate(rng: random.Random, data: bytes, donors: list[bytes] | None = None) -> tuple[bytes, list[str]]:
    """Apply 1-3 weighted mutations; returns the new bytes and the names of what was applied."""
    names = list(WEIGHTS)
    applied = rng.choices(names, weights=[WEIGHTS[n] for n in names], k=rng.choice((1, 1, 1, 2, 3)))
    for name in applied:
        data = MUTATORS[name](rng, data)
    if donors and rng.random() < 0.1:
        data = splice_lines(rng, data, rng.choice(donors))
        applied.append("splice")
    return data, applied
