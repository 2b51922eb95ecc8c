"""Mutations of our own shaders: token deletion/duplication/swap/replacement, truncation,
random bytes, huge literals, deep nesting, line-ending and BOM changes, line splicing, and
grammar-aware edits (a type for another type, a literal for an identifier, template and attribute
arguments, semantics, registers, a declaration nested in a namespace or struct).

Seeds are the complete shaders embedded in tests/*.py (compute, and mesh, amplification, ray-tracing
library, geometry, hull, domain, vertex and pixel shaders, each with the profile and entry its text
implies: `stage_options`) and the sample project's shaders.  All randomness comes from a `random.Random`,
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
TYPES = (b"int", b"uint", b"float", b"bool", b"half", b"double", b"int64_t", b"uint64_t", b"int16_t", b"uint16_t",
         b"float16_t", b"min16float", b"min16int", b"float2", b"float3", b"float4", b"int2", b"int4", b"uint3",
         b"bool2", b"half4", b"double2", b"float2x2", b"float3x4", b"float4x4", b"int2x3", b"void", b"uint4",
         b"vector<float, 3>", b"matrix<int, 2, 2>", b"RWStructuredBuffer<int>", b"Texture2D", b"SamplerState",
         b"RayDesc", b"BuiltInTriangleIntersectionAttributes", b"string", b"S", b"Undeclared")
SEMANTICS = (b"SV_Position", b"SV_Target", b"SV_Target7", b"SV_Target8", b"SV_Depth", b"SV_Coverage",
             b"SV_DispatchThreadID", b"SV_GroupID", b"SV_GroupThreadID", b"SV_GroupIndex", b"SV_VertexID",
             b"SV_InstanceID", b"SV_PrimitiveID", b"SV_IsFrontFace", b"SV_SampleIndex", b"SV_ClipDistance3",
             b"SV_CullDistance", b"SV_RenderTargetArrayIndex", b"SV_ViewportArrayIndex", b"SV_GSInstanceID",
             b"SV_OutputControlPointID", b"SV_DomainLocation", b"SV_TessFactor", b"SV_InsideTessFactor",
             b"SV_CullPrimitive", b"SV_ShadingRate", b"SV_ViewID", b"SV_Barycentrics", b"SV_StencilRef",
             b"TEXCOORD", b"TEXCOORD99", b"COLOR0", b"SV_Bogus", b"SV_Target-1", b"A4294967296")
_TYPE_TOKENS = frozenset(t for t in TYPES if t.decode().isidentifier()) | {
    b"float1", b"int3", b"uint2", b"bool3", b"bool4", b"half2", b"half3", b"double3", b"double4", b"float3x3",
    b"min16uint", b"uint4x4", b"int4x4", b"dword", b"float32_t", b"int32_t", b"uint32_t", b"float64_t"}
_TEMPLATE_ARGS = re.compile(rb"\b(\w+)\s*<([^<>;{}()]*)>")
_ATTRIBUTE = re.compile(rb"\[\s*(\w+)\s*\(([^()\[\]]*)\)\s*\]")
_SEMANTIC = re.compile(rb"\)?\s*:\s*([A-Za-z_]\w*)(?=\s*[;,){=])")
_REGISTER = re.compile(rb"\b(register\s*\(\s*)([a-zA-Z])(\d+)(\s*(?:,\s*space\d+)?\s*\))")
_NOT_SEMANTICS = frozenset((b"register", b"packoffset", b"public", b"private", b"default"))


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


def _pick_edit(rng: random.Random, data: bytes, pattern: re.Pattern[bytes],
               edit: Callable[[random.Random, re.Match[bytes]], bytes], fallback: bytes) -> bytes:
    """Rewrite one random match of `pattern` with `edit`; with no match, append `fallback` (so the
    mutator still does something on any input)."""
    found = [m for m in pattern.finditer(data) if m.group(1) not in _NOT_SEMANTICS]
    if not found:
        return data + fallback
    m = rng.choice(found)
    return data[:m.start()] + edit(rng, m) + data[m.end():]


def swap_type(rng: random.Random, data: bytes) -> bytes:
    """A type name becomes another type (scalar, vector, matrix, object, 16/64-bit, user, unknown)."""
    toks = _tokens(data)
    types = [i for i, t in enumerate(toks) if t in _TYPE_TOKENS]
    if not types:
        return data + b"\nstatic " + rng.choice(TYPES) + b" T = 1;\n"
    i = rng.choice(types)
    toks[i] = rng.choice([t for t in TYPES if t != toks[i]])
    return b"".join(toks)


def literal_to_identifier(rng: random.Random, data: bytes) -> bytes:
    """A numeric literal becomes an identifier of the program (often a type, a function or a
    resource in a constant's place) or an undeclared one."""
    toks = _tokens(data)
    nums = [i for i, t in enumerate(toks) if _NUMBER.match(t)]
    idents = sorted({t for t in toks if t[:1].isalpha() or t[:1] == b"_"})
    if not nums:
        return data + b"\nstatic const int L = " + (rng.choice(idents) if idents else b"L") + b";\n"
    toks[rng.choice(nums)] = rng.choice(idents) if idents and rng.random() < 0.8 else b"undeclared_name"
    return b"".join(toks)


def _split_args(text: bytes) -> list[bytes]:
    return text.split(b",") if text.strip() else []


def template_argument(rng: random.Random, data: bytes) -> bytes:
    """Drop, duplicate, empty or replace the arguments of one `Name<...>`."""
    def edit(rng: random.Random, m: re.Match[bytes]) -> bytes:
        args = _split_args(m.group(2))
        k = rng.randrange(5)
        if k == 0 and args:
            del args[rng.randrange(len(args))]
        elif k == 1 and args:
            j = rng.randrange(len(args))
            args.insert(j, args[j])
        elif k == 2:
            args = []
        elif k == 3:
            args.append(rng.choice((b" 0", b" 5", b" -1", b" 4294967297", b" float", b" S", b" 1.5")))
        else:
            if args:
                args[rng.randrange(len(args))] = b" " + rng.choice(TYPES + (b"3", b"0", b"-2", b"99"))
            else:
                args = [rng.choice(TYPES)]
        return m.group(1) + b"<" + b",".join(args) + b">"
    return _pick_edit(rng, data, _TEMPLATE_ARGS, edit, b"\nRWStructuredBuffer<int, int> TA;\n")


def attribute_argument(rng: random.Random, data: bytes) -> bytes:
    """Drop, duplicate, empty or replace an argument of one `[name(args)]` attribute, or the attribute."""
    def edit(rng: random.Random, m: re.Match[bytes]) -> bytes:
        args = _split_args(m.group(2))
        k = rng.randrange(6)
        if k == 0 and args:
            del args[rng.randrange(len(args))]
        elif k == 1 and args:
            j = rng.randrange(len(args))
            args.insert(j, args[j])
        elif k == 2:
            args = []
        elif k == 3:
            return b""
        elif k == 4:
            return m.group(0) + m.group(0)
        else:
            new = rng.choice((b"0", b"-1", b"1025", b"4294967296", b"1.5", b'"bogus"', b'""', b"x", b"true", b"N"))
            if args:
                args[rng.randrange(len(args))] = new
            else:
                args = [new]
        return b"[" + m.group(1) + b"(" + b",".join(args) + b")]"
    return _pick_edit(rng, data, _ATTRIBUTE, edit, b"\n[numthreads(0, 1)]\nvoid extra() {}\n")


def semantic(rng: random.Random, data: bytes) -> bytes:
    """Drop, duplicate or replace one `: SEMANTIC` on a parameter, field or function."""
    def edit(rng: random.Random, m: re.Match[bytes]) -> bytes:
        head = m.group(0)[:m.start(1) - m.start()]
        k = rng.randrange(3)
        if k == 0:
            return head.split(b":")[0]
        if k == 1:
            return m.group(0) + b" : " + rng.choice(SEMANTICS)
        return head + rng.choice(SEMANTICS)
    return _pick_edit(rng, data, _SEMANTIC, edit, b"\nstatic int SEM : SV_Position;\n")


def register(rng: random.Random, data: bytes) -> bytes:
    """Change one `register(xN)`: its class, its number, its space, or drop or duplicate it."""
    def edit(rng: random.Random, m: re.Match[bytes]) -> bytes:
        head, cls, num, tail = m.groups()
        k = rng.randrange(5)
        if k == 0:
            cls = rng.choice([c for c in (b"b", b"t", b"u", b"s", b"c", b"z", b"x") if c != cls.lower()])
        elif k == 1:
            num = rng.choice([n for n in (b"0", b"1", b"7", b"64", b"4294967295", b"4294967296", b"99999999999")
                              if n != num])
        elif k == 2:
            tail = rng.choice((b", space1)", b", space4294967296)", b", spaceX)", b", space0, space1)", b",)"))
        elif k == 3:
            return b"__fuzz_dropped_register__"
        else:
            return m.group(0) + b" : " + m.group(0)
        return head + cls + num + tail
    out = _pick_edit(rng, data, _REGISTER, edit, b"\nRWStructuredBuffer<int> REG : register(u0) : register(t0);\n")
    return out.replace(b": __fuzz_dropped_register__", b"").replace(b"__fuzz_dropped_register__", b"")


def _top_level_items(toks: list[bytes]) -> list[tuple[int, int]]:
    """(first, last) token index of each top-level declaration: a `;` or a closing `}` at depth 0
    ends one (a `;` right after that `}` belongs to it)."""
    items, depth, start = [], 0, None
    for i, t in enumerate(toks):
        if t.isspace() or t.startswith((b"//", b"/*", b"#")):
            continue
        if start is None:
            start = i
        if t in (b"{", b"(", b"["):
            depth += 1
        elif t in (b"}", b")", b"]"):
            depth -= 1
            if depth == 0 and t == b"}":
                nxt = next((j for j in range(i + 1, len(toks)) if not toks[j].isspace()), None)
                if nxt is None or toks[nxt] != b";":
                    items.append((start, i))
                    start = None
        elif t == b";" and depth == 0:
            items.append((start, i))
            start = None
        if depth < 0:
            return items
    return items


def nest_declaration(rng: random.Random, data: bytes) -> bytes:
    """Wrap one top-level declaration in a namespace or a struct (then its uses no longer find it,
    or a function or resource becomes a member)."""
    toks = _tokens(data)
    items = _top_level_items(toks)
    if not items:
        return b"namespace N {\n" + data + b"\n}\n"
    first, last = rng.choice(items)
    opener, closer = rng.choice(((b"namespace Nz {\n", b"\n}\n"), (b"struct Wz {\n", b"\n};\n"),
                                 (b"namespace Nz { namespace Ny {\n", b"\n} }\n"), (b"cbuffer CBz {\n", b"\n};\n")))
    toks[first] = opener + toks[first]
    toks[last] = toks[last] + closer
    return b"".join(toks)


MUTATORS: dict[str, Callable[[random.Random, bytes], bytes]] = {
    "delete": delete_tokens, "duplicate": duplicate_token, "swap": swap_tokens, "replace": replace_token,
    "truncate": truncate, "bytes": random_bytes, "huge_literal": huge_literal, "deep_nesting": deep_nesting,
    "deep_types": deep_types, "line_endings": line_endings, "swap_type": swap_type,
    "literal_to_identifier": literal_to_identifier, "template_argument": template_argument,
    "attribute_argument": attribute_argument, "semantic": semantic, "register": register,
    "nest_declaration": nest_declaration,
}
# token edits dominate; the expensive ones (deep nesting, huge types) are rarer
WEIGHTS = {"delete": 6, "duplicate": 4, "swap": 4, "replace": 6, "truncate": 3, "bytes": 3, "huge_literal": 3,
           "deep_nesting": 2, "deep_types": 1, "line_endings": 1, "swap_type": 4, "literal_to_identifier": 3,
           "template_argument": 3, "attribute_argument": 3, "semantic": 3, "register": 2, "nest_declaration": 2}


@dataclass(frozen=True)
class Seed:
    name: str
    data: bytes
    include_dirs: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()   # CompileOptions fields the seed's stage needs (profile, entry, env)
    weight: int = 1                              # how often the campaign picks it, relative to the others

    def compile_options(self) -> dict:
        opts: dict = dict(self.options)
        if self.include_dirs:
            opts["include_dirs"] = list(self.include_dirs)
        return opts


STUB_MAIN = "\nRWStructuredBuffer<int> FuzzOut : register(u7);\n[numthreads(1, 1, 1)]\nvoid main() { FuzzOut[0] = 1; }\n"
_HLSL_HINT = re.compile(r"[;{]\s*\n.*[;}]", re.S)
# the function an attribute block introduces: `[a(...)] [b(...)] Type name(`
_ENTRY_AFTER = re.compile(r"\)\s*\]\s*(?:\[[^\]]*\]\s*)*(?:\w+(?:<[^>]*>)?\s+)+(\w+)\s*\(")
_RT = re.compile(r'\[\s*shader\s*\(\s*"(?:raygeneration|closesthit|anyhit|miss|intersection|callable)"')
# (what in the text marks the stage, profile, SPIR-V environment); the first rule that matches wins
STAGE_RULES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (_RT, "lib_6_5", "vulkan1.2"),
    (re.compile(r"\[\s*outputcontrolpoints\s*\("), "hs_6_0", ""),     # before mesh: hull shaders name a topology too
    (re.compile(r"\bDispatchMesh\s*\("), "as_6_5", "vulkan1.2"),
    (re.compile(r"\[\s*outputtopology\s*\("), "ms_6_5", "vulkan1.2"),
    (re.compile(r"\[\s*maxvertexcount\s*\("), "gs_6_0", ""),
    (re.compile(r"\[\s*domain\s*\("), "ds_6_0", ""),
    (re.compile(r"\[\s*numthreads\s*\("), "cs_6_0", ""),
    (re.compile(r"\bSV_Target"), "ps_6_0", ""),
    (re.compile(r"\bSV_Position\b"), "vs_6_0", ""),
)


