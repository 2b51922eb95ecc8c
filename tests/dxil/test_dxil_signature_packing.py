"""Signature packing: stage I/O elements share 4-component rows the way DXC's
default (prefix-stable) allocator places them, and every view of the placement
agrees: the dx.entryPoints element records (start row / start column), the
ISG1/OSG1 parts (register, component mask, read/write mask), and PSV0 (element
rows/columns and the input/output vector counts), all decoded by obj2yaml-19 and
llvm-dis-19.  The expected placements below follow the rules in
plugins/dxil/shaderbuild_dxil/sigpack.py, worked out by hand for each shader.
"""

from __future__ import annotations

import re

import pytest
from harness.dxil_tools import check_dxil
from test_dxil_frontend import compile_source

from shaderbuild.compiler import compile_file
from shaderbuild.front.parser import parse
from shaderbuild.front.preprocessor import preprocess
from shaderbuild.front.sema import analyze
from shaderbuild.options import CompileOptions, parse_profile
from shaderbuild.passes import run_shared_passes

UNALLOCATED = 0xFFFFFFFF


# ------------------------------------------------------------------ decoding the three views
_MD_LINE = re.compile(r"^!(\d+) = !\{(.*)\}$", re.M)
_ELEMENT = re.compile(r'i32 (-?\d+), !"(\w+)", i8 -?\d+, i8 (\d+), !(\d+), i8 (-?\d+), i32 (\d+), i8 (\d+), '
                      r"i32 (-?\d+), i8 (-?\d+)")


def metadata_signatures(ir_text: str) -> tuple[list[dict], list[dict]]:
    """Input and output element records of the entry point, from llvm-dis text."""
    md = {int(m.group(1)): m.group(2) for m in _MD_LINE.finditer(ir_text)}
    entry_ref = re.search(r"^!dx\.entryPoints = !\{!(\d+)\}$", ir_text, re.M).group(1)
    sigs_ref = re.match(r'ptr @\w+, !"\w+", !(\d+)', md[int(entry_ref)]).group(1)
    refs = [r.strip() for r in md[int(sigs_ref)].split(",")]

    def elements(ref: str) -> list[dict]:
        if ref == "null":
            return []
        out = []
        for el_ref in md[int(ref[1:])].split(","):
            m = _ELEMENT.match(md[int(el_ref.strip()[1:])])
            ident, name, kind, idx_ref, interp, rows, cols, row, col = m.groups()
            indices = [int(x) for x in re.findall(r"i32 (\d+)", md[int(idx_ref)])]
            out.append({"id": int(ident), "name": name, "kind": int(kind), "indices": indices,
                        "interp": int(interp), "rows": int(rows), "cols": int(cols), "row": int(row),
                        "col": int(col)})
        return out
    return elements(refs[0]), elements(refs[1])


def parts(c) -> dict:
    return {p["Name"]: p for p in c.container["Parts"]}


def placement(c) -> dict[str, list[tuple]]:
    """{'in'/'out': [(name, first index, start row, start col, rows, cols)]} from the metadata, after
    asserting that ISG1/OSG1 and PSV0 say exactly the same."""
    p = parts(c)
    psv = p["PSV0"]["PSVInfo"]
    md_in, md_out = metadata_signatures(c.ir)
    result = {}
    for side, md, tag, psv_elems, vectors in (
            ("in", md_in, "ISG1", psv["SigInputElements"], psv["SigInputVectors"]),
            ("out", md_out, "OSG1", psv["SigOutputElements"], psv["SigOutputVectors"][0])):
        # ISG1/OSG1: one entry per row; register = start row + row, mask = columns from the start column
        want = []
        for e in md:
            allocated = e["row"] >= 0
            first = e["col"] if allocated else 0
            mask = ((1 << e["cols"]) - 1) << first
            for r, index in enumerate(e["indices"]):
                want.append((e["name"], index, e["row"] + r if allocated else UNALLOCATED, mask))
        got = [(x["Name"], x["Index"], x["Register"], x["Mask"]) for x in p[tag]["Signature"]["Parameters"]]
        assert sorted(got, key=lambda t: (t[2], t[0], t[1])) == sorted(want, key=lambda t: (t[2], t[0], t[1]))
        assert [g[2] for g in got] == sorted(g[2] for g in got), f"{tag} is not in register order"
        # PSV0: one record per element, in element order
        assert len(psv_elems) == len(md)
        for x, e in zip(psv_elems, md, strict=True):
            allocated = e["row"] >= 0
            assert (x["Indices"], x["Cols"], x["Allocated"]) == (e["indices"], e["cols"], allocated)
            if allocated:
                assert (x["StartRow"], x["StartCol"]) == (e["row"], e["col"])
            else:
                assert e["col"] == -1
        assert vectors == max((e["row"] + e["rows"] for e in md if e["row"] >= 0), default=0)
        result[side] = [(e["name"], e["indices"][0], e["row"], e["col"], e["rows"], e["cols"]) for e in md]
    return result


