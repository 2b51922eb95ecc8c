"""Issue 20, numeric-type gaps left by the audits, executed: `f16tof32` of a float/half argument and the
type of a shift with a 16-bit operand.

DXC's rules (SemaHLSL.cpp): `f16tof32(in uint<> x)` lists uint with no NOCAST marker, so an argument of another
component type (float, half, a float literal) converts to uint by value (ftou) and its low 16 bits are read
as a half; a shift's result has the left operand's element type (no promotion: the amount converts to it, and
the amount is masked to the width's bits), except a literal left operand, which takes uint when the amount is
uint and int otherwise (a 16-bit amount too).  Every shader runs on lavapipe at -O3 and -O0 and its DXIL twin on
the interpreter and through dxil-spirv (res_util); expected values are computed here with the struct module.
"""

from __future__ import annotations

import math
import struct

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]


def f16(x: float) -> float:
    return struct.unpack("<e", struct.pack("<e", x))[0]


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


def bits32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def half_of(u: int) -> float:
    """f16tof32: the low 16 bits of u read as a binary16."""
    return struct.unpack("<e", struct.pack("<H", u & 0xFFFF))[0]


def ftou(x: float) -> int:
    assert 0 <= x < 2**32 and not math.isnan(x)     # the cases stay in range (no saturation rule involved)
    return int(x)


def wrap(x: int, width: int, signed: bool) -> int:
    x &= (1 << width) - 1
    return x - (1 << width) if signed and x >> (width - 1) else x


def table(rows: list[tuple[str, str, int]], ins: dict[str, tuple[str, list]], e16: bool,
          decls: str = "", setup: str = "") -> list[str]:
    """One shader: Out[i] = rows[i]'s expression (a uint); the mismatching rows."""
    types = {"f": "float", "e": "half", "I": "uint", "Q": "uint64_t"}
    lines = ["RWStructuredBuffer<uint> Out : register(u0);"]
    lines += [f"StructuredBuffer<{types[c]}> {n} : register(t{i + 1});" for i, (n, (c, _v)) in enumerate(ins.items())]
    body = "\n".join(f"    Out[{i}] = {e}; // {name}" for i, (name, e, _w) in enumerate(rows))
    src = "\n".join(lines) + "\n" + decls + "\n[numthreads(1, 1, 1)]\nvoid main() {\n" + setup + "\n" + body + "\n}\n"
    specs: dict[str, object] = {n: R.storage(R.pack(c, v)) for n, (c, v) in ins.items()}
    specs["Out"] = R.storage(R.sentinel(len(rows)))
    opts = {"enable_16bit_types": True} if e16 else {}
    got = R.unpack("I", R.cs(src, specs, profile="cs_6_2", **opts)["Out"])[:len(rows)]
    return [f"{name}: got {g:#x}, want {w & 0xFFFFFFFF:#x}" for (name, _e, w), g in zip(rows, got)
            if g != w & 0xFFFFFFFF]


# ---------------------------------------------------------------- f16tof32 of a float or half argument

# 15360 = 0x3C00 (1.0 as a half), 15364 = 0x3C04 (a half rounds it to 15360), 17408.75 = 0x4400 + 0.75
F16_IN = [15360.0, 15364.0, 17408.75, 16384.0, 15872.0]


