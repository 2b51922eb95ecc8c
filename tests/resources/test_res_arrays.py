"""Seed 001 (resource arrays): every example executed on lavapipe where Vulkan allows it, and the
exact DXIL handle operands (SM 6.0 createHandle range/index, SM 6.6 createHandleFromBinding ResBind).

Unbounded arrays need runtimeDescriptorArray, which lavapipe lacks: those are checked
structurally (spirv-val, spirv-cross reflection, DXIL operands), never executed.
"""

from __future__ import annotations

import re

import pytest
import res_util as R

pytestmark = [pytest.mark.vulkan, pytest.mark.spirv_tools]

# distinct per-element marker: element i of an array holds 100 + i at [0] and 1000 + i at [1]


def marked(n: int, fmt: str = "f") -> list[bytes]:
    return [R.pack(fmt, [100 + i, 1000 + i, 0, 0]) for i in range(n)]


def storage_array(n: int, fmt: str = "f") -> list:
    return [R.storage(d) for d in marked(n, fmt)]


def texel_array(n: int, fmt: str = "r32f") -> list:
    return [R.texel(d, fmt) for d in marked(n, "f" if fmt == "r32f" else "i")]


# ---------------------------------------------------------------- global fixed-size (seed: A[4] : register(u10))

SEED_A = """
RWBuffer<float> A[4] : register(u10);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = A[2][0];
    Out[1] = A[2][1];
    Out[2] = A[0][0] + A[3][0];
}
"""


def test_seed_global_fixed_array_typed_buffer():
    out = R.cs(SEED_A, {"A": texel_array(4), "Out": R.storage(R.sentinel(3))})
    assert R.unpack("f", out["Out"]) == [102.0, 1002.0, 100.0 + 103.0]


SEED_A_SB = """
RWStructuredBuffer<float> A[4] : register(u10);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main(uint3 t : SV_GroupID) {  // one thread per group: dynamically uniform indices
    Out[t.x] = A[t.x][0];          // dynamic index
    Out[4 + t.x] = A[3 - t.x][1];  // dynamic, reversed
}
"""


def test_global_fixed_array_dynamic_index():
    out = R.cs(SEED_A_SB, {"A": storage_array(4), "Out": R.storage(R.sentinel(8))}, groups=(4, 1, 1))
    assert R.unpack("f", out["Out"]) == [100, 101, 102, 103, 1003, 1002, 1001, 1000]


ARRAY_ELEMENT_WRITE = """
RWStructuredBuffer<float> A[4] : register(u10);
[numthreads(4, 1, 1)]
void main(uint3 t : SV_DispatchThreadID) {
    A[t.x][2] = t.x * 10.0;
    A[1][3] = 5.0;
}
"""


def test_global_array_element_write():
    out = R.cs(ARRAY_ELEMENT_WRITE, {"A": storage_array(4)})
    assert [R.unpack("f", out[f"A[{i}]"])[2] for i in range(4)] == [0.0, 10.0, 20.0, 30.0]
    assert R.unpack("f", out["A[1]"])[3] == 5.0


def test_seed_global_fixed_array_manifest():
    res = R.build(SEED_A)
    a = R.resource(res.manifest, "A")
    assert (a["hlsl"]["class"], a["hlsl"]["register"], a["hlsl"]["space"], a["hlsl"]["count"]) == ("u", 10, 0, 4)
    assert a["vulkan"] == {"set": 0, "binding": 10, "descriptor_type": "storage_texel_buffer", "count": 4}


# ---------------------------------------------------------------- multi-dimensional (B[4][4] : u2, C[2][2][5] : u10, space1)

SEED_BC = """
RWStructuredBuffer<float> B[4][4] : register(u2);
RWStructuredBuffer<float> C[2][2][5] : register(u10, space1);
RWStructuredBuffer<float> Out : register(u0, space2);
[numthreads(1, 1, 1)]
void main() {
    Out[0] = C[1][0][3][0];
    Out[1] = C[0][1][4][0];
    Out[2] = C[1][1][0][0];
    Out[3] = B[3][1][0];
    Out[4] = B[0][3][1];
}
"""