def rw_masks(c, tag: str) -> dict[tuple[str, int], int]:
    return {(x["Name"], x["Index"]): x["ExclusiveMask"] for x in parts(c)[tag]["Signature"]["Parameters"]}


def io_calls(ir_text: str, op: str) -> list[tuple[int, int, int]]:
    """(element id, row, column) operands of every loadInput/storeOutput call."""
    return [tuple(map(int, m.groups())) for m in
            re.finditer(rf"@dx\.op\.{op}\.\w+\(i32 \d+, i32 (\d+), i32 (\d+), i8 (\d+)", ir_text)]


# ------------------------------------------------------------------ shaders
VS_BASIC = """
struct VSOut { float4 pos : SV_Position; float2 t0 : TEX0; float2 t1 : TEX1; float3 n : NORMAL; float c : COLOR; };
VSOut main(float2 a : A, float2 b : B, float c : C) {
  VSOut o; o.pos = float4(a, b); o.t0 = a; o.t1 = b * 2; o.n = float3(a, c); o.c = c; return o; }
"""


def test_vertex_outputs_share_rows(tmp_path):
    c = check_dxil(compile_source(tmp_path, VS_BASIC, "vs_6_0"))
    got = placement(c)
    # VS inputs come from the input assembler: never packed, one row each at column 0
    assert got["in"] == [("A", 0, 0, 0, 1, 2), ("B", 0, 1, 0, 1, 2), ("C", 0, 2, 0, 1, 1)]
    # outputs: TEX0/TEX1 share row 1, NORMAL and COLOR share row 2
    assert got["out"] == [("SV_Position", 0, 0, 0, 1, 4), ("TEX", 0, 1, 0, 1, 2), ("TEX", 1, 1, 2, 1, 2),
                          ("NORMAL", 0, 2, 0, 1, 3), ("COLOR", 0, 2, 3, 1, 1)]
    # the never-writes masks are register components: TEX1 writes z and w of row 1
    masks = rw_masks(c, "OSG1")
    assert masks[("TEX", 1)] == 0b0011 and masks[("TEX", 0)] == 0b1100 and masks[("COLOR", 0)] == 0b0111
    # storeOutput columns stay relative to the element: TEX1 (id 2) is written at columns 0 and 1
    assert sorted(set(io_calls(c.ir, "storeOutput")) & {(2, 0, 0), (2, 0, 1), (2, 0, 2), (2, 0, 3)}) == [
        (2, 0, 0), (2, 0, 1)]
    assert (4, 0, 0) in io_calls(c.ir, "storeOutput")          # COLOR: column 0 of itself, register column 3


PS_INTERP = """
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD0, nointerpolation uint id : ID, float w : WEIGHT,
            nointerpolation float f : FLAT, noperspective float2 np : NP, float s : S) : SV_Target {
  return float4(uv + np, w * s + id, f); }
"""


