"""`globallycoherent` on parameters, locals, static aliases, struct members and return types (issue 20).

The rule, from DXC's source: the attribute is part of the type wherever a UAV is declared
(SemaType.cpp handleHLSLTypeAttr, refused on anything but a UAV: SemaHLSL.cpp DiagnoseHLSLDeclAttr);
a value passing between a coherent and a plain UAV warns (Sema::DiagnoseCoherenceMismatch:
"implicit conversion from 'A' to 'B' adds/loses globallycoherent annotation"), except from a heap
element.  What is coherent is decided where the resource is reached: a global's declaration (its UAV
record, and DxilLowerCreateHandleForLib gives every annotateHandle of a coherent resource its
declaration's properties; SPIR-V DeclResultIdMapper::decorateResourceCoherent decorates the variable),
a struct member's type for the resource the member names (HLOperationLower CreateResourceGV from the
member's properties), and an access through a coherent local or parameter: DXC gives that access's
handle an annotateHandle with the coherent bit (SM 6.6; earlier profiles have no per-handle
properties), this compiler makes the reached resource coherent as a whole on both targets, never less
coherent than DXC.  Every check reads the binaries with independent tools (spirv-dis, llvm-dis-19 via
harness.dxil_tools.check_dxil, whose container also goes through dxil-spirv), and the programs run on
lavapipe and as DXIL.
"""

from __future__ import annotations

import re

import pytest
import res_util as R
from harness import dxil_tools, tools

pytestmark = [pytest.mark.spirv_tools]

SITES_CS = """RWStructuredBuffer<uint> g : register(u0);
globallycoherent RWStructuredBuffer<uint> h : register(u1);
RWStructuredBuffer<uint> k : register(u2);
RWStructuredBuffer<uint> m : register(u3);
struct S { globallycoherent RWStructuredBuffer<uint> c; RWStructuredBuffer<uint> p; };
S s : register(u4);
void viaCoherent(globallycoherent RWStructuredBuffer<uint> b, uint i, uint v) { b[i] = v; }
void viaPlain(RWStructuredBuffer<uint> b, uint i, uint v) { b[i] = v; }
[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    viaCoherent(g, i, i + 1);
    viaPlain(h, i, i + 2);
    RWStructuredBuffer<uint> pk = k;
    pk[i] = i + 3;
    globallycoherent RWStructuredBuffer<uint> cm = m;
    cm[i] = i + 4;
    s.c[i] = i + 5;
    s.p[i] = i + 6;
}
"""
# resource -> (coherent?, the value thread i writes is i + this)
SITES = {"g": (True, 1), "h": (True, 2), "k": (False, 3), "m": (True, 4), "s.c": (True, 5), "s.p": (False, 6)}
SITE_WARNINGS = [
    "11:17: implicit conversion from 'RWStructuredBuffer<uint>' to 'globallycoherent RWStructuredBuffer<uint>' "
    "adds globallycoherent annotation",
    "12:14: implicit conversion from 'globallycoherent RWStructuredBuffer<uint>' to 'RWStructuredBuffer<uint>' "
    "loses globallycoherent annotation",
    "15:52: implicit conversion from 'RWStructuredBuffer<uint>' to 'globallycoherent RWStructuredBuffer<uint>' "
    "adds globallycoherent annotation",
]


def _warnings(res) -> list[str]:
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" for d in res.diagnostics if d.severity == "warning"]


def _coherent_vars(dis: str) -> dict[str, bool]:
    """OpName of each variable decorated with a Binding -> whether it is also decorated Coherent."""
    names = dict(re.findall(r'OpName (%\S+) "([^"]+)"', dis))
    bound = re.findall(r"OpDecorate (%\S+) Binding \d+", dis)
    return {names[v]: bool(re.search(rf"OpDecorate {re.escape(v)} Coherent\b", dis)) for v in bound}


