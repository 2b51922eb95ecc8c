"""RWByteAddressBuffer atomics (Interlocked* methods), Load<S>/Store<S> of structs and Load<M>/Store<M> of
matrices (stored column_major, as DXC assumes on both targets), executed on
lavapipe (SPIR-V) and through the DXIL interpreter, plus the dx.op calls and manifest of the DXIL build.

SPIR-V: OpAtomic* on the uint word at index byteOffset/4 (DXC's mapping); DXIL: atomicBinOp (78) /
atomicCompareExchange (79) on the raw buffer handle with coord0 = byte offset.  Load<S>/Store<S> use
the StructuredBuffer (dx_structured) layout of S, lowered to per-member loads/stores.
"""

from __future__ import annotations

import re
import struct

import pytest
import res_util as R


def run_dxil_b(res, data: bytes, groups=(1, 1, 1)) -> bytes:
    """Run a DXIL build whose one resource is the byte-address buffer B on the interpreter;
    B's final bytes.  (Bound by the manifest's HLSL view.)"""
    from harness import dxil_exec
    h = R.resource(res.manifest, "B")["hlsl"]
    (out,) = dxil_exec.run_dxil_compute(res.binary, "main", [(h["register"], h["space"], h["class"], data)],
                                        groups=groups)
    return out

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]


class Case:
    def __init__(self, cid, src, init, want, groups=(1, 1, 1), code="i", atomics=()):
        self.id, self.src, self.init, self.want, self.groups, self.code = cid, src, init, want, groups, code
        self.atomics = atomics      # expected (dx.op name, atomic op code or None) in the DXIL


def _i(values):
    return R.pack("i", values)


U = 0xFFFFFFFF

CASES = [
    Case("add-and-or-xor", """
RWByteAddressBuffer B : register(u0);
[numthreads(1,1,1)] void main() {
  uint o;
  B.InterlockedAdd(0, 5);       B.InterlockedAdd(4, 7, o);  B.Store(32, o);
  B.InterlockedAnd(8, 0xF0);    B.InterlockedAnd(12, 6, o); B.Store(36, o);
  B.InterlockedOr(16, 0x11);    B.InterlockedOr(20, 8, o);  B.Store(40, o);
  B.InterlockedXor(24, 0xFF);   B.InterlockedXor(28, 3, o); B.Store(44, o);
}""", [10, 20, 0xABC, 0xE, 0x100, 1, 0x0F, 5, 0, 0, 0, 0],
        [15, 27, 0xB0, 6, 0x111, 9, 0xF0, 6, 20, 0xE, 1, 5],
        atomics=[("atomicBinOp", 0), ("atomicBinOp", 1), ("atomicBinOp", 2), ("atomicBinOp", 3)]),
    Case("signed-min-max", """
RWByteAddressBuffer B : register(u0);
[numthreads(1,1,1)] void main() {
  int o;
  B.InterlockedMin(0, -7);      B.InterlockedMin(4, -2, o);  B.Store(16, (uint)o);
  B.InterlockedMax(8, -9);      B.InterlockedMax(12, 4, o);  B.Store(20, (uint)o);
}""", [1, -5, -20, -3, 0, 0],
        [-7, -5, -9, 4, -5, -3],
        atomics=[("atomicBinOp", 4), ("atomicBinOp", 5)]),
    Case("unsigned-min-max", """
RWByteAddressBuffer B : register(u0);
[numthreads(1,1,1)] void main() {
  uint o;
  B.InterlockedMin(0, 7u);      B.InterlockedMin(4, 3u, o);  B.Store(16, o);
  B.InterlockedMax(8, 2u, o);   B.Store(20, o);  B.InterlockedMax(12, 0x80000000u);
}""", [-1, 9, -1, 5, 0, 0],
        # unsigned: 0xFFFFFFFF is the largest value, not -1
        [7, 3, -1, -0x80000000, 9, -1],
        atomics=[("atomicBinOp", 6), ("atomicBinOp", 7)]),
    Case("exchange", """
RWByteAddressBuffer B : register(u0);
[numthreads(1,1,1)] void main() {
  uint o;
  B.InterlockedExchange(0, 42, o);  B.InterlockedExchange(4, 43, o);  B.Store(8, o);
}""", [1, 2, 0], [42, 43, 2], atomics=[("atomicBinOp", 8)]),
    Case("compare-exchange-store", """
RWByteAddressBuffer B : register(u0);
[numthreads(1,1,1)] void main() {
  uint o1, o2;
  B.InterlockedCompareExchange(0, 9, 11, o1);   // succeeds: 9 == 9
  B.InterlockedCompareExchange(4, 9, 12, o2);   // fails: 5 != 9
  B.Store(16, o1); B.Store(20, o2);
  B.InterlockedCompareStore(8, 1, 2);           // succeeds
  B.InterlockedCompareStore(12, 1, 3);          // fails
}""", [9, 5, 1, 4, 0, 0], [11, 5, 2, 4, 9, 5], atomics=[("atomicCompareExchange", None)]),
    Case("contended-add", """
RWByteAddressBuffer B : register(u0);
[numthreads(64,1,1)] void main(uint3 t : SV_DispatchThreadID) {
  uint o;
  B.InterlockedAdd(4, t.x + 1, o);
  B.InterlockedMax(8, o);
  B.InterlockedAdd(0, 1);
}""", [0, 0, 0], [256, sum(range(1, 257)), None], groups=(4, 1, 1), atomics=[("atomicBinOp", 0)]),
    Case("dynamic-offset", """
RWByteAddressBuffer B : register(u0);
[numthreads(8,1,1)] void main(uint3 t : SV_DispatchThreadID) {
  B.InterlockedOr((t.x % 2) * 4 + 8, 1u << t.x);
}""", [0, 0, 0, 0], [0, 0, 0x55, 0xAA], atomics=[("atomicBinOp", 2)]),
]