def test_interpolation_modes_do_not_share_rows(tmp_path):
    c = check_dxil(compile_source(tmp_path, PS_INTERP, "ps_6_0"))
    got = placement(c)
    assert got["in"] == [
        ("SV_Position", 0, 0, 0, 1, 4),
        ("TEXCOORD", 0, 1, 0, 1, 2),
        ("ID", 0, 2, 0, 1, 1),          # constant (integer): not with the linear TEXCOORD
        ("WEIGHT", 0, 1, 2, 1, 1),      # linear: back in row 1
        ("FLAT", 0, 2, 1, 1, 1),        # nointerpolation float: with ID
        ("NP", 0, 3, 0, 1, 2),          # noperspective: a row of its own
        ("S", 0, 1, 3, 1, 1),
    ]
    interp = [e["Interpolation"] for e in parts(c)["PSV0"]["PSVInfo"]["SigInputElements"]]
    assert interp == ["LinearNoperspective", "Linear", "Constant", "Linear", "Constant", "LinearNoperspective",
                      "Linear"]
    # loadInput columns are relative to the element's start column: S (id 6) is read at column 0
    assert (6, 0, 0) in io_calls(c.ir, "loadInput")


PS_TARGETS = """
struct PSOut { float4 c1 : SV_Target1; float d : SV_Depth; float2 c0 : SV_Target0; float4 c3 : SV_Target3; };
PSOut main(float4 pos : SV_Position) {
  PSOut o; o.c1 = pos; o.d = pos.z; o.c0 = pos.xy; o.c3 = 1; return o; }
"""


def test_pixel_outputs_target_rows_and_depth(tmp_path):
    c = check_dxil(compile_source(tmp_path, PS_TARGETS, "ps_6_0"))
    got = placement(c)
    # SV_Target<n> takes row n whatever the declaration order; SV_Depth has no register
    assert got["out"] == [("SV_Target", 1, 1, 0, 1, 4), ("SV_Depth", 0, -1, -1, 1, 1),
                          ("SV_Target", 0, 0, 0, 1, 2), ("SV_Target", 3, 3, 0, 1, 4)]
    osg = [(x["Name"], x["Index"], x["Register"]) for x in parts(c)["OSG1"]["Signature"]["Parameters"]]
    assert osg == [("SV_Target", 0, 0), ("SV_Target", 1, 1), ("SV_Target", 3, 3), ("SV_Depth", 0, UNALLOCATED)]
    psv = parts(c)["PSV0"]["PSVInfo"]
    assert psv["SigOutputVectors"][0] == 4 and psv["DepthOutput"] == 1
    assert rw_masks(c, "OSG1")[("SV_Depth", 0)] == 0b1110


PS_SYSTEM = """
float4 main(nointerpolation uint a : A, bool front : SV_IsFrontFace, nointerpolation uint b : B,
            uint prim : SV_PrimitiveID, uint si : SV_SampleIndex, uint cov : SV_Coverage,
            float4 pos : SV_Position) : SV_Target {
  return float4(a + b, front ? 1 : 0, prim + si, cov) + pos; }
"""


def test_system_generated_values_pack_last_in_a_row(tmp_path):
    c = check_dxil(compile_source(tmp_path, PS_SYSTEM, "ps_6_0"))
    got = placement(c)
    assert got["in"] == [
        ("A", 0, 0, 0, 1, 1),
        ("SV_IsFrontFace", 0, 0, 1, 1, 1),   # an SGV goes right of arbitrary values ...
        ("B", 0, 1, 0, 1, 1),                # ... and nothing but SGVs may follow it in that row
        ("SV_PrimitiveID", 0, 0, 2, 1, 1),   # SGV next to SGV
        ("SV_SampleIndex", 0, -1, -1, 1, 1),  # in the signature without a register (Shadow)
        ("SV_Position", 0, 2, 0, 1, 4),
    ]                                        # SV_Coverage: not in the signature at all
    assert "@dx.op.sampleIndex.i32(i32 90)" in c.ir and "@dx.op.coverage.i32(i32 91)" in c.ir
    loaded = {e for e, _, _ in io_calls(c.ir, "loadInput")}
    assert 4 not in loaded                    # SV_SampleIndex comes from the operation, not loadInput
    assert parts(c)["PSV0"]["PSVInfo"]["SigInputVectors"] == 3


