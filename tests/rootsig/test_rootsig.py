"""Root signatures: the string grammar, RTS0 serialization read back by an independent reader, and
the root signature's own validation (overlaps, flags, table contents).

`harness.rts0.read_rts0` is written from the D3D12 structure definitions (d3d12.h: D3D12_VERSIONED_ROOT_SIGNATURE_DESC,
D3D12_ROOT_PARAMETER(1), D3D12_DESCRIPTOR_RANGE(1), D3D12_ROOT_CONSTANTS, D3D12_ROOT_DESCRIPTOR(1),
D3D12_STATIC_SAMPLER_DESC as the runtime serializes them), not from shaderbuild's writer; the expected
values below are the d3d12.h enumerator values, written out by hand."""

from __future__ import annotations

import struct

import pytest
from harness.rts0 import read_rts0
from hypothesis import given, settings
from hypothesis import strategies as st

from shaderbuild.diagnostics import CompileError
from shaderbuild.rootsig import model, parse, serialize, to_string
from shaderbuild.rootsig.validate import check_signature

FLT_MAX = 3.402823466e38


def _f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", x))[0]


DEFAULT_SAMPLER = {"Filter": 0x55, "AddressU": 1, "AddressV": 1, "AddressW": 1, "MipLODBias": 0.0,
                   "MaxAnisotropy": 16, "ComparisonFunc": 4, "BorderColor": 2, "MinLOD": 0.0,
                   "MaxLOD": _f32(FLT_MAX), "ShaderRegister": 0, "RegisterSpace": 0, "ShaderVisibility": 0}


def _table(vis: int, *ranges: dict) -> dict:
    return {"ParameterType": 0, "ShaderVisibility": vis, "DescriptorRanges": list(ranges)}


def _range(rt, nd, base, space, offset, flags=None) -> dict:
    r = {"RangeType": rt, "NumDescriptors": nd, "BaseShaderRegister": base, "RegisterSpace": space,
         "OffsetInDescriptorsFromTableStart": offset}
    if flags is not None:
        r["Flags"] = flags
    return r


APPEND = UNBOUNDED = 0xFFFFFFFF