def test_seed_multidim_arrays_flatten_row_major():
    """C[i][j][k] is element i*10 + j*5 + k of the flattened range (C[1][0][3] -> 13, register 23).
    Structured buffers: lavapipe allows 32 per stage, so B is bound as 16 and C reduced to [2][2][3]."""
    src = SEED_BC.replace("C[2][2][5]", "C[2][2][3]").replace("C[0][1][4]", "C[0][1][2]").replace(
        "C[1][0][3]", "C[1][0][2]")
    out = R.cs(src, {"B": storage_array(16), "C": storage_array(12), "Out": R.storage(R.sentinel(5))})
    assert R.unpack("f", out["Out"]) == [100 + 8, 100 + 5, 100 + 9, 100 + 13, 1000 + 3]


def test_seed_multidim_arrays_manifest():
    res = R.build(SEED_BC)
    c = R.resource(res.manifest, "C")
    assert {k: c["hlsl"][k] for k in ("class", "register", "space", "count")} == {
        "class": "u", "register": 10, "space": 1, "count": 20}
    assert c["vulkan"]["set"] == 1 and c["vulkan"]["binding"] == 10 and c["vulkan"]["count"] == 20
    assert R.resource(res.manifest, "B")["hlsl"]["count"] == 16


SEED_BC_TYPED = SEED_BC.replace("RWStructuredBuffer<float> B", "RWBuffer<float> B").replace(
    "RWStructuredBuffer<float> C", "RWBuffer<float> C")


def test_seed_multidim_typed_buffers():
    out = R.cs(SEED_BC_TYPED, {"B": texel_array(16), "C": texel_array(20), "Out": R.storage(R.sentinel(5))})
    assert R.unpack("f", out["Out"]) == [113, 109, 115, 113, 1003]


# ---------------------------------------------------------------- unbounded (structural only)

SEED_D = """
RWBuffer<float> D[] : register(u5);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = D[100][0]; }
"""

SEED_E = """
RWBuffer<float> E[][4] : register(u5);
RWStructuredBuffer<float> Out : register(u0);
[numthreads(1, 1, 1)]
void main() { Out[0] = E[100][3][0]; }
"""


@pytest.mark.parametrize("src, name", [(SEED_D, "D"), (SEED_E, "E")], ids=["D[]", "E[][4]"])
def test_seed_unbounded_spirv_structure(src, name):
    res = R.build(src)  # spirv-val + reflection (count 'unbounded' on both sides)
    dis = R.spirv_dis(res)
    assert "OpCapability RuntimeDescriptorArray" in dis
    assert re.search(r"%_runtimearr_\w+ = OpTypeRuntimeArray", dis), dis
    assert R.resource(res.manifest, name)["vulkan"]["count"] == "unbounded"
    h = R.resource(res.manifest, name)["hlsl"]
    assert (h["class"], h["register"], h["space"], h["count"]) == ("u", 5, 0, "unbounded")


def test_seed_unbounded_2d_spirv_index():
    """E[100][3] must address flattened element 403 of the runtime array (binding 5 + 403 = register 408)."""
    dis = R.spirv_dis(R.build(SEED_E))
    # the constant 403 (or the pair 100*4 and +3) must reach the access chain; accept a folded 403
    assert re.search(r"OpConstant %uint 403\b", dis) or (
        re.search(r"OpConstant %uint 100\b", dis) and re.search(r"OpConstant %uint 3\b", dis)), dis


# ---------------------------------------------------------------- DXIL handle operands (seed text, exactly)

_SM60 = re.compile(r"call %dx\.types\.Handle @dx\.op\.createHandle\(i32 57, i8 (\d+), i32 (\d+), i32 (-?\d+), i1 false\)")
_SM66 = re.compile(r"call %dx\.types\.Handle @dx\.op\.createHandleFromBinding\(i32 217, %dx\.types\.ResBind \{ "
                   r"i32 (-?\d+), i32 (-?\d+), i32 (\d+), i8 (\d+) \}, i32 (-?\d+), i1 false\)")