VS_SYSTEM = """
float4 main(uint vid : SV_VertexID, uint iid : SV_InstanceID) : SV_Position { return float4(vid, iid, 0, 1); }
"""


def test_vertex_system_inputs_are_not_packed(tmp_path):
    c = check_dxil(compile_source(tmp_path, VS_SYSTEM, "vs_6_0"))
    got = placement(c)
    assert got["in"] == [("SV_VertexID", 0, 0, 0, 1, 1), ("SV_InstanceID", 0, 1, 0, 1, 1)]
    assert got["out"] == [("SV_Position", 0, 0, 0, 1, 4)]


PS_SV_FIRST = """
float4 main(uint rt : SV_RenderTargetArrayIndex, nointerpolation uint b : B, nointerpolation uint c : C)
    : SV_Target { return float4(rt, b, c, 1); }
"""


def test_system_values_never_left_of_arbitrary(tmp_path):
    c = check_dxil(compile_source(tmp_path, PS_SV_FIRST, "ps_6_0"))
    # SV_RenderTargetArrayIndex took column 0 of row 0, so B and C cannot follow it there
    assert placement(c)["in"] == [("SV_RenderTargetArrayIndex", 0, 0, 0, 1, 1), ("B", 0, 1, 0, 1, 1),
                                  ("C", 0, 1, 1, 1, 1)]


PS_ARB_THEN_SV = """
float4 main(nointerpolation uint b : B, uint rt : SV_RenderTargetArrayIndex) : SV_Target { return float4(rt, b, 0, 1); }
"""


def test_system_value_right_of_arbitrary_shares_the_row(tmp_path):
    c = check_dxil(compile_source(tmp_path, PS_ARB_THEN_SV, "ps_6_0"))
    assert placement(c)["in"] == [("B", 0, 0, 0, 1, 1), ("SV_RenderTargetArrayIndex", 0, 0, 1, 1, 1)]


VS_ARRAYS = """
struct VSOut { float4 pos : SV_Position; float w[3] : WEIGHTS; float2 uv : TEXCOORD0;
               nointerpolation uint ids[2] : IDS; nointerpolation uint k : K; };
VSOut main(float4 ws[2] : W, uint iid : SV_InstanceID) {
  VSOut o; o.pos = ws[0]; o.w[0] = ws[0].x; o.w[1] = ws[1].y; o.w[2] = ws[1].w; o.uv = ws[1].xy;
  o.ids[0] = iid; o.ids[1] = iid + 1; o.k = 7; return o; }
"""


def test_arrays_span_rows(tmp_path):
    c = check_dxil(compile_source(tmp_path, VS_ARRAYS, "vs_6_0"))
    got = placement(c)
    assert got["in"] == [("W", 0, 0, 0, 2, 4), ("SV_InstanceID", 0, 2, 0, 1, 1)]
    assert got["out"] == [
        ("SV_Position", 0, 0, 0, 1, 4),
        ("WEIGHTS", 0, 1, 0, 3, 1),          # rows 1-3, semantic indices 0-2
        ("TEXCOORD", 0, 1, 1, 1, 2),         # an arbitrary element may sit beside an array
        ("IDS", 0, 4, 0, 2, 1),              # constant interpolation: new rows 4-5
        ("K", 0, 4, 1, 1, 1),
    ]
    md_out = metadata_signatures(c.ir)[1]
    assert md_out[1]["indices"] == [0, 1, 2] and md_out[3]["indices"] == [0, 1]
    osg = [(x["Name"], x["Index"], x["Register"]) for x in parts(c)["OSG1"]["Signature"]["Parameters"]]
    assert [x for x in osg if x[0] == "WEIGHTS"] == [("WEIGHTS", 0, 1), ("WEIGHTS", 1, 2), ("WEIGHTS", 2, 3)]
    # array rows are addressed by the row operand, relative to the element
    stores = io_calls(c.ir, "storeOutput")
    assert {(1, 0, 0), (1, 1, 0), (1, 2, 0), (3, 0, 0), (3, 1, 0)} <= set(stores)
    loads = io_calls(c.ir, "loadInput")
    assert {(0, 0, 0), (0, 1, 1), (0, 1, 3)} <= set(loads)