def _want(case: Case) -> list:
    return [None if w is None else (w - (1 << 32) if w > 0x7FFFFFFF else w) for w in case.want]


def _check(case: Case, data: bytes) -> None:
    want = _want(case)
    got = R.unpack("i", data)[: len(want)]
    if case.id == "contended-add":
        # the largest original add result is the total minus one of the addends (1..256)
        assert got[:2] == want[:2]
        assert want[1] - 256 <= got[2] < want[1]
        return
    assert got == want, f"got {got}, want {want}"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_atomics_spirv(case: Case):
    res = R.build(case.src)
    out = R.run_cs(res, {"B": R.storage(_i(case.init))}, case.groups,
                   dxil_check=lambda got: _check(case, got["B"]))
    _check(case, out["B"])
    dis = R.spirv_dis(res)
    assert "OpAtomic" in dis


_OP_RE = re.compile(r"call i32 @dx\.op\.(atomicBinOp|atomicCompareExchange)\.i32\(i32 (\d+), %dx\.types\.Handle %\w+, "
                    r"(?:i32 (\d+), )?i32 [^,]+, i32 undef, i32 undef")


def _dxil_atomics(ir_text: str) -> set:
    found = set()
    for name, opcode, code in _OP_RE.findall(ir_text):
        assert int(opcode) == {"atomicBinOp": 78, "atomicCompareExchange": 79}[name]
        found.add((name, int(code) if name == "atomicBinOp" else None))
    return found


@pytest.mark.llvm
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_atomics_dxil_ops(case: Case):
    res, chk = R.build_dxil(case.src)
    found = _dxil_atomics(chk.ir)
    for want in case.atomics:
        assert want in found, f"{want} not in {found}"
    r = R.resource(res.manifest, "B")
    assert (r["kind"], r["hlsl"]["class"], r["vulkan"]["descriptor_type"]) == ("RWByteAddressBuffer", "u",
                                                                               "storage_buffer")
    (dx,) = res.manifest["backend"]["dxil"]["resources"]
    assert (dx["class"], dx["kind"]) == ("UAV", 11)     # still a raw buffer UAV


@pytest.mark.llvm
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_atomics_dxil_exec(case: Case):
    res, _chk = R.build_dxil(case.src)
    _check(case, run_dxil_b(res, _i(case.init), case.groups))


# ---------------------------------------------------------------- Load<S> / Store<S>

STRUCT_SRC = """
struct Inner { uint k; float w[2]; };
struct S { float a; uint2 b; float3 c; Inner n; };
RWByteAddressBuffer B : register(u0);
[numthreads(1,1,1)] void main() {
  S s = B.Load<S>(4);
  s.a += 1.0; s.b += uint2(10, 20); s.c *= 2.0; s.n.k += 100; s.n.w[1] = s.n.w[0] + 0.5;
  B.Store<S>(52, s);
  B.Store(92, B.Load<S>(52).n.k + 1);
}
"""
# S in the byte buffer as a StructuredBuffer<S> element: a 0, b 4, c 12, n.k 24, n.w 28/32; 36 bytes
S_FMT = "<fIIfffIff"
S_IN = (1.5, 7, 8, 2.0, 3.0, 4.0, 9, 0.25, -6.0)
S_OUT = (2.5, 17, 28, 4.0, 6.0, 8.0, 109, 0.25, 0.75)