# (string, version, expected decode)
CASES = [
    ("", "1.1", {"Version": 2, "Flags": 0, "Parameters": [], "StaticSamplers": []}),
    ("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT | DENY_PIXEL_SHADER_ROOT_ACCESS)", "1.0",
     {"Version": 1, "Flags": 0x21, "Parameters": [], "StaticSamplers": []}),
    ("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT|DENY_VERTEX_SHADER_ROOT_ACCESS|DENY_HULL_SHADER_ROOT_ACCESS|"
     "DENY_DOMAIN_SHADER_ROOT_ACCESS|DENY_GEOMETRY_SHADER_ROOT_ACCESS|DENY_PIXEL_SHADER_ROOT_ACCESS|"
     "ALLOW_STREAM_OUTPUT|LOCAL_ROOT_SIGNATURE|DENY_AMPLIFICATION_SHADER_ROOT_ACCESS|DENY_MESH_SHADER_ROOT_ACCESS|"
     "CBV_SRV_UAV_HEAP_DIRECTLY_INDEXED|SAMPLER_HEAP_DIRECTLY_INDEXED)", "1.1",
     {"Version": 2, "Flags": 0xFFF, "Parameters": [], "StaticSamplers": []}),
    ("RootConstants(num32BitConstants=4, b2, space=3, visibility=SHADER_VISIBILITY_VERTEX)", "1.1",
     {"Version": 2, "Flags": 0, "StaticSamplers": [], "Parameters": [
         {"ParameterType": 1, "ShaderVisibility": 1,
          "Constants": {"ShaderRegister": 2, "RegisterSpace": 3, "Num32BitValues": 4}}]}),
    ("CBV(b0), SRV(t1, space=2, flags=DATA_STATIC), UAV(u3, visibility=SHADER_VISIBILITY_PIXEL)", "1.1",
     {"Version": 2, "Flags": 0, "StaticSamplers": [], "Parameters": [
         {"ParameterType": 2, "ShaderVisibility": 0, "Descriptor": {"ShaderRegister": 0, "RegisterSpace": 0, "Flags": 0}},
         {"ParameterType": 3, "ShaderVisibility": 0, "Descriptor": {"ShaderRegister": 1, "RegisterSpace": 2, "Flags": 8}},
         {"ParameterType": 4, "ShaderVisibility": 5, "Descriptor": {"ShaderRegister": 3, "RegisterSpace": 0, "Flags": 0}}]}),
    ("CBV(b0), SRV(t1, space=2), UAV(u3, visibility=SHADER_VISIBILITY_PIXEL)", "1.0",
     {"Version": 1, "Flags": 0, "StaticSamplers": [], "Parameters": [
         {"ParameterType": 2, "ShaderVisibility": 0, "Descriptor": {"ShaderRegister": 0, "RegisterSpace": 0}},
         {"ParameterType": 3, "ShaderVisibility": 0, "Descriptor": {"ShaderRegister": 1, "RegisterSpace": 2}},
         {"ParameterType": 4, "ShaderVisibility": 5, "Descriptor": {"ShaderRegister": 3, "RegisterSpace": 0}}]}),
    ("CBV(b1, flags = DATA_VOLATILE), SRV(t0, flags = DATA_STATIC_WHILE_SET_AT_EXECUTE), UAV(u0, flags = 0)", "1.1",
     {"Version": 2, "Flags": 0, "StaticSamplers": [], "Parameters": [
         {"ParameterType": 2, "ShaderVisibility": 0, "Descriptor": {"ShaderRegister": 1, "RegisterSpace": 0, "Flags": 2}},
         {"ParameterType": 3, "ShaderVisibility": 0, "Descriptor": {"ShaderRegister": 0, "RegisterSpace": 0, "Flags": 4}},
         {"ParameterType": 4, "ShaderVisibility": 0, "Descriptor": {"ShaderRegister": 0, "RegisterSpace": 0, "Flags": 0}}]}),
    ("DescriptorTable(SRV(t0, numDescriptors=4), CBV(b1), UAV(u0, numDescriptors=unbounded, space=1, offset=10, "
     "flags=DESCRIPTORS_VOLATILE|DATA_VOLATILE), visibility=SHADER_VISIBILITY_PIXEL)", "1.1",
     {"Version": 2, "Flags": 0, "StaticSamplers": [], "Parameters": [
         _table(5, _range(0, 4, 0, 0, APPEND, 0), _range(2, 1, 1, 0, APPEND, 0),
                _range(1, UNBOUNDED, 0, 1, 10, 3))]}),
    ("DescriptorTable(SRV(t0, numDescriptors=4), CBV(b1, offset=DESCRIPTOR_RANGE_OFFSET_APPEND), UAV(u0, "
     "numDescriptors=unbounded, space=1, offset=10), visibility=SHADER_VISIBILITY_PIXEL)", "1.0",
     {"Version": 1, "Flags": 0, "StaticSamplers": [], "Parameters": [
         _table(5, _range(0, 4, 0, 0, APPEND), _range(2, 1, 1, 0, APPEND), _range(1, UNBOUNDED, 0, 1, 10))]}),
    ("DescriptorTable(Sampler(s0, numDescriptors=2, offset=DESCRIPTOR_RANGE_OFFSET_APPEND)), "
     "DescriptorTable(Sampler(s4, flags=DESCRIPTORS_VOLATILE), visibility=SHADER_VISIBILITY_MESH), "
     "DescriptorTable(SRV(t0, flags=DESCRIPTORS_STATIC_KEEPING_BUFFER_BOUNDS_CHECKS), "
     "visibility=SHADER_VISIBILITY_AMPLIFICATION)", "1.1",
     {"Version": 2, "Flags": 0, "StaticSamplers": [], "Parameters": [
         _table(0, _range(3, 2, 0, 0, APPEND, 0)), _table(7, _range(3, 1, 4, 0, APPEND, 1)),
         _table(6, _range(0, 1, 0, 0, APPEND, 0x10000))]}),
    ("StaticSampler(s0)", "1.1",
     {"Version": 2, "Flags": 0, "Parameters": [], "StaticSamplers": [DEFAULT_SAMPLER]}),
    ("StaticSampler(s3, filter=FILTER_COMPARISON_MIN_MAG_LINEAR_MIP_POINT, addressU=TEXTURE_ADDRESS_CLAMP, "
     "addressV=TEXTURE_ADDRESS_BORDER, addressW=TEXTURE_ADDRESS_MIRROR_ONCE, mipLODBias=-1.5, maxAnisotropy=8, "
     "comparisonFunc=COMPARISON_GREATER_EQUAL, borderColor=STATIC_BORDER_COLOR_OPAQUE_BLACK, minLOD=1.0, maxLOD=9.5f, "
     "space=7, visibility=SHADER_VISIBILITY_GEOMETRY), StaticSampler(s1, filter=FILTER_MAXIMUM_ANISOTROPIC, "
     "addressU=TEXTURE_ADDRESS_MIRROR, comparisonFunc=COMPARISON_NEVER, borderColor=STATIC_BORDER_COLOR_TRANSPARENT_BLACK)",
     "1.0",
     {"Version": 1, "Flags": 0, "Parameters": [], "StaticSamplers": [
         {"Filter": 0x94, "AddressU": 3, "AddressV": 4, "AddressW": 5, "MipLODBias": -1.5, "MaxAnisotropy": 8,
          "ComparisonFunc": 7, "BorderColor": 1, "MinLOD": 1.0, "MaxLOD": 9.5, "ShaderRegister": 3,
          "RegisterSpace": 7, "ShaderVisibility": 4},
         {**DEFAULT_SAMPLER, "Filter": 0x1D5, "AddressU": 2, "ComparisonFunc": 1, "BorderColor": 0, "ShaderRegister": 1}]}),
    ("RootFlags(0), RootConstants(num32BitConstants=1, b0, visibility=SHADER_VISIBILITY_HULL), "
     "DescriptorTable(CBV(b1, numDescriptors=2, space=1, flags=DATA_STATIC), SRV(t2, offset=5), "
     "visibility=SHADER_VISIBILITY_DOMAIN), UAV(u1, space=4, flags=DATA_STATIC_WHILE_SET_AT_EXECUTE), "
     "StaticSampler(s2, filter=FILTER_MINIMUM_MIN_POINT_MAG_MIP_LINEAR)", "1.1",
     {"Version": 2, "Flags": 0, "Parameters": [
         {"ParameterType": 1, "ShaderVisibility": 2,
          "Constants": {"ShaderRegister": 0, "RegisterSpace": 0, "Num32BitValues": 1}},
         _table(3, _range(2, 2, 1, 1, APPEND, 8), _range(0, 1, 2, 0, 5, 0)),
         {"ParameterType": 4, "ShaderVisibility": 0, "Descriptor": {"ShaderRegister": 1, "RegisterSpace": 4, "Flags": 4}}],
      "StaticSamplers": [{**DEFAULT_SAMPLER, "Filter": 0x105, "ShaderRegister": 2}]}),
]