PS_ARRAY_SV = """
float4 main(nointerpolation uint ids[2] : IDS, uint rt : SV_RenderTargetArrayIndex, nointerpolation uint k : K)
    : SV_Target { return float4(ids[0], ids[1], rt, k); }
"""


def test_system_values_stay_out_of_array_rows(tmp_path):
    c = check_dxil(compile_source(tmp_path, PS_ARRAY_SV, "ps_6_0"))
    assert placement(c)["in"] == [("IDS", 0, 0, 0, 2, 1), ("SV_RenderTargetArrayIndex", 0, 2, 0, 1, 1),
                                  ("K", 0, 0, 1, 1, 1)]


VS_CLIP = """
struct VSOut { float4 pos : SV_Position; float c0 : SV_ClipDistance0; float2 uv : TEXCOORD0;
               float c1 : SV_ClipDistance1; float x : X; };
VSOut main(float4 p : P) { VSOut o; o.pos = p; o.c0 = p.x; o.uv = p.yz; o.c1 = p.w; o.x = p.z; return o; }
"""


def test_clip_distances_get_rows_of_their_own(tmp_path):
    c = check_dxil(compile_source(tmp_path, VS_CLIP, "vs_6_0"))
    assert placement(c)["out"] == [
        ("SV_Position", 0, 0, 0, 1, 4),
        ("SV_ClipDistance", 0, 1, 0, 1, 1),   # row 1 is reserved whole for clip/cull distances
        ("TEXCOORD", 0, 2, 0, 1, 2),
        ("SV_ClipDistance", 1, 1, 1, 1, 1),
        ("X", 0, 2, 2, 1, 1),
    ]


VS_CLIP_CULL = """
struct O { float4 p : SV_Position; float3 cd : SV_ClipDistance0; float2 cu : SV_CullDistance0;
           float c2 : SV_ClipDistance1; float x : X; };
O main(float4 p : P) { O o; o.p = p; o.cd = p.xyz; o.cu = p.zw; o.c2 = p.x; o.x = 1; return o; }
"""

VS_CLIP_ARRAY = """
struct O { float4 p : SV_Position; float a : SV_ClipDistance0; float cd[2] : SV_ClipDistance1; float x : X; };
O main(float4 p : P) { O o; o.p = p; o.a = 1; o.cd[0] = p.x; o.cd[1] = p.y; o.x = 1; return o; }
"""


@pytest.mark.parametrize(("text", "want"), [
    # clip and cull distances fill at most two reserved rows among themselves, first fit
    (VS_CLIP_CULL, [("SV_Position", 0, 0, 0, 1, 4), ("SV_ClipDistance", 0, 1, 0, 1, 3),
                    ("SV_CullDistance", 0, 2, 0, 1, 2), ("SV_ClipDistance", 1, 1, 3, 1, 1), ("X", 0, 3, 0, 1, 1)]),
    # an array of clip distances needs two adjacent reserved rows
    (VS_CLIP_ARRAY, [("SV_Position", 0, 0, 0, 1, 4), ("SV_ClipDistance", 0, 1, 0, 1, 1),
                     ("SV_ClipDistance", 1, 1, 1, 2, 1), ("X", 0, 3, 0, 1, 1)]),
], ids=["clip-cull", "clip-array"])
def test_clip_cull_rows(tmp_path, text, want):
    c = check_dxil(compile_source(tmp_path, text, "vs_6_0"))
    assert placement(c)["out"] == want


PS_WIDTHS = """
float4 main(float16_t2 h : H, float f : F, float16_t g : G, centroid float2 c : C, sample float s : S)
    : SV_Target { return float4(h.x, f, g, c.x + s); }
"""