DXIL_CASES = [
    # (id, source, resource, SM6.0 expected (class, index), SM6.6 expected (lower, upper, space, class, index))
    ("A[2]", SEED_A.replace("Out[1] = A[2][1];\n    Out[2] = A[0][0] + A[3][0];", ""), "A", (1, 12),
     (10, 13, 0, 1, 12)),
    ("C[1][0][3]", "RWBuffer<float> C[2][2][5] : register(u10, space1);\nRWStructuredBuffer<float> Out : register(u0);\n"
     "[numthreads(1,1,1)] void main() { Out[0] = C[1][0][3][0]; }\n", "C", (1, 23), (10, 29, 1, 1, 23)),
    ("B[3][1]", "RWBuffer<float> B[4][4] : register(u2);\nRWStructuredBuffer<float> Out : register(u0);\n"
     "[numthreads(1,1,1)] void main() { Out[0] = B[3][1][0]; }\n", "B", (1, 15), (2, 17, 0, 1, 15)),
    ("D[100]", SEED_D, "D", (1, 105), (5, -1, 0, 1, 105)),
    ("E[100][3]", SEED_E, "E", (1, 408), (5, -1, 0, 1, 408)),
    ("N[7]->P[3]", "RWBuffer<float> N[10][5] : register(u0);\nRWBuffer<float> Out : register(u0, space1);\n"
     "float foo(RWBuffer<float> P[5]) { return P[3][0]; }\n"
     "[numthreads(4,1,1)] void main() { Out[0] = foo(N[7]); }\n", "N", (1, 38), (0, 49, 0, 1, 38)),
]


def _handle_calls(ir: str, pattern: re.Pattern) -> list[tuple[int, ...]]:
    return [tuple(int(g) for g in m.groups()) for m in pattern.finditer(ir)]


@pytest.mark.llvm
@pytest.mark.parametrize("cid, src, name, sm60, sm66", DXIL_CASES, ids=[c[0] for c in DXIL_CASES])
def test_seed_dxil_sm60_create_handle(cid, src, name, sm60, sm66):
    _res, chk = R.build_dxil(src, profile="cs_6_0")
    ir = chk.ir
    rec = re.search(rf'^!\d+ = !\{{i32 (\d+), ptr [^,]+, !"{re.escape(name)}", i32 (\d+), i32 (\d+), i32 (-?\d+)', ir, re.M)
    assert rec, f"no !dx.resources record for {name}:\n{ir}"
    range_id = int(rec.group(1))
    calls = _handle_calls(ir, _SM60)
    assert (sm60[0], range_id, sm60[1]) in calls, f"want createHandle(57, {sm60[0]}, {range_id}, {sm60[1]}), got {calls}"


@pytest.mark.llvm
@pytest.mark.parametrize("cid, src, name, sm60, sm66", DXIL_CASES, ids=[c[0] for c in DXIL_CASES])
def test_seed_dxil_sm66_create_handle_from_binding(cid, src, name, sm60, sm66):
    _res, chk = R.build_dxil(src, profile="cs_6_6")
    calls = _handle_calls(chk.ir, _SM66)
    assert sm66 in calls, f"want ResBind/index {sm66}, got {calls}"


@pytest.mark.llvm
def test_seed_dxil_unbounded_range_metadata():
    """The !dx.resources record of D[] has range size -1 (unbounded) and lower bound 5."""
    _res, chk = R.build_dxil(SEED_D)
    rec = re.search(r'^!\d+ = !\{i32 \d+, ptr [^,]+, !"D", i32 0, i32 5, i32 (-?\d+)', chk.ir, re.M)
    assert rec and int(rec.group(1)) in (-1, 0xFFFFFFFF), chk.ir


# ---------------------------------------------------------------- function arguments (seed: foo(K, L, M, K))