def stage_options(text: str) -> dict[str, str] | None:
    """The profile, entry and SPIR-V environment a test's shader text implies, or None when it is
    no complete shader (no stage marker, or no entry function to name)."""
    for pattern, profile, env in STAGE_RULES:
        m = pattern.search(text)
        if m is None:
            continue
        opts = {"profile": profile}
        if env:
            opts["vk_target_env"] = env
        if profile.startswith("lib"):
            opts["entry"] = ""
        elif profile[:2] in ("ps", "vs"):
            if not re.search(r"\bmain\s*\(", text):
                return None
        else:
            entry = _ENTRY_AFTER.search(text, m.start())
            if entry is None:
                return None
            if entry.group(1) != "main":
                opts["entry"] = entry.group(1)
        return opts
    return None


def _strings_in(path: Path) -> list[tuple[str, dict[str, str]]]:
    """Complete shaders with their stage's options, and HLSL fragments (helper preludes) completed
    with a stub compute entry point."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError):
        return []
    out = []
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Constant) and isinstance(n.value, str)) or len(n.value) < 40:
            continue
        opts = stage_options(n.value)
        if opts is not None:
            out.append((n.value, {k: v for k, v in opts.items() if k != "profile" or v != "cs_6_0"}))
        elif len(n.value) > 60 and _HLSL_HINT.search(n.value) and "def " not in n.value and "void main" not in n.value:
            out.append((n.value + STUB_MAIN, {}))
    return out


NEWEST = re.compile(r"9b?$")   # the last session's test modules (test_*9.py, test_*9b.py) reach the newest rules


def load_seeds() -> list[Seed]:
    """Complete shaders from the test files (tests/**/*.py, by file name) and sample_project/shaders,
    in a stable order.  Non-compute stages and the newest modules weigh more: most seeds are compute."""
    seeds: list[Seed] = []
    seen: set[bytes] = set()
    helpers = {TESTS_DIR / "fuzz", TESTS_DIR / "harness"}
    for path in sorted((p for p in TESTS_DIR.rglob("*.py") if p.parent not in helpers), key=lambda p: p.name):
        for k, (s, opts) in enumerate(_strings_in(path)):
            data = s.encode()
            if data not in seen and len(data) < 20000:
                seen.add(data)
                weight = (3 if "profile" in opts else 1) * (2 if NEWEST.search(path.stem) else 1)
                seeds.append(Seed(f"{path.stem}_{k}.hlsl", data, (), tuple(sorted(opts.items())), weight))
    for path in sorted(SAMPLE_SHADERS.rglob("*.hlsl")):
        seeds.append(Seed(path.name, path.read_bytes(), (str(SAMPLE_SHADERS), str(path.parent))))
    return seeds


GRAMMAR = ("swap_type", "literal_to_identifier", "template_argument", "attribute_argument", "semantic", "register",
           "nest_declaration")


def mutate_grammar(rng: random.Random, data: bytes) -> tuple[bytes, list[str]]:
    """1-3 grammar-aware mutations only: the input mostly still parses, so they reach sema, the entry
    wrapper and the backends (most token-level mutants stop at the parser)."""
    applied = [rng.choice(GRAMMAR) for _ in range(rng.choice((1, 1, 2, 3)))]
    for name in applied:
        data = MUTATORS[name](rng, data)
    return data, applied


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