@pytest.mark.parametrize("e16", [False, True], ids=["no16bit", "enable16bit"])
def test_f16tof32_converts_a_float_argument_to_uint(e16):
    """`f16tof32(h)` with h a half (a float without -enable-16bit-types) was refused ('requires integer
    arguments'); DXC converts the argument to uint by value: f16tof32((half)15360) is 1.0 (0x3C00)."""
    def want(x: float) -> int:
        h = f16(x) if e16 else f32(x)       # the argument's value as a half (a float without the flag)
        return bits32(half_of(ftou(h)))
    rows = []
    for i, x in enumerate(F16_IN):
        # with the flag the half is read from a half buffer: a float -> half -> uint chain loses its rounding
        # in dxil-spirv's output on lavapipe (lang_util.LAVAPIPE_ROUND_TRIP)
        rows.append((f"half_{x}", f"asuint(f16tof32({'H' if e16 else '(half)F'}[{i}]))", want(x)))
        rows.append((f"half_{x}_folded", f"asuint(f16tof32((half){x!r}))", want(x)))
        rows.append((f"float_{x}", f"asuint(f16tof32(F[{i}]))", bits32(half_of(ftou(f32(x))))))
    rows.append(("literal", "asuint(f16tof32(15360.5))", bits32(1.0)))
    rows.append(("vector_y", f"asuint(f16tof32(half2((half)F[0], {'H' if e16 else '(half)F'}[1])).y)",
                 want(F16_IN[1])))
    rows.append(("min16float", f"asuint(f16tof32((min16float){'H' if e16 else 'F'}[1]))", want(F16_IN[1])))
    ins = {"F": ("f", F16_IN)} | ({"H": ("e", [f16(x) for x in F16_IN])} if e16 else {})
    bad = table(rows, ins, e16)
    assert not bad, "\n".join(bad)


def test_f16tof32_of_a_half_is_not_a_bit_reinterpretation():
    """The conversion is by value, not of the half's bits: 1.0h (bits 0x3C00) converts to uint 1, whose half
    is 2**-24 (0 if a denormal is flushed): below 1e-6 either way, where the bits would give 1.0."""
    rows = [("one", "(uint)(f16tof32((half)F[0]) < 0.000001f)", 1),
            ("one_folded", "(uint)(f16tof32(1.0h) < 0.000001f)", 1)]
    bad = table(rows, {"F": ("f", [1.0])}, True)
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- shifts with a 16-bit operand

U = [1, 17, 16, 0x8001, 31, 3]           # read as uint (and cast to 16 bits where a row says so)
Q = [0x1_0000_0011]                      # a 64-bit amount whose low 16 bits are 17


def _shift_rows() -> list[tuple[str, str, int]]:
    rows: list[tuple[str, str, int]] = []

    def both(name: str, runtime: str, folded: str, want: int) -> None:
        rows.extend([(name, runtime, want), (name + "_folded", folded, want)])

    # uint16_t << uint: the result is uint16_t (wraps at 16 bits), the amount masked to 4 bits
    both("u16_shl_u32_17", "(uint)((uint16_t)U[0] << U[1])", "(uint)((uint16_t)1 << 17u)", 1 << (17 & 15))
    both("u16_shl_u32_16", "(uint)((uint16_t)U[0] << U[2])", "(uint)((uint16_t)1 << 16u)", 1)
    both("u16_shl_wraps", "(uint)((uint16_t)U[3] << U[0])", "(uint)((uint16_t)0x8001 << 1u)",
         wrap(0x8001 << 1, 16, False))
    both("u16_shl_u16", "(uint)((uint16_t)U[3] << (uint16_t)U[0])", "(uint)((uint16_t)0x8001 << (uint16_t)1)",
         wrap(0x8001 << 1, 16, False))
    both("u16_shl_literal", "(uint)((uint16_t)U[5] << 17)", "(uint)((uint16_t)3 << 17)", 3 << 1)
    # a 64-bit amount converts to the 16-bit left type, then is masked: 0x1_0000_0011 -> 17 -> 1
    both("u16_shl_u64", "(uint)((uint16_t)U[5] << Q[0])", f"(uint)((uint16_t)3 << {Q[0]:#x}ull)", 3 << 1)
    both("u16_shr_u64", "(uint)((uint16_t)U[3] >> Q[0])", f"(uint)((uint16_t)0x8001 >> {Q[0]:#x}ull)", 0x8001 >> 1)
    # int16_t keeps its sign: an arithmetic shift, and a left shift into bit 15 is negative
    both("i16_shr_u32", "(uint)(int)((int16_t)-32768 >> U[1])", "(uint)(int)((int16_t)-32768 >> 17u)",
         -32768 >> 1)
    both("i16_shl_sign", "(uint)(((int16_t)U[0] << (U[2] - 1u)) < 0)", "(uint)(((int16_t)1 << 15u) < 0)", 1)
    # a 32- or 64-bit left operand keeps its type under a 16-bit amount
    both("u32_shl_u16", "(U[0] << (uint16_t)U[4])", "(1u << (uint16_t)31)", 1 << 31)
    both("u64_shl_u16_high", "(uint)(((uint64_t)U[0] << (uint16_t)U[4] + 1) >> 32)",
         "(uint)(((uint64_t)1 << (uint16_t)32) >> 32)", 1)
    # a literal left operand is int under a 16-bit amount (uint only under a uint amount)
    both("lit_shl_u16_signed", "(uint)((1 << (uint16_t)U[4]) < 0)", "(uint)((1 << (uint16_t)31) < 0)", 1)
    both("lit_shl_u32_unsigned", "(uint)((1 << U[4]) < 0)", "(uint)((1 << 31u) < 0)", 0)
    # the result's size: the left operand's width
    rows.append(("sizes", "sizeof((uint16_t)1 << 1u) + 10 * sizeof((int16_t)1 << (uint64_t)1) + "
                 "100 * sizeof(1u << (uint16_t)1) + 1000 * sizeof((uint64_t)1 << (uint16_t)1) + "
                 "10000 * sizeof(1 << (uint16_t)1)", 2 + 20 + 400 + 8000 + 40000))
    # vectors: a vector of uint16_t by a scalar amount, a scalar uint16_t by a vector amount (splatted)
    both("vec_u16_shl", "(uint)((uint16_t2)U[3] << U[0]).y", "(uint)((uint16_t2)0x8001 << 1u).y",
         wrap(0x8001 << 1, 16, False))
    both("u16_shl_vec", "(uint)((uint16_t)U[5] << uint2(U[0], U[1])).y", "(uint)((uint16_t)3 << uint2(1, 17)).y",
         3 << 1)
    rows.append(("vec_size", "sizeof((uint16_t)1 << uint3(1, 2, 3))", 6))
    # compound assignment: the same 16-bit shift
    rows.append(("compound", "Compound(U[5], U[1])", 3 << 1))
    return rows