@pytest.mark.parametrize("opt_level", [0, 3])
@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_6"])
def test_sites_spirv(profile, opt_level):
    """Coherent on the variables of g (reached through a coherent parameter), h (declared), m (through a
    coherent local) and s.c (a coherent member); not on k (a plain local) nor s.p; DXC's three warnings."""
    res = R.compile_hlsl(SITES_CS, "main", profile, "spirv", opt_level=opt_level)
    assert res.ok, R.diagnostics_text(res)
    assert _warnings(res) == SITE_WARNINGS, _warnings(res)
    tools.spirv_val(res.binary, "vulkan1.1")
    assert _coherent_vars(tools.spirv_dis(res.binary)) == {n: c for n, (c, _) in SITES.items()}


def _uav_records(ir: str) -> dict[str, str]:
    """name -> the UAV record's globally-coherent field (DXIL.rst: id, symbol, name, space, lower bound,
    range, shape, globally coherent, ...)."""
    return {m.group(1): m.group(2) for m in re.finditer(
        r'^!\d+ = !\{i32 \d+, [^,]+, !"([\w.]+)", i32 \d+, i32 \d+, i32 \d+, i32 \d+, (i1 \w+),', ir, re.M)}


@pytest.mark.llvm
@pytest.mark.parametrize("profile", ["cs_6_0", "cs_6_6"])
def test_sites_dxil(profile):
    """The UAV records' globally-coherent field; at SM 6.6 annotateHandle's ResourceProperties bit 14 on the
    handles of the four coherent resources only; dxil-spirv decorates four variables Coherent."""
    res = R.compile_hlsl(SITES_CS, "main", profile, "dxil")
    assert res.ok, R.diagnostics_text(res)
    assert _warnings(res) == SITE_WARNINGS, _warnings(res)
    checked = dxil_tools.check_dxil(res.binary)
    want = {n: f"i1 {'true' if c else 'false'}" for n, (c, _) in SITES.items()}
    assert _uav_records(checked.ir) == want, checked.ir
    if profile == "cs_6_6":
        props = [int(d0) for d0 in re.findall(r"%dx\.types\.ResourceProperties \{ i32 (\d+), i32 \d+ \}", checked.ir)]
        assert sorted(d0 >> 14 & 1 for d0 in props) == [0, 0, 1, 1, 1, 1], props
    assert checked.spirv is not None
    dis = tools.spirv_dis(checked.spirv)
    assert len(re.findall(r"OpDecorate %\S+ Coherent", dis)) == 4, dis


@pytest.mark.vulkan
def test_sites_executed():
    """Every write lands where its path leads, on lavapipe and as DXIL (R.cs runs the DXIL twin)."""
    specs = {name: R.storage(R.sentinel(4)) for name in SITES}
    got = R.cs(SITES_CS, specs, profile="cs_6_0")
    for name, (_, add) in SITES.items():
        assert R.unpack("I", got[name]) == [i + add for i in range(4)], (name, R.unpack("I", got[name]))


GROUPS = 16
LAST_GROUP_CS = f"""RWStructuredBuffer<uint> partial : register(u0);
RWStructuredBuffer<uint> counter : register(u1);
RWStructuredBuffer<uint> result : register(u2);
void publish(globallycoherent RWStructuredBuffer<uint> p, uint g) {{ p[g] = g * g + 7; }}
[numthreads(1, 1, 1)]
void main(uint3 gid : SV_GroupID) {{
    publish(partial, gid.x);
    DeviceMemoryBarrier();
    uint before;
    InterlockedAdd(counter[0], 1, before);
    if (before == {GROUPS} - 1) {{
        globallycoherent RWStructuredBuffer<uint> seen = partial;
        uint sum = 0;
        for (uint j = 0; j < {GROUPS}; ++j)
            sum += seen[j];
        result[0] = sum;
    }}
}}
"""