SEED_FN_ARGS = """
RWBuffer<float> K[3] : register(u0);
RWBuffer<float> L[2][2] : register(u10);
RWBuffer<float> M[] : register(u0, space1);
RWBuffer<float> Out : register(u0, space2);

float foo(RWBuffer<float> LK[3], RWBuffer<float> LL[2][2],
          RWBuffer<float> LM1[], RWBuffer<float> LM2[]) {
  return LK[2][0] + LL[1][1][0] + LM1[100][0] + LM2[100][0];
}

[numthreads(4,1,1)]
void main() {
  Out[0] = foo(K, L, M, K);
}
"""

@pytest.mark.llvm
def test_seed_function_arguments_dxil_operands():
    """LK[2] -> K index 2 (0..2); LL[1][1] -> L index 13 (10..13); LM1[100] -> M index 100 (space 1, unbounded);
    LM2[100] -> K index 100 (K's own range 0..2, indexed beyond its size)."""
    _res, chk = R.build_dxil(SEED_FN_ARGS, profile="cs_6_6")
    calls = _handle_calls(chk.ir, _SM66)
    for want in [(0, 2, 0, 1, 2), (10, 13, 0, 1, 13), (0, -1, 1, 1, 100), (0, 2, 0, 1, 100)]:
        assert want in calls, f"missing {want} in {calls}"


def test_seed_function_arguments_spirv_structure():
    """Unbounded M cannot run on lavapipe; the module must validate and index K's element 100 via LM2."""
    res = R.build(SEED_FN_ARGS)
    assert R.resource(res.manifest, "M")["vulkan"] == {"set": 1, "binding": 0, "descriptor_type": "storage_texel_buffer",
                                                       "count": "unbounded"}


FN_ARGS_FIXED = """
RWStructuredBuffer<float> K[3] : register(u0);
RWStructuredBuffer<float> L[2][2] : register(u10);
RWStructuredBuffer<float> Out : register(u0, space2);

float foo(RWStructuredBuffer<float> LK[3], RWStructuredBuffer<float> LL[2][2]) {
  return LK[2][0] + LL[1][1][0] + LL[0][1][1];
}

[numthreads(1,1,1)]
void main() {
  Out[0] = foo(K, L);
}
"""