def test_native_16_bit_elements_do_not_share_rows_with_32_bit(tmp_path):
    src = tmp_path / "s.hlsl"
    src.write_text(PS_WIDTHS)
    res = compile_file(str(src), CompileOptions(profile="ps_6_2", target="dxil", enable_16bit_types=True))
    assert res.ok, [d.message for d in res.diagnostics]
    c = check_dxil(res.binary)
    # H and G (16-bit) share row 0; F (32-bit) cannot; centroid and sample each get their own row
    assert placement(c)["in"] == [("H", 0, 0, 0, 1, 2), ("F", 0, 1, 0, 1, 1), ("G", 0, 0, 2, 1, 1),
                                  ("C", 0, 2, 0, 1, 2), ("S", 0, 3, 0, 1, 1)]
    interp = [e["Interpolation"] for e in parts(c)["PSV0"]["PSVInfo"]["SigInputElements"]]
    assert interp == ["Linear", "Linear", "Linear", "LinearCentroid", "LinearSample"]


def test_disassembly_shows_packed_masks(tmp_path):
    src = tmp_path / "s.hlsl"
    src.write_text(VS_BASIC)
    res = compile_file(str(src), CompileOptions(profile="vs_6_0", target="dxil"))
    text = res.disassembly
    assert ";   TEX1  register 1  mask __zw  rows 1" in text and ";   COLOR0  register 2  mask ___w  rows 1" in text


# ------------------------------------------------------------------ the product's own checker
def backend_output(tmp_path, text: str, profile: str):
    from shaderbuild_dxil.backend import compile_dxil
    src = tmp_path / "s.hlsl"
    src.write_text(text)
    options = CompileOptions(profile=profile, target="dxil")
    prof = parse_profile(profile)
    pp = preprocess(str(src), text=text)
    from shaderbuild.diagnostics import DiagnosticSink
    module = analyze(parse(pp.tokens), options, prof, DiagnosticSink(), list(pp.files), str(src))
    run_shared_passes(module, options)
    return compile_dxil(module, options)


def test_checker_rejects_overlapping_elements(tmp_path):
    from shaderbuild_dxil import check
    out = backend_output(tmp_path, VS_BASIC, "vs_6_0")
    check.check_container_info(out.lowered, out.info)
    check.check_container(out.lowered, out.container)
    tex1 = out.lowered.outputs[2]
    tex1.start_col = 1                                  # now overlaps TEX0's y
    with pytest.raises(check.DxilCheckError, match="overlap at row 1 column 1"):
        check.check_container_info(out.lowered, out.info)
    tex1.start_col = 2
    out.lowered.outputs[4].start_row = 3                # COLOR moved to an empty row
    check.check_container_info(out.lowered, out.info)   # a legal (if different) placement ...
    with pytest.raises(check.DxilCheckError, match="OSG1 registers or masks disagree"):
        check.check_container(out.lowered, out.container)   # ... but no longer what the parts say


def test_checker_rejects_mixed_interpolation_and_wrong_psv(tmp_path):
    from shaderbuild_dxil import check
    from shaderbuild_dxil.container import parse_container
    out = backend_output(tmp_path, PS_INTERP, "ps_6_0")
    flat = out.lowered.inputs[4]                         # FLAT (constant) moved into the linear row 1
    saved = flat.start_row, flat.start_col
    flat.start_row, flat.start_col = 1, 3
    out.lowered.inputs[6].start_row = 3                  # S out of the way
    with pytest.raises(check.DxilCheckError, match="mixes interpolation modes"):
        check.check_container_info(out.lowered, out.info)
    flat.start_row, flat.start_col = saved
    out.lowered.inputs[6].start_row = 1
    # corrupt SigInputVectors in the written PSV0 part
    blob = bytearray(out.container)
    psv = parse_container(bytes(blob))["PSV0"]
    at = bytes(blob).index(psv) + 4 + 31
    assert blob[at] == 4
    blob[at] = 5
    with pytest.raises(check.DxilCheckError, match="PSV0 says 5 I vectors"):
        check.check_container(out.lowered, bytes(blob))