@pytest.mark.vulkan
def test_last_group_reads_every_group_through_coherent_aliases():
    """Each group publishes a value through a coherent parameter, and the group arriving last at the counter
    sums all of them through a coherent local: the plain global they reach is Coherent (so the other
    groups' writes are visible to it), and the sum is every group's value, on both targets."""
    res = R.compile_hlsl(LAST_GROUP_CS, "main", "cs_6_0", "spirv")
    assert res.ok, R.diagnostics_text(res)
    assert _coherent_vars(tools.spirv_dis(res.binary)) == {"partial": True, "counter": False, "result": False}
    specs = {"partial": R.storage(R.sentinel(GROUPS)), "counter": R.storage(bytes(4)),
             "result": R.storage(R.sentinel(1))}
    got = R.cs(LAST_GROUP_CS, specs, groups=(GROUPS, 1, 1))
    assert R.unpack("I", got["counter"]) == [GROUPS]
    assert R.unpack("I", got["partial"]) == [g * g + 7 for g in range(GROUPS)]
    assert R.unpack("I", got["result"]) == [sum(g * g + 7 for g in range(GROUPS))]


HEAD = "RWBuffer<uint> g : register(u0);\ngloballycoherent RWBuffer<uint> h : register(u1);\n"


@pytest.mark.parametrize(("body", "expected"), [
    ("void f(inout globallycoherent RWBuffer<uint> b) { b[0] = 1; }\n"
     "[numthreads(1, 1, 1)] void main() { RWBuffer<uint> l = g; f(l); }\n",
     "4:61: implicit conversion from 'RWBuffer<uint>' to 'globallycoherent RWBuffer<uint>' adds"),
    ("[numthreads(1, 1, 1)] void main() {\n    RWBuffer<uint> l = g;\n    l = h;\n    l[0] = 1;\n}\n",
     "5:9: implicit conversion from 'globallycoherent RWBuffer<uint>' to 'RWBuffer<uint>' loses"),
    ("globallycoherent RWBuffer<uint> get() { return g; }\n"
     "[numthreads(1, 1, 1)] void main() { RWBuffer<uint> r = get(); r[0] = 1; }\n",
     "3:48: implicit conversion from 'RWBuffer<uint>' to 'globallycoherent RWBuffer<uint>' adds"),
    ("static globallycoherent RWBuffer<uint> a = g;\n[numthreads(1, 1, 1)] void main() { a[0] = 1; }\n",
     "3:44: implicit conversion from 'RWBuffer<uint>' to 'globallycoherent RWBuffer<uint>' adds"),
])
def test_mismatch_warned_where_the_value_passes(body, expected):
    """DXC's warning at the argument, the assigned value, the returned value and the alias's initializer."""
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(HEAD + body, "main", "cs_6_6", target)
        assert res.ok, R.diagnostics_text(res)
        warnings = _warnings(res)
        assert len(warnings) == 1 and warnings[0] == expected + " globallycoherent annotation", warnings


def test_static_alias_makes_its_resource_coherent():
    """Every access through a coherent static alias is coherent: the resource it names is."""
    res = R.compile_hlsl(HEAD + "static globallycoherent RWBuffer<uint> a = g;\n"
                         "[numthreads(1, 1, 1)] void main() { a[0] = 1; h[0] = 2; }\n", "main", "cs_6_0", "spirv")
    assert res.ok, R.diagnostics_text(res)
    assert _coherent_vars(tools.spirv_dis(res.binary)) == {"g": True, "h": True}


def test_matching_coherence_and_heap_elements_do_not_warn():
    """Same coherence on both sides, or a heap element (it has none of its own), warns nothing."""
    src = HEAD + ("void f(globallycoherent RWBuffer<uint> b) { b[0] = 1; }\n"
                  "void p(RWBuffer<uint> b) { b[1] = 1; }\n"
                  "[numthreads(1, 1, 1)] void main() {\n"
                  "    f(h); p(g);\n"
                  "    globallycoherent RWBuffer<uint> c = h; c[2] = 1;\n"
                  "    globallycoherent RWBuffer<uint> d = ResourceDescriptorHeap[0]; d[0] = 1;\n"
                  "    RWBuffer<uint> e = ResourceDescriptorHeap[1]; e[0] = 1;\n"
                  "}\n")
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(src, "main", "cs_6_6", target)
        assert res.ok and _warnings(res) == [], R.diagnostics_text(res)