@pytest.mark.parametrize("text,version,expected", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_rts0_read_back(text, version, expected):
    rs = parse(text, version)
    check_signature(rs)
    assert read_rts0(serialize(rs)) == expected


@pytest.mark.parametrize("text,version", [(t, v) for t, v, _ in CASES], ids=[f"case{i}" for i in range(len(CASES))])
def test_printed_string_parses_to_the_same_signature(text, version):
    rs = parse(text, version)
    for compact in (False, True):
        again = parse(to_string(rs, compact=compact), version)
        assert again == rs
        assert serialize(again) == serialize(rs)


def test_compact_form_leaves_out_defaults():
    rs = parse("RootFlags(0), DescriptorTable(SRV(t0, numDescriptors=1, space=0, offset=DESCRIPTOR_RANGE_OFFSET_APPEND, "
               "flags=DATA_STATIC_WHILE_SET_AT_EXECUTE), Sampler(s0), visibility=SHADER_VISIBILITY_ALL), "
               "UAV(u1, flags=DATA_VOLATILE), StaticSampler(s1, maxAnisotropy=16, filter=FILTER_MIN_MAG_MIP_POINT)")
    assert to_string(rs, compact=True) == (
        "DescriptorTable(SRV(t0, flags = DATA_STATIC_WHILE_SET_AT_EXECUTE), Sampler(s0)), "
        "UAV(u1, flags = DATA_VOLATILE), StaticSampler(s1, filter = FILTER_MIN_MAG_MIP_POINT)")


def test_omitted_flags_serialize_as_none():
    """DXC leaves an omitted `flags` NONE (0) in RTS0; the runtime reads NONE at 1.1 as its defaults
    (CBV/SRV: DATA_STATIC_WHILE_SET_AT_EXECUTE, UAV: DATA_VOLATILE), which the manifest spells out."""
    from shaderbuild.rootsig.manifest import manifest_view

    rs = parse("CBV(b0), UAV(u0), DescriptorTable(SRV(t0), UAV(u1), Sampler(s0, space=1), CBV(b1, flags=DATA_STATIC))")
    decoded = read_rts0(serialize(rs))
    assert [p.get("Descriptor", {}).get("Flags") for p in decoded["Parameters"]] == [0, 0, None]
    assert [r["Flags"] for r in decoded["Parameters"][2]["DescriptorRanges"]] == [0, 0, 0, 8]
    view = manifest_view(rs)["parameters"]
    assert [(p["flags"], p["effective_flags"]) for p in view[:2]] == [
        ([], ["DATA_STATIC_WHILE_SET_AT_EXECUTE"]), ([], ["DATA_VOLATILE"])]
    assert [r["effective_flags"] for r in view[2]["ranges"]] == [
        ["DATA_STATIC_WHILE_SET_AT_EXECUTE"], ["DATA_VOLATILE"], [], ["DATA_STATIC"]]
    old = manifest_view(parse("CBV(b0), DescriptorTable(SRV(t0)), DescriptorTable(Sampler(s0))", "1.0"))["parameters"]
    assert old[0]["effective_flags"] == ["DATA_VOLATILE"]
    assert old[1]["ranges"][0]["effective_flags"] == ["DESCRIPTORS_VOLATILE", "DATA_VOLATILE"]
    assert old[2]["ranges"][0]["effective_flags"] == ["DESCRIPTORS_VOLATILE"]


def test_arguments_in_any_order():
    """DXC reads a clause's arguments in any order, the register included."""
    a = parse("RootConstants(b3, visibility=SHADER_VISIBILITY_PIXEL, num32BitConstants=2), CBV(space=1, b0), "
              "DescriptorTable(visibility=SHADER_VISIBILITY_VERTEX, SRV(numDescriptors=3, t4)), "
              "StaticSampler(filter=FILTER_MIN_MAG_MIP_POINT, s2)")
    b = parse("RootConstants(num32BitConstants=2, b3, visibility=SHADER_VISIBILITY_PIXEL), CBV(b0, space=1), "
              "DescriptorTable(SRV(t4, numDescriptors=3), visibility=SHADER_VISIBILITY_VERTEX), "
              "StaticSampler(s2, filter=FILTER_MIN_MAG_MIP_POINT)")
    assert a == b and serialize(a) == serialize(b)


def test_layout_offsets_follow_d3d12_order():
    """Header (24 bytes), parameter headers (12 each), each payload in order with a table's ranges right after
    its table header, then the static samplers (52 bytes each)."""
    data = serialize(parse("DescriptorTable(SRV(t0), UAV(u0)), CBV(b0), StaticSampler(s0)"))
    assert struct.unpack_from("<6I", data, 0) == (2, 2, 24, 1, 24 + 24 + 8 + 48 + 12, 0)
    assert struct.unpack_from("<3I", data, 24) == (0, 0, 48)          # table payload right after the headers
    assert struct.unpack_from("<2I", data, 48) == (2, 56)             # 2 ranges at 56
    assert struct.unpack_from("<3I", data, 36) == (2, 0, 104)         # the CBV's payload after the ranges
    assert len(data) == 116 + 52


def test_keywords_are_case_insensitive():
    assert parse("DescriptorTable(SRV(t0, numDescriptors=4294967295, offset=4294967295))") == \
        parse("DescriptorTable(SRV(t0, numDescriptors=unbounded, offset=DESCRIPTOR_RANGE_OFFSET_APPEND))")
    a = parse("rootflags(allow_input_assembler_input_layout), descriptortable(srv(t0), visibility=shader_visibility_pixel)")
    b = parse("RootFlags(ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT), DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_PIXEL)")
    assert a == b


def _error(text: str, version: str = "1.1", check: bool = False) -> str:
    with pytest.raises(CompileError) as ei:
        rs = parse(text, version)
        if check:
            check_signature(rs)
    d = ei.value.diagnostics[0]
    return f"{d.loc.col}: {d.message}"


@pytest.mark.parametrize("text,message", [
    ("CBV(t0)", "5: root signature: expected a 'b' register for root CBV, found 't0'"),
    ("RootConstants(b0)", "1: root signature: RootConstants needs 'num32BitConstants'"),
    ("DescriptorTable(SRV(t0), Foo(t1))", "26: root signature: expected CBV, SRV, UAV, Sampler or visibility in "
                                          "DescriptorTable, found 'Foo'"),
    ("SRV(t0, space=1, space=2)", "18: root signature: 'space' is specified more than once in root SRV"),
    ("CBV(b0) UAV(u0)", "9: root signature: expected ',' between root signature clauses, found 'UAV'"),
    ("CBV(b0", "7: root signature: expected ')' to close 'CBV', found end of string"),
    ("StaticSampler(s0, filter=FILTER_BILINEAR)", "26: root signature: unknown filter 'FILTER_BILINEAR'"),
    ("RootFlags(DENY_EVERYTHING)", "11: root signature: unknown root flag 'DENY_EVERYTHING'"),
    ("SRV(t0, visibility=SHADER_VISIBILITY_COMPUTE)", "20: root signature: unknown shader visibility "
                                                      "'SHADER_VISIBILITY_COMPUTE'"),
    ("RootFlags(0), RootFlags(0)", "15: root signature: RootFlags is specified more than once"),
    ("CBV(b0, numDescriptors=2)", "9: root signature: unexpected 'numDescriptors' in root CBV (expected a 'b' "
                                  "register, space, visibility, flags)"),
    ("SRV(space=1)", "1: root signature: root SRV needs a 't' register"),
    ("DescriptorTable(UAV(numDescriptors=2))", "17: root signature: UAV range needs a 'u' register"),
    ("StaticSampler(s0, s1)", "19: root signature: the shader register is specified more than once in StaticSampler"),
    ("SRV(T0)", "5: root signature: unexpected 'T0' in root SRV (expected a 't' register, space, visibility, flags)"),
    ("CBV(b4294967296)", "5: root signature: register 'b4294967296' does not fit in 32 bits"),
    ("Table(SRV(t0))", "1: root signature: expected RootFlags, RootConstants, CBV, SRV, UAV, DescriptorTable or "
                       "StaticSampler, found 'Table'"),
])
def test_malformed_strings(text, message):
    assert _error(text) == message


def test_flags_are_refused_at_version_1_0():
    assert _error("CBV(b0, flags=DATA_STATIC)", "1.0") == \
        "9: root signature: flags are not allowed in root signature version 1.0"


@pytest.mark.parametrize("text,message", [
    ("DescriptorTable(SRV(t0, numDescriptors=4)), SRV(t3)",
     "45: root signature: root SRV t3 in space 0 (visibility ALL) overlaps another t register range"),
    ("DescriptorTable(SRV(t0, numDescriptors=4), visibility=SHADER_VISIBILITY_PIXEL), "
     "DescriptorTable(SRV(t4, numDescriptors=unbounded), SRV(t2, offset=0), visibility=SHADER_VISIBILITY_PIXEL)",
     "132: root signature: SRV range t2 in space 0 (visibility PIXEL) overlaps another t register range"),
    ("RootConstants(num32BitConstants=2, b0), CBV(b0)",
     "41: root signature: root CBV b0 in space 0 (visibility ALL) overlaps another b register range"),
    ("DescriptorTable(Sampler(s0, numDescriptors=2)), StaticSampler(s1)",
     "49: root signature: StaticSampler s1 in space 0 (visibility ALL) overlaps another s register range"),
    ("DescriptorTable(SRV(t0), Sampler(s0))",
     "26: root signature: a descriptor table cannot mix Sampler ranges with CBV, SRV or UAV ranges"),
    ("DescriptorTable(Sampler(s0, flags=DATA_STATIC))",
     "17: root signature: Sampler range cannot have DATA_STATIC (samplers have no data)"),
    ("CBV(b0, flags=DATA_STATIC|DATA_VOLATILE)",
     "1: root signature: root CBV combines DATA_VOLATILE | DATA_STATIC; at most one DATA_* flag is allowed"),
    ("DescriptorTable(SRV(t0, numDescriptors=unbounded), SRV(t100, space=1))",
     "52: root signature: SRV range cannot be appended after an unbounded range (give it an explicit offset)"),
    ("DescriptorTable(UAV(u0, numDescriptors=0))", "17: root signature: UAV range must have at least one descriptor"),
    ("RootConstants(num32BitConstants=0, b0)",
     "1: root signature: RootConstants must have at least one 32-bit constant"),
    ("DescriptorTable(SRV(t0, offset=4294967294, numDescriptors=3))",
     "17: root signature: SRV range's descriptors go past the end of the table (offset 4294967294, 3 descriptors)"),
    ("StaticSampler(s0, mipLODBias=16)", "1: root signature: StaticSampler mipLODBias 16.0 is outside [-16.0, 15.99]"),
    ("CBV(b0, space=4294967280)",
     "1: root signature: space 0xfffffff0 of root CBV b0 is reserved for system use (0xfffffff0-0xffffffff)"),
])
def test_invalid_signatures(text, message):
    col, _, rest = message.partition(": ")
    assert _error(text, check=True) == message
    # the column counted by hand is where the clause at fault starts
    assert text[int(col) - 1].isalpha() and (int(col) == 1 or text[int(col) - 2] in " (,")


def test_different_visibilities_and_spaces_do_not_overlap():
    check_signature(parse("DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_PIXEL), "
                          "DescriptorTable(SRV(t0), visibility=SHADER_VISIBILITY_VERTEX), SRV(t0, space=1), "
                          "DescriptorTable(Sampler(s0)), DescriptorTable(UAV(u0))"))


def test_enumeration_tables_match_d3d12_values():
    """Spot checks against d3d12.h written by hand (the tables drive the serializer)."""
    assert model.FILTERS["MIN_MAG_MIP_LINEAR"] == 0x15
    assert model.FILTERS["COMPARISON_ANISOTROPIC"] == 0xD5
    assert model.FILTERS["MAXIMUM_MIN_MAG_MIP_POINT"] == 0x180
    assert len(model.FILTERS) == 36


# ------------------------------------------------------------------ printer/parser agreement on random signatures

_u32 = st.integers(0, 0xFFFFFFFE)
_vis = st.sampled_from(list(model.VISIBILITY))


def _flag_mask(table: dict[str, int]):
    return st.lists(st.sampled_from(list(table.values())), max_size=3).map(lambda bits: sum(set(bits)))


@st.composite
def _signatures(draw):
    version = draw(st.sampled_from(["1.0", "1.1"]))
    v11 = version == "1.1"
    params = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(list(model.PARAMETER_TYPES)))
        p = model.RootParameter(kind, draw(_vis), draw(_u32), draw(_u32))
        if kind == "RootConstants":
            p.num_32bit_values = draw(st.integers(1, 64))
        elif kind == "DescriptorTable":
            p.register = p.space = 0
            for _ in range(draw(st.integers(0, 3))):
                rk = draw(st.sampled_from(list(model.RANGE_TYPES)))
                p.ranges.append(model.DescriptorRange(
                    rk, draw(_u32), draw(st.none() | st.integers(1, 1000)), draw(_u32),
                    draw(st.none() | _u32), draw(_flag_mask(model.RANGE_FLAGS)) if v11 else 0))
        elif v11:
            p.flags = draw(_flag_mask(model.DESCRIPTOR_FLAGS))
        params.append(p)
    floats = st.floats(-1e6, 1e6, allow_nan=False).map(_f32)
    samplers = [model.StaticSampler(
        draw(_u32), draw(_u32), draw(st.sampled_from(list(model.FILTERS))),
        *(draw(st.sampled_from(list(model.ADDRESS_MODES))) for _ in range(3)), draw(floats),
        draw(st.integers(0, 16)), draw(st.sampled_from(list(model.COMPARISON_FUNCS))),
        draw(st.sampled_from(list(model.BORDER_COLORS))), draw(floats), draw(floats), draw(_vis))
        for _ in range(draw(st.integers(0, 2)))]
    return model.RootSignature(version, draw(_flag_mask(model.ROOT_FLAGS)), params, samplers)