def test_shifts_keep_the_16_bit_left_operand_type():
    """DXC does not promote a 16-bit left operand to int (C++ would): `(uint16_t)1 << 17u` is 2 (the amount
    converts to uint16_t and is masked to 4 bits), `(uint16_t)0x8001 << 1` wraps to 2, and the amount's width
    (16, 32 or 64 bits) never changes the result type; a literal left operand is int under a 16-bit amount."""
    decls = "uint Compound(uint v, uint n) { uint16_t x = (uint16_t)v; x <<= n; return x; }\n"
    bad = table(_shift_rows(), {"U": ("I", U), "Q": ("Q", Q)}, True, decls)
    assert not bad, "\n".join(bad)


# ---------------------------------------------------------------- overloads apart only by half/min-precision

# DXC gives half, min16float, min10float, min16int, min12int and min16uint types of their own in its AST (with or
# without -enable-16bit-types), so overloads on them are distinct and a call picks the one its argument is
# spelled as; our IR shares one type among them (float without the flag, half with it).
OVERLOADS = """
uint F(float x) { return 100 + (uint)x; }
uint F(half x) { return 200 + (uint)x; }
uint F(min16float x) { return 300 + (uint)x; }
uint F(min10float x) { return 400 + (uint)x; }
uint G(int x) { return 100 + (uint)x; }
uint G(min16int x) { return 200 + (uint)x; }
uint G(min12int x) { return 300 + (uint)x; }
uint W(uint x) { return 100 + x; }
uint W(min16uint x) { return 200 + (uint)x; }
uint V(float2 v) { return 100 + (uint)v.y; }
uint V(half2 v) { return 200 + (uint)v.y; }
static const half KH = 5;
"""