@pytest.mark.parametrize(("src", "where"), [
    ("Buffer<uint> g : register(t0);\nvoid f(globallycoherent Buffer<uint> b) { }\n"
     "[numthreads(1, 1, 1)] void main() { f(g); }\n", "2:38"),
    ("Buffer<uint> g : register(t0);\n[numthreads(1, 1, 1)] void main() {\n"
     "    globallycoherent Buffer<uint> b = g;\n}\n", "3:35"),
    ("struct S { globallycoherent Texture2D<float> t; };\n[numthreads(1, 1, 1)] void main() { }\n", "1:46"),
    ("globallycoherent Buffer<uint> get();\n[numthreads(1, 1, 1)] void main() { }\n", "1:18"),
    ("[numthreads(1, 1, 1)] void main() { globallycoherent uint x = 1; }\n", "1:59"),
])
def test_on_a_non_uav_refused_where_written(src, where):
    """DXC's err_hlsl_varmodifierna_decltype wording, at the declaration, on every kind of site."""
    for target in ("spirv", "dxil"):
        errs = R.errors(R.compile_hlsl(src, "main", "cs_6_6", target))
        assert errs and errs[0] == where + ": 'globallycoherent' can only be applied to UAV objects", errs


def test_streams_are_not_uavs():
    """A stream object binds no register: passed to a helper it meets no coherence check (an internal
    error once: the check asked a stream for its register class), and `globallycoherent` on one is refused."""
    helper = ("struct V { float4 pos : SV_Position; };\n"
              "void emit(inout TriangleStream<V> s, V v) { s.Append(v); }\n"
              "[maxvertexcount(3)] void main(triangle V i[3], inout TriangleStream<V> s) {\n"
              "    emit(s, i[0]); emit(s, i[1]); emit(s, i[2]);\n}\n")
    qualified = ("struct V { float4 pos : SV_Position; };\n"
                 "[maxvertexcount(3)] void main(triangle V i[3], globallycoherent inout TriangleStream<V> s) {\n"
                 "    s.Append(i[0]);\n}\n")
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(helper, "main", "gs_6_0", target)
        assert res.ok and _warnings(res) == [], R.diagnostics_text(res)
        errs = R.errors(R.compile_hlsl(qualified, "main", "gs_6_0", target))
        assert errs == ["2:89: 'globallycoherent' can only be applied to UAV objects"], errs


def test_a_local_struct_member_carries_its_coherence():
    """A local struct's coherent member: assigning a plain UAV to it warns "adds", and the resource reached
    through it (also inside a callee taking the struct) is Coherent; the plain member's is not."""
    src = ("struct S { globallycoherent RWBuffer<uint> b; RWBuffer<uint> c; };\n"
           "RWBuffer<uint> g : register(u0);\nRWBuffer<uint> g2 : register(u1);\n"
           "void use(S x) { x.b[0] = 1; x.c[0] = 2; }\n"
           "[numthreads(1, 1, 1)] void main() { S l; l.b = g; l.c = g2; use(l); }\n")
    res = R.compile_hlsl(src, "main", "cs_6_0", "spirv")
    assert res.ok, R.diagnostics_text(res)
    assert _warnings(res) == ["5:48: implicit conversion from 'RWBuffer<uint>' to 'globallycoherent RWBuffer<uint>' "
                              "adds globallycoherent annotation"]
    assert _coherent_vars(tools.spirv_dis(res.binary)) == {"g": True, "g2": False}