@settings(max_examples=150, deadline=None)
@given(_signatures())
def test_random_signatures_print_and_parse_back(rs):
    for compact in (False, True):
        again = parse(to_string(rs, compact=compact), rs.version)
        assert again == rs
        assert serialize(again) == serialize(rs)
    decoded = read_rts0(serialize(rs))
    assert len(decoded["Parameters"]) == len(rs.parameters) and len(decoded["StaticSamplers"]) == len(rs.static_samplers)


# The root-signature tokenizer's patterns before its string tests (issue 23: no `re` on the compile path)
_TOKEN_PATTERN = (r"\s*(?:(?P<num>[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?[fF]?)|(?P<id>[A-Za-z_][A-Za-z0-9_]*)"
                  r"|(?P<punct>[(),=|])|(?P<bad>\S))")


def _pattern_tokens(text: str) -> list[tuple[str, str, int]]:
    import re

    out, pos = [], 0
    while (mt := re.compile(_TOKEN_PATTERN).match(text, pos)) is not None:
        kind = mt.lastgroup or "bad"
        out.append((kind, mt.group(kind), mt.start(kind)))
        pos = mt.end()
        if kind == "bad":
            break
    return out + [("end", "", len(text.rstrip()))]


@pytest.mark.parametrize("seed", range(3))
def test_tokens_equal_the_patterns(seed):
    """Random texts over the characters that start, end or change tokens (Unicode digits and blanks
    included): the tokenizer's tokens are the patterns'; and register names (`^([btus])(\\d+)$`) too."""
    import random
    import re

    from shaderbuild.rootsig.parser import LocatedText, _tokens, register_parts

    rng = random.Random(seed)
    alphabet = ["1", "0", "9", "\u0663", ".", "e", "E", "f", "F", "+", "-", "t", "b", "s", "u", "x", "_", "(", ")", ",",
                "=", "|", " ", "\t", "\n", "\u00a0", "\u2003", "#", "\"", "é", "CBV", "b0", "t12"]
    for _ in range(4000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        assert [(t.kind, t.text, t.pos) for t in _tokens(LocatedText(text))] == _pattern_tokens(text), repr(text)
        mt = re.fullmatch(r"([btus])(\d+)", text)      # (the parser asks it of identifier tokens only)
        assert register_parts(text) == (mt and (mt.group(1), int(mt.group(2)))), repr(text)