@pytest.mark.parametrize("e16", [False, True], ids=["no16bit", "enable16bit"])
def test_overloads_apart_only_by_precision_spelling(e16):
    """`f(float)` and `f(half)` (and min16float, min10float; int, min16int, min12int) were refused as a
    redefinition where the IR types coincide; each is now its own overload, and a call picks the one spelled
    like its argument (a variable's declared type, a cast, a constructor, an `h`/`f` literal, arithmetic)."""
    rows = [("float_var", "F(vf)", 103), ("half_var", "F(vh)", 203), ("min16_var", "F(vm)", 303),
            ("min10_var", "F(vt)", 403), ("half_cast", "F((half)I[0])", 203), ("float_cast", "F((float)I[0])", 103),
            ("min16_cast", "F((min16float)I[0])", 303), ("half_literal", "F(3.0h)", 203), ("float_literal", "F(3.0f)", 103),
            ("half_arith", "F(vh * 2.0 + vh)", 209), ("half_neg_sum", "F(-vh + vh + vh)", 203),
            ("half_static", "F(KH)", 205), ("int_var", "G(vi)", 103), ("min16int_var", "G(vn)", 203),
            ("min12int_cast", "G((min12int)I[0])", 303), ("min16int_arith", "G(vn * 2)", 206),
            ("float2", "V(float2(vf, vf))", 103), ("half2", "V(half2(vh, vh))", 203), ("half2_var", "V(v2)", 203),
            ("param", "Twice(vh)", 406),
            ("uint_element", "W(I[0])", 103), ("min16uint_cast", "W((min16uint)I[0])", 203),
            ("half_swizzle", "F(v2.y)", 203), ("half2_swizzle", "V(v2.yx)", 203), ("half_index", "F(v2[1])", 203),
            ("min16int_array", "G(an[1])", 203), ("typedef_prototype", "Q()", 11)]
    # a prototype written with a typedef still declares the definition written with the type's name
    decls = OVERLOADS + ("uint Twice(half p) { return F(p) + F(p); }\n"
                         "typedef half H;\nuint P(H x);\nuint Q() { return P(4.0f); }\nuint P(half x) { return 7 + (uint)x; }\n")
    setup = ("float vf = (float)I[0]; half vh = (half)I[0]; min16float vm = (min16float)I[0]; "
             "min10float vt = (min10float)I[0]; int vi = (int)I[0]; min16int vn = (min16int)I[0]; "
             "half2 v2 = (half2)vh; min16int an[2] = {vn, vn};")
    bad = table(rows, {"I": ("I", [3])}, e16, decls, setup)
    assert not bad, "\n".join(bad)


REFUSED = [
    # the argument's spelling is not written where the call can see it (a call's result): ambiguous, not guessed
    (False, "uint F(float x) { return 1; }\nuint F(half x) { return 2; }\n", "Out[0] = F(sqrt(B[0]));",
     "7:14: call to 'F' is ambiguous"),
    # an unsuffixed literal fits every float type, as in DXC
    (False, "uint F(float x) { return 1; }\nuint F(min16float x) { return 2; }\n", "Out[0] = F(1.5);",
     "7:14: call to 'F' is ambiguous"),
    # the same spelling twice is still a redefinition; float16_t is half (with the flag)
    (False, "uint F(half x) { return 1; }\nuint F(half y) { return 2; }\n", "Out[0] = 0;",
     "4:6: redefinition of 'F'"),
    (True, "uint F(half x) { return 1; }\nuint F(float16_t y) { return 2; }\n", "Out[0] = 0;",
     "4:6: redefinition of 'F'"),
]


@pytest.mark.parametrize("e16, decls, stmt, want", REFUSED, ids=["buffer_arg", "literal_arg", "same", "float16_t"])
def test_precision_overload_refusals(e16, decls, stmt, want):
    src = ("RWStructuredBuffer<uint> Out : register(u0);\nStructuredBuffer<float> B : register(t0);\n" + decls +
           "[numthreads(1, 1, 1)]\nvoid main() {\n    " + stmt + "\n}\n")
    opts = {"enable_16bit_types": True} if e16 else {}
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, profile="cs_6_2", target=target, **opts)
        assert R.errors(res)[:1] == [want], (target, R.diagnostics_text(res))