def _struct_input() -> bytes:
    return b"\0" * 4 + struct.pack(S_FMT, *S_IN) + b"\0" * 60


def _check_struct(data: bytes) -> None:
    assert struct.unpack_from(S_FMT, data, 4) == S_IN            # source untouched
    got = struct.unpack_from(S_FMT, data, 52)
    assert R.approx(got, S_OUT), got
    assert struct.unpack_from("<I", data, 88) == (0,)            # nothing past the struct
    assert struct.unpack_from("<I", data, 92) == (110,)


def test_load_store_struct_spirv():
    res = R.build(STRUCT_SRC)
    out = R.run_cs(res, {"B": R.storage(_struct_input())})
    _check_struct(out["B"])


@pytest.mark.llvm
def test_load_store_struct_dxil():
    res, chk = R.build_dxil(STRUCT_SRC)
    # cs_6_0: raw buffer access is bufferLoad (68) / bufferStore (69), one call per member (the
    # second Load<S> is mostly dead code, and so is the first one's n.w[1], overwritten before any
    # read once the local array is promoted: at least five + one loads remain)
    assert len(re.findall(r"@dx\.op\.bufferLoad\.(?:f32|i32)\(i32 68,", chk.ir)) >= 5 + 1
    assert len(re.findall(r"call void @dx\.op\.bufferStore\.(?:f32|i32)\(i32 69,", chk.ir)) == 6 + 1
    _check_struct(run_dxil_b(res, _struct_input()))


@pytest.mark.llvm
def test_load_store_struct_dxil_sm62_raw_ops():
    _res, chk = R.build_dxil(STRUCT_SRC, profile="cs_6_2")
    assert re.search(r"@dx\.op\.rawBufferLoad\.(?:f32|i32)\(i32 139,", chk.ir)
    assert re.search(r"call void @dx\.op\.rawBufferStore\.(?:f32|i32)\(i32 140,", chk.ir)


MATRIX_SRC = """
struct M { float a; float2x2 m; uint z; };
ByteAddressBuffer In : register(t0);
RWByteAddressBuffer Out : register(u1);
[numthreads(1,1,1)] void main() {
  M v = In.Load<M>(0);
  Out.Store<float>(0, v.m._11); Out.Store<float>(4, v.m._12); Out.Store<float>(8, v.m._21);
  Out.Store<float>(12, v.m._22); Out.Store(16, v.z); Out.Store<M>(20, v);
}
"""


def test_load_store_struct_with_matrix_spirv():
    # dx_structured: float2x2 column-major by default, stored as columns (_11, _21), (_12, _22)
    src = struct.pack("<fffffI", 9.0, 1.0, 3.0, 2.0, 4.0, 77)
    out = R.cs(MATRIX_SRC, {"In": R.storage(src), "Out": R.storage(bytes(64))})
    assert struct.unpack_from("<ffffI", out["Out"], 0) == (1.0, 2.0, 3.0, 4.0, 77)
    assert out["Out"][20:44] == src


def test_struct_with_64bit_matrix_member():
    """A double2x2 member (was refused: "needs 32-bit components") loads component by component from its
    dx_structured offset (8, column-major); 64-bit scalars and vectors: tests/lang/test_lang_audit20.py."""
    src = ("struct H { float a; double2x2 d; };\nRWByteAddressBuffer B : register(u0);\n"
           "[numthreads(1,1,1)] void main() { H h = B.Load<H>(0); B.Store<float>(40, h.a + (float)h.d._12); }")
    data = struct.pack("<f4x4d4x", 0.5, 10.0, 20.0, 30.0, 40.0)
    out = R.cs(src, {"B": R.storage(data)})
    assert struct.unpack_from("<f", out["B"], 40) == (30.5,)


def test_atomic_on_read_only_buffer_rejected():
    res = R.compile_hlsl("ByteAddressBuffer B : register(t0);\nRWByteAddressBuffer O : register(u0);\n"
                         "[numthreads(1,1,1)] void main() { uint o; B.InterlockedAdd(0, 1, o); O.Store(0, o); }")
    assert any("requires a RWByteAddressBuffer" in e for e in R.errors(res)), R.errors(res)


BOOL_SRC = """
struct Flags { bool a; float x; bool2 b; };
RWByteAddressBuffer B : register(u0);
[numthreads(1,1,1)] void main() {
  Flags f = B.Load<Flags>(0);
  B.Store(16, (f.a ? 10u : 20u) + (f.b.x ? 1u : 2u) + (f.b.y ? 100u : 200u));
  f.a = !f.a; f.b = !f.b;
  B.Store<Flags>(20, f);
}
"""
BOOL_IN = struct.pack("<IfII", 1, 2.5, 0, 7) + bytes(32)     # a true, b = (false, true): any non-zero word is true