def test_function_arguments_fixed_size_executes():
    out = R.cs(FN_ARGS_FIXED, {"K": storage_array(3), "L": storage_array(4), "Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [102 + 103 + 1001]


# ---------------------------------------------------------------- sub-arrays (seed: foo(N[7]) -> P[3] is N[7][3])

SEED_SUB = """
RWBuffer<float> N[10][5] : register(u0);
RWStructuredBuffer<float> Out : register(u0, space1);

float foo(RWBuffer<float> P[5]) {
  return P[3][0];
}

[numthreads(1,1,1)]
void main() {
  Out[0] = foo(N[7]);
  Out[1] = foo(N[2]);
}
"""


def test_seed_sub_array_argument():
    out = R.cs(SEED_SUB, {"N": texel_array(50), "Out": R.storage(R.sentinel(2))})
    assert R.unpack("f", out["Out"]) == [100 + 38, 100 + 13]


SEED_SUB_LOCAL_EDIT = """
RWBuffer<float> N[10][5] : register(u0);
RWBuffer<float> Other : register(u1, space1);
RWStructuredBuffer<float> Out : register(u0, space1);

float foo(RWBuffer<float> P[5]) {
  P[3] = Other;          // the local copy is editable ...
  return P[3][0] + P[1][0];
}

[numthreads(1,1,1)]
void main() {
  Out[0] = foo(N[7]);
  Out[1] = N[7][3][0];   // ... and editing it leaves N alone
}
"""


def test_seed_sub_array_local_copy_is_editable():
    out = R.cs(SEED_SUB_LOCAL_EDIT, {"N": texel_array(50), "Other": R.texel(R.pack("f", [7.0])),
                                     "Out": R.storage(R.sentinel(2))})
    assert R.unpack("f", out["Out"]) == [7.0 + 136.0, 138.0]


# ---------------------------------------------------------------- local arrays

LOCAL_FIXED = """
RWStructuredBuffer<float> Buf : register(u1);
RWStructuredBuffer<float> Buf2 : register(u2);
RWStructuredBuffer<float> Out : register(u0);

float foo() {
  RWStructuredBuffer<float> LocalArray[3];
  LocalArray[2] = Buf;
  LocalArray[0] = Buf2;
  return LocalArray[2][0] + LocalArray[0][1];
}

[numthreads(1,1,1)]
void main() {
  Out[0] = foo();
}
"""


def test_seed_local_fixed_array():
    out = R.cs(LOCAL_FIXED, {"Buf": R.storage(R.pack("f", [3.0, 4.0])), "Buf2": R.storage(R.pack("f", [5.0, 6.0])),
                             "Out": R.storage(R.sentinel(1))})
    assert R.unpack("f", out["Out"]) == [3.0 + 6.0]


LOCAL_TYPED = """
RWBuffer<float> Buf;
RWBuffer<float> Out;

float foo() {
  RWBuffer<float> LocalArray[3];
  LocalArray[2] = Buf;
  return LocalArray[2][0] + LocalArray[2][1];
}

[numthreads(4,1,1)]
void main() {
  Out[0] = foo();
}
"""


def test_seed_local_typed_array_implicit_bindings():
    res = R.build(LOCAL_TYPED)
    assert [R.resource(res.manifest, n)["vulkan"]["binding"] for n in ("Buf", "Out")] == [0, 1]
    out = R.run_cs(res, {"Buf": R.texel(R.pack("f", [1.5, 2.0])), "Out": R.texel(R.pack("f", [0.0]))})
    assert R.unpack("f", out["Out"]) == [3.5]


LOCAL_DYNAMIC = """
RWStructuredBuffer<uint> X : register(u0);
RWStructuredBuffer<uint> Y : register(u1);
RWStructuredBuffer<uint> Out : register(u2);
[numthreads(4,1,1)]
void main(uint GI : SV_GroupIndex) {
  RWStructuredBuffer<uint> Arr[2] = {X, Y};
  Out[GI] = Arr[GI & 1][GI];
}
"""


def test_local_array_dynamic_index_of_unrelated_resources_is_diagnosed():
    """{X, Y} are not one global range, so a dynamic index cannot become one descriptor index: an error
    at the indexing expression (DXC also rejects dynamically indexed local resource arrays)."""
    res = R.compile_hlsl(LOCAL_DYNAMIC)
    assert R.errors(res) == ["8:13: local resource array 'Arr' is indexed dynamically but does not hold "
                             "consecutive elements of one global array"]


LOCAL_COPY_DYNAMIC = """
RWStructuredBuffer<uint> G[4] : register(u0);
RWStructuredBuffer<uint> Out : register(u4);
[numthreads(1,1,1)]
void main(uint3 g : SV_GroupID) {        // uniform index per group
  RWStructuredBuffer<uint> Arr[4] = G;   // a local copy of the whole global range
  Out[g.x] = Arr[3 - g.x][0];
}
"""


def test_local_copy_of_global_array_dynamic_index():
    out = R.cs(LOCAL_COPY_DYNAMIC, {"G": storage_array(4, "I"), "Out": R.storage(R.sentinel(4))}, groups=(4, 1, 1))
    assert R.unpack("I", out["Out"]) == [103, 102, 101, 100]


# ---------------------------------------------------------------- the DXC bug: must write 1 to Y and 2 to X

SEED_DXC_BUG = """
RWBuffer<int> X : register(u0);
RWBuffer<int> Y : register(u1);

void SomeFn(RWBuffer<int> Arr[2], uint Idx, int Val0) {
  Arr[0] = Y;
  Arr[0][Idx] = Val0;
}

[numthreads(4,1,1)]
void main(uint GI : SV_GroupIndex) {
  RWBuffer<int> Arr[2] = {X, Y};
  SomeFn(Arr, GI, 1);
  Arr[0][GI] = 2;
}
"""


def test_seed_dxc_bug_typed_buffers():
    out = R.cs(SEED_DXC_BUG, {"X": R.texel(R.pack("i", [-1] * 4), "r32i"), "Y": R.texel(R.pack("i", [-1] * 4), "r32i")})
    assert R.unpack("i", out["X"]) == [2, 2, 2, 2]
    assert R.unpack("i", out["Y"]) == [1, 1, 1, 1]


def test_seed_dxc_bug_structured_buffers():
    src = SEED_DXC_BUG.replace("RWBuffer<int>", "RWStructuredBuffer<int>")
    out = R.cs(src, {"X": R.storage(R.pack("i", [-1] * 4)), "Y": R.storage(R.pack("i", [-1] * 4))})
    assert R.unpack("i", out["X"]) == [2, 2, 2, 2]
    assert R.unpack("i", out["Y"]) == [1, 1, 1, 1]


@pytest.mark.llvm
def test_seed_dxc_bug_dxil_keeps_both_resources():
    """DXC drops X (both writes go to Y); we must keep both UAVs and store through both."""
    _res, chk = R.build_dxil(SEED_DXC_BUG, profile="cs_6_6")
    calls = _handle_calls(chk.ir, _SM66)
    assert (0, 0, 0, 1, 0) in calls and (1, 1, 0, 1, 1) in calls, calls


@pytest.mark.llvm
def test_seed_dxc_bug_dxil_executes():
    """Run the structured-buffer form of the DXC-bug example through the DXIL interpreter."""
    from harness import dxil_exec
    src = SEED_DXC_BUG.replace("RWBuffer<int>", "RWStructuredBuffer<int>")
    res, _chk = R.build_dxil(src)
    got = dxil_exec.run_dxil_compute(res.binary, "main", [(0, 0, "u", R.pack("i", [-1] * 4)),
                                                           (1, 0, "u", R.pack("i", [-1] * 4))])
    assert R.unpack("i", got[0]) == [2] * 4 and R.unpack("i", got[1]) == [1] * 4


# ---------------------------------------------------------------- the same seed cases through the DXIL interpreter

def _dxil_run(src: str, specs: dict[str, list[bytes] | bytes], groups=(1, 1, 1)) -> dict[str, bytes]:
    """Bind buffers by the manifest's D3D view (array element i at register lower + i) and run the DXIL."""
    from harness import dxil_exec
    res, _chk = R.build_dxil(src)
    bufs, names = [], []
    for name, data in specs.items():
        h = R.resource(res.manifest, name)["hlsl"]
        elems = data if isinstance(data, list) else [data]
        for i, d in enumerate(elems):
            bufs.append((h["register"] + i, h["space"], h["class"], d))
            names.append(f"{name}[{i}]" if isinstance(data, list) else name)
    return dict(zip(names, dxil_exec.run_dxil_compute(res.binary, "main", bufs, groups=groups)))


@pytest.mark.llvm
def test_dxil_exec_global_array_dynamic_index():
    out = _dxil_run(SEED_A_SB, {"A": marked(4), "Out": R.sentinel(8)}, groups=(4, 1, 1))
    assert R.unpack("f", out["Out"]) == [100, 101, 102, 103, 1003, 1002, 1001, 1000]


@pytest.mark.llvm
def test_dxil_exec_multidim():
    src = SEED_BC.replace("C[2][2][5]", "C[2][2][3]").replace("C[0][1][4]", "C[0][1][2]").replace(
        "C[1][0][3]", "C[1][0][2]")
    out = _dxil_run(src, {"B": marked(16), "C": marked(12), "Out": R.sentinel(5)})
    assert R.unpack("f", out["Out"]) == [108, 105, 109, 113, 1003]


@pytest.mark.llvm
def test_dxil_exec_sub_array_and_local_copy():
    src = SEED_SUB_LOCAL_EDIT.replace("RWBuffer<float>", "RWStructuredBuffer<float>")
    out = _dxil_run(src, {"N": marked(50), "Other": R.pack("f", [7.0]), "Out": R.sentinel(2)})
    assert R.unpack("f", out["Out"]) == [7.0 + 136.0, 138.0]


@pytest.mark.llvm
def test_dxil_exec_local_fixed_array():
    out = _dxil_run(LOCAL_FIXED, {"Buf": R.pack("f", [3.0, 4.0]), "Buf2": R.pack("f", [5.0, 6.0]), "Out": R.sentinel(1)})
    assert R.unpack("f", out["Out"]) == [9.0]


@pytest.mark.llvm
def test_dxil_exec_function_arguments_fixed():
    out = _dxil_run(FN_ARGS_FIXED, {"K": marked(3), "L": marked(4), "Out": R.sentinel(1)})
    assert R.unpack("f", out["Out"]) == [102 + 103 + 1001]


@pytest.mark.llvm
def test_dxil_sm60_dxc_bug_handles():
    """SM 6.0 form of the DXC-bug example: X (u0) and Y (u1) each get a createHandle with their own register."""
    _res, chk = R.build_dxil(SEED_DXC_BUG, profile="cs_6_0")
    indices = {c[2] for c in _handle_calls(chk.ir, _SM60) if c[0] == 1}
    assert {0, 1} <= indices, indices


@pytest.mark.llvm
def test_seed_function_arguments_dxil_sm60_operands():
    """SM 6.0: createHandle(class UAV, K's/L's/M's range ID, absolute index 2 / 13 / 100 / 100)."""
    _res, chk = R.build_dxil(SEED_FN_ARGS, profile="cs_6_0")
    ranges = {}
    for name in ("K", "L", "M"):
        rec = re.search(rf'^!\d+ = !\{{i32 (\d+), ptr [^,]+, !"{name}", i32 (\d+), i32 (\d+)', chk.ir, re.M)
        assert rec, f"no resource record for {name}:\n{chk.ir}"
        ranges[name] = int(rec.group(1))
    calls = _handle_calls(chk.ir, _SM60)
    for name, index in [("K", 2), ("L", 13), ("M", 100), ("K", 100)]:
        assert (1, ranges[name], index) in calls, f"missing {name}[{index}] in {calls}"


@pytest.mark.parametrize("env", ["vulkan1.0", "vulkan1.2", "vulkan1.3"])
def test_seed_cases_across_target_envs(env):
    """The DXC-bug example and a dynamically indexed array under each SPIR-V version's buffer convention."""
    src = SEED_DXC_BUG.replace("RWBuffer<int>", "RWStructuredBuffer<int>")
    res = R.build(src, env=env)
    out = R.run_cs(res, {"X": R.storage(R.pack("i", [-1] * 4)), "Y": R.storage(R.pack("i", [-1] * 4))})
    assert R.unpack("i", out["X"]) == [2] * 4 and R.unpack("i", out["Y"]) == [1] * 4
    res = R.build(SEED_A_SB, env=env)
    out = R.run_cs(res, {"A": storage_array(4), "Out": R.storage(R.sentinel(8))}, groups=(4, 1, 1))
    assert R.unpack("f", out["Out"]) == [100, 101, 102, 103, 1003, 1002, 1001, 1000]


def test_shifted_array_binding():
    """-fvk-u-shift moves the whole range: A[4] : register(u10) with shift 100 -> binding 110, count 4."""
    res = R.build(SEED_A_SB, shifts=[("u", 100, 0)])
    a = R.resource(res.manifest, "A")["vulkan"]
    assert (a["set"], a["binding"], a["count"]) == (0, 110, 4)
    out = R.run_cs(res, {"A": storage_array(4), "Out": R.storage(R.sentinel(8))}, groups=(4, 1, 1))
    assert R.unpack("f", out["Out"])[:4] == [100, 101, 102, 103]
