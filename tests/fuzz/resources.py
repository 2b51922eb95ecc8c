"""Inputs aimed at resource limits (issue 21): special files, huge includes, deep nesting.

Every input must end like any other fuzz input: a valid binary or a located error, within the
per-input timeout and the worker's memory limit (no hang, no crash, no traceback).

* special files: `#include` of /dev/zero, /dev/urandom, a FIFO or a directory;
* huge includes: a large header included many times, directly or through a file that includes
  itself, so the total preprocessed text (not one file) is what grows;
* deep nesting: one construct (calls, constructors, parentheses, unary operators, casts, member
  and index chains, blocks, if/for/while, templates, arrays) nested from a few levels to far
  beyond the limit, plus very long identifiers.

The files the inputs name are created once in `scratch` (a FIFO cannot live in the input text).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path

from .runner import FuzzInput

HEAD = "RWStructuredBuffer<float> O : register(u0);\nfloat f(float x) { return x; }\n"
BODY = "[numthreads(1, 1, 1)]\nvoid main() {\n{body}\n}\n"

# construct -> (opening, innermost, closing) pieces; nested `depth` times
NESTERS: dict[str, tuple[str, str, str]] = {
    "intrinsic_call": ("abs(", "1.0", ")"),
    "user_call": ("f(", "1.0", ")"),
    "constructor": ("float(", "1.0", ")"),
    "vector_constructor": ("float2(", "1.0", ", 1.0).x"),
    "parentheses": ("(", "1.0", ")"),
    "unary_minus": ("-", "1.0", ""),
    "cast": ("(float)", "1", ""),
    "conditional": ("true ? (", "1.0", ") : 0.0"),
    "member_chain": ("", "1.0", ".x"),
    "index_chain": ("", "float4(1, 2, 3, 4)", "[0]"),
}
STATEMENT_NESTERS: dict[str, tuple[str, str]] = {
    "block": ("{", "}"),
    "if": ("if (O[0] > 0.0) {", "}"),
    "for": ("for (int i = 0; i < 1; ++i) {", "}"),
    "while": ("while (O[0] > 1.0) {", "}"),
}


def _program(body: str, before: str = "") -> str:
    return before + HEAD + BODY.replace("{body}", body)


def _depth(rng: random.Random) -> int:
    return rng.choice([1, 8, 60, 127, 128, 129, 200, 1000, 5000, rng.randint(2, 20000)])


def prepare_scratch(scratch: Path) -> dict[str, str]:
    """Files the inputs include: a FIFO, a directory, a 2 MiB header, a self-including header."""
    scratch.mkdir(parents=True, exist_ok=True)
    fifo = scratch / "pipe.hlsli"
    if not fifo.exists():
        os.mkfifo(fifo)
    (scratch / "dir.hlsli").mkdir(exist_ok=True)
    big = scratch / "big.hlsli"
    if not big.exists():
        big.write_text("".join(f"static const float big_{i} = {i}.0;\n" for i in range(4)) + "// " + "x" * (2 << 20)
                       + "\n")
    (scratch / "self.hlsli").write_text('#include "big.hlsli"\n#include "self.hlsli"\n')
    return {"fifo": str(fifo), "dir": str(scratch / "dir.hlsli"), "big": str(big),
            "self": str(scratch / "self.hlsli"), "zero": "/dev/zero", "urandom": "/dev/urandom"}


def special_file(rng: random.Random, files: dict[str, str]) -> tuple[str, str]:
    kind = rng.choice(["fifo", "dir", "zero", "urandom"])
    line = rng.randint(0, 3)
    return kind, "\n" * line + f'#include "{files[kind]}"\n' + _program("O[0] = 1.0;")


def huge_include(rng: random.Random, files: dict[str, str]) -> tuple[str, str]:
    if rng.random() < 0.5:
        return "self_include", f'#include "{files["self"]}"\n' + _program("O[0] = big_1;")
    n = rng.choice([1, 4, 9, 40, 200])
    guard = rng.random() < 0.3     # with #pragma once-like guards the text is read once
    text = "".join(f'#include "{files["big"]}"\n' for _ in range(n))
    if guard:
        text = "#pragma once\n" + text
    return f"big_x{n}", text + _program("O[0] = big_1;")


def deep_nesting(rng: random.Random) -> tuple[str, str]:
    roll = rng.random()
    depth = _depth(rng)
    if roll < 0.6:
        name, (open_, inner, close) = rng.choice(list(NESTERS.items()))
        if name.endswith("chain"):
            expr = inner + close * depth
        else:
            expr = open_ * depth + inner + close * depth
        return f"{name}_{depth}", _program(f"O[0] = {expr};")
    if roll < 0.8:
        name, (open_, close) = rng.choice(list(STATEMENT_NESTERS.items()))
        return f"{name}_{depth}", _program(open_ * depth + "O[0] = 1.0;" + close * depth)
    if roll < 0.9:
        return f"template_{depth}", _program("O[0] = 1.0;", "typedef " + "vector<" * depth + "float"
                                              + ", 1>" * depth + " T;\n")
    length = rng.choice([1000, 100_000, 131_072, 131_073, 300_000])
    return f"identifier_{length}", _program(f"float {'v' * length} = 1.0;\nO[0] = 1.0;")


GENERATORS = {"special_file": special_file, "huge_include": huge_include, "deep_nesting": deep_nesting}


def make_inputs(count: int, seed: int, scratch: Path) -> Iterator[FuzzInput]:
    """`count` inputs cycling through the three generators; input i depends only on (seed, i)."""
    files = prepare_scratch(scratch)
    names = sorted(GENERATORS)
    for i in range(count):
        rng = random.Random(f"{seed}:resources:{i}")
        kind = names[i % len(names)]
        gen = GENERATORS[kind]
        label, text = gen(rng) if kind == "deep_nesting" else gen(rng, files)
        yield FuzzInput(f"res_{i}.hlsl", text.encode(), f"resources {kind} {label} seed={seed} i={i}")