def _check_bool(data: bytes) -> None:
    assert struct.unpack_from("<I", data, 16) == (10 + 2 + 100,)
    assert struct.unpack_from("<IfII", data, 20) == (0, 2.5, 1, 0)


def test_load_store_struct_bool_members_spirv():
    _check_bool(R.run_cs(R.build(BOOL_SRC), {"B": R.storage(BOOL_IN)})["B"])


@pytest.mark.llvm
def test_load_store_struct_bool_members_dxil():
    _check_bool(run_dxil_b(R.build_dxil(BOOL_SRC)[0], BOOL_IN))


PLAIN_BOOL_SRC = """
RWByteAddressBuffer B : register(u0);
[numthreads(1,1,1)] void main() {
  bool2 v = B.Load<bool2>(0);
  bool w = B.Load<bool>(8);
  B.Store<bool2>(16, !v);
  B.Store<bool>(24, w);
  B.Store(28, (uint)(v.x && !v.y));
}
"""
PLAIN_BOOL_IN = struct.pack("<III", 5, 0, 0xFFFFFFFF) + bytes(20)   # any non-zero word is true


def _check_plain_bool(data: bytes) -> None:
    assert struct.unpack_from("<IIII", data, 16) == (0, 1, 1, 1)


def test_load_store_plain_bool_spirv():
    _check_plain_bool(R.run_cs(R.build(PLAIN_BOOL_SRC), {"B": R.storage(PLAIN_BOOL_IN)})["B"])


@pytest.mark.llvm
def test_load_store_plain_bool_dxil():
    _check_plain_bool(run_dxil_b(R.build_dxil(PLAIN_BOOL_SRC)[0], PLAIN_BOOL_IN))


# ---------------------------------------------------------------- Load<matrix> / Store<matrix>

def _mat_dump(var: str, rows: int, cols: int, at: int, scale: str = "") -> str:
    """Store every element of `var` by rows (r, c) as a float at byte `at`, so both backends are read alike."""
    return " ".join(f"B.Store<float>({at + 4 * (r * cols + c)}, (float){var}._m{r}{c}{scale});"
                    for r in range(rows) for c in range(cols))


# (type, rows, cols, load offset, row-major dump offset, Store<type> offset)
MATRIX_LOADS = [("float2x2", 2, 2, 0, 256, 384), ("float3x4", 3, 4, 16, 272, 400), ("uint2x3", 2, 3, 64, 320, 448),
                ("float4x1", 4, 1, 88, 344, 472), ("float1x3", 1, 3, 104, 360, 488)]
PLAIN_MATRIX_SRC = ("RWByteAddressBuffer B : register(u0);\n[numthreads(1,1,1)] void main() {\n" + "\n".join(
    f"  {t} m{k} = B.Load<{t}>({lo});\n  {_mat_dump(f'm{k}', r, c, dump)}\n  B.Store<{t}>({so}, m{k});"
    for k, (t, r, c, lo, dump, so) in enumerate(MATRIX_LOADS)) + "\n}\n")
PLAIN_MATRIX_IN = b"".join(struct.pack("<I", i + 1) if k == "u" else struct.pack("<f", i + 1.0)
                           for i, k in enumerate("f" * 64 + "u" * 6 + "f" * 58))


def _check_plain_matrix(data: bytes) -> None:
    """DXC's rule: a matrix in a byte-address buffer is stored column_major, so element (r, c) of a
    rows x cols matrix loaded at byte `lo` is word lo/4 + c*rows + r; Store<matrix> writes the same order."""
    for t, rows, cols, lo, dump, so in MATRIX_LOADS:
        src = [struct.unpack_from("<I" if t[0] == "u" else "<f", data, lo + 4 * (c * rows + r))[0]
               for r in range(rows) for c in range(cols)]
        assert list(struct.unpack_from(f"<{rows * cols}f", data, dump)) == [float(x) for x in src], t
        assert data[so:so + 4 * rows * cols] == data[lo:lo + 4 * rows * cols], t


def test_load_store_plain_matrix_spirv():
    _check_plain_matrix(R.run_cs(R.build(PLAIN_MATRIX_SRC), {"B": R.storage(PLAIN_MATRIX_IN + bytes(512))})["B"])


@pytest.mark.llvm
@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_2"])
def test_load_store_plain_matrix_dxil(profile):
    _check_plain_matrix(run_dxil_b(R.build_dxil(PLAIN_MATRIX_SRC, profile=profile)[0], PLAIN_MATRIX_IN + bytes(512)))