def test_the_warning_is_in_the_conversion_group():
    """DXC's group (InGroup<Conversion>): -Wno-conversion silences it, -WX makes it an error."""
    src = HEAD + "[numthreads(1, 1, 1)] void main() { RWBuffer<uint> l = h; l[0] = 1; }\n"
    quiet = R.compile_hlsl(src, "main", "cs_6_0", "spirv", disabled_warnings=["conversion"])
    assert quiet.ok and _warnings(quiet) == [], R.diagnostics_text(quiet)
    strict = R.compile_hlsl(src, "main", "cs_6_0", "spirv", warnings_as_errors=True)
    assert not strict.ok and any("loses globallycoherent annotation" in e for e in R.errors(strict)), \
        R.diagnostics_text(strict)


HEAP_TO_PLAIN_CS = """float get(RWByteAddressBuffer b, uint i) { return asfloat(b.Load(i * 4)); }
RWStructuredBuffer<float> Out : register(u0);
[numthreads(4, 1, 1)]
void main(uint i : SV_DispatchThreadID) {
    globallycoherent RWByteAddressBuffer buf = ResourceDescriptorHeap[1];
    Out[i] = get(buf, i);
}
"""


@pytest.mark.llvm
@pytest.mark.vulkan
def test_a_coherent_heap_local_stays_coherent_through_a_plain_parameter():
    """A coherent local taken from the heap, passed to a plain parameter: DXC warns "loses" (the local has the
    coherent type) and its handle stays coherent (its first annotateHandle wins, DxilCleanupDynamicResource
    Handle).  Here the access reads the coherent heap view: SPIR-V Coherent on it, DXIL bit 14 on the heap
    handle's annotateHandle; the values read are the buffer's."""
    for target in ("spirv", "dxil"):
        res = R.compile_hlsl(HEAP_TO_PLAIN_CS, "main", "cs_6_6", target)
        assert res.ok, R.diagnostics_text(res)
        assert _warnings(res) == ["6:18: implicit conversion from 'globallycoherent RWByteAddressBuffer' to "
                                  "'RWByteAddressBuffer' loses globallycoherent annotation"], _warnings(res)
    spirv = R.compile_hlsl(HEAP_TO_PLAIN_CS, "main", "cs_6_6", "spirv")
    dis = tools.spirv_dis(spirv.binary)
    heap_vars = set(re.findall(r"= OpAccessChain %\S+ (%ResourceDescriptorHeap\S*) ", dis))
    assert len(heap_vars) == 1 and re.search(rf"OpDecorate {re.escape(heap_vars.pop())} Coherent\b", dis), dis
    checked = dxil_tools.check_dxil(R.compile_hlsl(HEAP_TO_PLAIN_CS, "main", "cs_6_6", "dxil").binary)
    heap = re.search(r"(%\d+) = call %dx\.types\.Handle @dx\.op\.createHandleFromHeap\(i32 218, i32 1,", checked.ir)
    assert heap, checked.ir
    props = re.search(rf"@dx\.op\.annotateHandle\(i32 216, %dx\.types\.Handle {heap.group(1)}, "
                      r"%dx\.types\.ResourceProperties \{ i32 (\d+),", checked.ir)
    assert props and int(props.group(1)) >> 14 & 1, checked.ir
    vk = R.vk_runner()
    data = R.pack("f", [0.5, 1.5, 2.5, 3.5])
    out, heap = R.resource(spirv.manifest, "Out")["vulkan"], spirv.manifest["descriptor_heaps"][0]["vulkan"]
    got = vk.run_compute(spirv.binary, "main", [
        vk.Buf(out["set"], out["binding"], R.sentinel(4), "storage"),
        *(vk.Buf(heap["set"], heap["binding"], d, "storage", index=k) for k, d in enumerate([R.sentinel(4), data]))])
    assert R.unpack("f", got[0]) == [0.5, 1.5, 2.5, 3.5]