def test_checker_requires_target_rows(tmp_path):
    from shaderbuild_dxil import check
    out = backend_output(tmp_path, PS_TARGETS, "ps_6_0")
    out.lowered.outputs[3].start_row = 2
    with pytest.raises(check.DxilCheckError, match="SV_Target3 is in row 2"):
        check.check_container_info(out.lowered, out.info)


def test_too_many_rows_is_a_located_error(tmp_path):
    fields = "".join(f"nointerpolation uint4 v{i} : V{i}; " for i in range(32))
    text = f"struct O {{ float4 p : SV_Position; {fields}}};\nO main() {{ O o = (O)0; return o; }}\n"
    src = tmp_path / "s.hlsl"
    src.write_text(text)
    res = compile_file(str(src), CompileOptions(profile="vs_6_0", target="dxil"))
    assert not res.ok
    assert any("does not fit in the 32 output registers" in d.message for d in res.diagnostics)


@pytest.mark.parametrize("decl", ["float2 a[2] : TEXCOORD0, float b : TEXCOORD1",
                                  "float4 a[2] : SV_Target0, out float4 b : SV_Target1"])
def test_overlapping_semantic_indices_are_errors(tmp_path, decl):
    ret = "void" if "SV_Target" in decl else "float4"
    body = "a[0] = 0; a[1] = 1; b = 2;" if "SV_Target" in decl else "return a[1].xyxy + b;"
    params = decl.replace("float4 a[2]", "out float4 a[2]")
    text = f"{ret} main({params}){' : SV_Target' if ret == 'float4' else ''} {{ {body} }}\n"
    src = tmp_path / "s.hlsl"
    src.write_text(text)
    res = compile_file(str(src), CompileOptions(profile="ps_6_0", target="dxil"))
    assert not res.ok
    assert any("has overlapping semantic index 1" in d.message for d in res.diagnostics), \
        [d.message for d in res.diagnostics]


def test_same_element_at_two_signature_points(tmp_path):
    """Per-element facts are shared across elements and shaders (signature.py caches them per
    semantic, type, interpolation and SigPoint): the same declaration still gets each point's
    interpolation mode, and a later shader with other elements packs from scratch."""
    text = "float2 main(float2 uv : TEXCOORD0, out float2 o : TEXCOORD0) : TEXCOORD1 { o = uv; return uv * 2; }\n"
    for _ in range(2):
        c = check_dxil(compile_source(tmp_path, text, "vs_6_0"))
        md_in, md_out = metadata_signatures(c.ir)
        assert [(e["name"], e["interp"]) for e in md_in] == [("TEXCOORD", 0)]       # VS inputs: undefined
        assert [(e["name"], e["interp"], e["row"], e["col"]) for e in md_out] == [
            ("TEXCOORD", 2, 0, 0), ("TEXCOORD", 2, 0, 2)]                                 # linear, shared row
        other = check_dxil(compile_source(tmp_path, VS_BASIC, "vs_6_0"))
        assert placement(other)["out"][1] == ("TEX", 0, 1, 0, 1, 2)


def test_invalid_semantic_is_rejected_every_time(tmp_path):
    """An element rejected at a signature point is rejected on every compile (errors are not
    cached), while the same semantic stays valid where it belongs."""
    src = tmp_path / "s.hlsl"
    src.write_text("float4 main(float4 x : SV_Target) : SV_Target { return x; }\n")
    for _ in range(2):
        res = compile_file(str(src), CompileOptions(profile="ps_6_0", target="dxil"))
        assert not res.ok
        assert any("invalid semantic 'SV_Target' for pixel shader input" in d.message for d in res.diagnostics), \
            [d.message for d in res.diagnostics]
        src2 = tmp_path / "ok.hlsl"
        src2.write_text("float4 main(float4 x : X) : SV_Target { return x; }\n")
        assert compile_file(str(src2), CompileOptions(profile="ps_6_0", target="dxil")).ok
