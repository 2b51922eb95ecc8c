"""The input->output dependency state: PSV0's InputOutputMap and `dx.viewIdState`.

Each shader's expectation is written by hand as "output component <- the input
components it depends on" (through data flow, memory and the branches deciding
the stored value, as DXC's ViewIdState analysis defines it), translated to packed
scalar indices through the element placement the dx.entryPoints metadata reports.
Both views are decoded by the independent tools: obj2yaml-19 (PSV0) and
llvm-dis-19 (the metadata), and they must agree the way the validator reads
them (PSV rows padded to whole vectors).
"""

from __future__ import annotations

import random
import re
import sys

import pytest
from harness.dxil_tools import check_dxil, parse_container
from shaderbuild_dxil import viewid
from shaderbuild_dxil.container import ContainerInfo, SignatureElement, build_container
from shaderbuild_dxil.llvm import types as T
from shaderbuild_dxil.llvm.builder import IRBuilder
from shaderbuild_dxil.llvm.module import Module
from shaderbuild_dxil.llvm.values import ConstFloat, ConstInt, Undef
from shaderbuild_dxil.signature import SigElement
from test_dxil_compute import compile_ir, double_plus_one_module
from test_dxil_signature_packing import compile_source, metadata_signatures

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions

_VIEWID_MD = re.compile(r"^!dx\.viewIdState = !\{!(\d+)\}$", re.M)


def _bits(words: list[int], n_in: int, width: int) -> dict[int, set[int]]:
    deps: dict[int, set[int]] = {}
    for i in range(n_in):
        for w in range(width):
            word = words[i * width + w]
            for b in range(32):
                if word >> b & 1:
                    deps.setdefault(32 * w + b, set()).add(i)
    return deps


class Analysed:
    """A compiled shader's dependency state as the tools report it."""

    def __init__(self, tmp_path, src: str, profile: str) -> None:
        c = check_dxil(compile_source(tmp_path, src, profile))
        self.ir = c.ir
        psv = next(p for p in c.container["Parts"] if p["Name"] == "PSV0")["PSVInfo"]
        in_vec, out_vec = psv["SigInputVectors"], psv["SigOutputVectors"][0]
        table = psv["InputOutputMap"][0]
        width = (out_vec + 7) >> 3
        assert len(table) == (4 * in_vec * width if in_vec and out_vec else 0)
        self.psv = _bits(table, 4 * in_vec, width)
        self.words = self.metadata_words()
        self.md_in, self.md_out = metadata_signatures(c.ir)
        if self.words is not None:
            n_in, n_out = self.words[:2]
            width_md = (n_out + 31) // 32
            assert len(self.words) == 2 + n_in * width_md
            assert (n_in, n_out) == (self.extent(self.md_in), self.extent(self.md_out))
            assert _bits(self.words[2:], n_in, width_md) == self.psv, "PSV0 and dx.viewIdState disagree"

    def metadata_words(self) -> list[int] | None:
        m = _VIEWID_MD.search(self.ir)
        if m is None:
            return None
        line = re.search(rf"^!{m.group(1)} = !\{{\[\d+ x i32\] \[(.*)\]\}}$", self.ir, re.M).group(1)
        return [int(x) for x in re.findall(r"i32 (-?\d+)", line)]

    @staticmethod
    def extent(elems: list[dict]) -> int:
        return max(((e["row"] + e["rows"] - 1) * 4 + e["col"] + e["cols"] for e in elems if e["row"] >= 0), default=0)

    def scalar(self, side: str, name: str, comp: int, index: int = 0) -> int:
        for e in self.md_in if side == "in" else self.md_out:
            if e["name"] == name and index in e["indices"]:
                return (e["row"] + e["indices"].index(index)) * 4 + e["col"] + comp
        raise KeyError(name)

    def expect(self, want: dict[tuple, set[tuple]]) -> None:
        """want: {(output name, comp): {(input name, comp), ...}}; unlisted outputs depend on nothing."""
        mapped = {self.scalar("out", *o): {self.scalar("in", *i) for i in ins} for o, ins in want.items() if ins}
        assert self.psv == mapped


def xyzw(name: str, ins: set[tuple] = frozenset(), same: str | None = None) -> dict:
    """Four output components, each depending on `ins` plus component c of input `same`."""
    return {(name, c): set(ins) | ({(same, c)} if same else set()) for c in range(4)}


def test_pass_through(tmp_path):
    a = Analysed(tmp_path, """
float4 main(float4 p : POSITION, float2 uv : TEXCOORD, out float2 ouv : TEXCOORD) : SV_Position {
  ouv = uv; return p; }""", "vs_6_0")
    a.expect({**xyzw("SV_Position", same="POSITION"), ("TEXCOORD", 0): {("TEXCOORD", 0)},
              ("TEXCOORD", 1): {("TEXCOORD", 1)}})
    assert a.words[:2] == [6, 6]


def test_outputs_computed_from_two_inputs(tmp_path):
    a = Analysed(tmp_path, """
float4 main(float4 p : P, float s : S, float2 u : A, float2 v : B, out float2 o : O) : SV_Position {
  o = float2(u.x + v.y, dot(u, v)); return p * s; }""", "vs_6_0")
    a.expect({**xyzw("SV_Position", {("S", 0)}, same="P"),
              ("O", 0): {("A", 0), ("B", 1)},
              ("O", 1): {("A", 0), ("A", 1), ("B", 0), ("B", 1)}})


def test_component_written_under_a_branch_on_an_input(tmp_path):
    """The constant 1 reaches r.x only when k > 0.5: the branch on k decides the stored value."""
    a = Analysed(tmp_path, """
float4 main(float4 c : COLOR, float k : K) : SV_Target {
  float4 r = c; if (k > 0.5) r.x = 1; return r; }""", "ps_6_0")
    want = xyzw("SV_Target", same="COLOR")
    want[("SV_Target", 0)].add(("K", 0))
    a.expect(want)


def test_constants_chosen_by_a_branch(tmp_path):
    a = Analysed(tmp_path, """
float4 main(float4 c : COLOR, float k : K) : SV_Target {
  float4 r = 0; if (k > 0.5) r = float4(1, 2, 3, 4); return r; }""", "ps_6_0")
    a.expect(xyzw("SV_Target", {("K", 0)}))


def test_outputs_independent_of_inputs(tmp_path):
    a = Analysed(tmp_path, """
cbuffer C { float4 tint; };
float4 main(float4 p : POSITION, out float4 col : COLOR, out float4 t : TINT) : SV_Position {
  col = float4(0.25, 0.5, 0.75, 1); t = tint; return p; }""", "vs_6_0")
    a.expect(xyzw("SV_Position", same="POSITION"))


def test_loop_trip_count_from_an_input(tmp_path):
    a = Analysed(tmp_path, """
float4 main(float4 p : P, uint n : N) : SV_Position {
  float4 acc = 0; for (uint k = 0; k < n; k++) acc += p; return acc; }""", "vs_6_0")
    a.expect(xyzw("SV_Position", {("N", 0)}, same="P"))


def test_memory_through_a_dynamically_indexed_array(tmp_path):
    """Every store to the array feeds every load of it (values and indices), as in DXC."""
    a = Analysed(tmp_path, """
float4 main(float4 p : P, uint i : I, float x : X, uint j : J) : SV_Position {
  float a[4] = {p.x, p.y, p.z, p.w}; a[i] = x; return float4(a[j], p.y, 0, 1); }""", "vs_6_0")
    a.expect({("SV_Position", 0): {("P", 0), ("P", 1), ("P", 2), ("P", 3), ("I", 0), ("X", 0), ("J", 0)},
              ("SV_Position", 1): {("P", 1)}})


def test_unallocated_outputs_are_not_in_the_table(tmp_path):
    a = Analysed(tmp_path, """
float4 main(float4 c : COLOR, out float d : SV_Depth) : SV_Target { d = c.x; return c.yyyy; }""", "ps_6_0")
    a.expect(xyzw("SV_Target", {("COLOR", 1)}))
    assert a.words[1] == 4


def test_no_inputs_keeps_the_counts_only(tmp_path):
    a = Analysed(tmp_path, "float4 main() : SV_Position { return 1; }", "vs_6_0")
    assert a.words == [0, 4] and a.psv == {}


def test_compute_has_no_view_id_state(tmp_path):
    c = check_dxil(compile_source(tmp_path, """
RWStructuredBuffer<uint> b; [numthreads(4, 1, 1)] void main(uint t : SV_DispatchThreadID) { b[t] = t; }""",
                                  "cs_6_0"))
    assert "dx.viewIdState" not in c.ir


def test_psv_view_id_masks_layout():
    """With UsesViewID the per-output ViewID mask comes before the table (layout only: the front end has
    no SV_ViewID yet)."""
    state = viewid.ViewIdState(4, 6, (1, 2, 4, 8, 3, 0), uses_view_id=True, view_id_outputs=0b110000)
    assert state.serialize() == [4, 6, 0b110000, 0x11, 0x12, 0x4, 0x8]
    info = ContainerInfo(
        stage="vertex", shader_model=(6, 1), dxil_version=(1, 1), valver=(1, 7),
        bitcode=compile_ir(double_plus_one_module(), "cs_6_0").bitcode,
        inputs=[SignatureElement("A", 0, 0, 0, 3, 0, 0xF, cols=4)],
        outputs=[SignatureElement("", 0, 1, 3, 3, 0, 0xF, cols=4), SignatureElement("B", 0, 0, 0, 3, 1, 0x3, cols=2)],
        view_id=state)
    psv = next(p for p in parse_container(build_container(info))["Parts"] if p["Name"] == "PSV0")["PSVInfo"]
    assert psv["UsesViewID"] == 1
    assert psv["OutputVectorMasks"][0] == [0b110000]
    assert psv["InputOutputMap"][0] == [0x11, 0x12, 0x4, 0x8]


def test_psv_tables_pad_the_serialized_table_with_zero_rows():
    """PSV0 takes the serialized words (built once per state) with zero rows up to whole input vectors;
    every call hands out a fresh list, so a caller changing one cannot change the state."""
    state = viewid.ViewIdState(5, 6, (1, 2, 4, 8, 16, 3), uses_view_id=True, view_id_outputs=0b100001)
    words = state.serialize()
    assert words == [5, 6, 0b100001, 0b100001, 0b100010, 0b100, 0b1000, 0b10000]
    words.append(99)
    assert state.serialize() == words[:-1]
    assert state.psv_tables(2, 2) == [0b100001] + words[3:-1] + [0] * 3
    no_view = viewid.ViewIdState(5, 6, (1, 2, 4, 8, 16, 3))
    assert no_view.psv_tables(2, 2) == no_view.serialize()[2:] + [0] * 3


def _element(ident: int, row: int, col: int, cols: int) -> SigElement:
    return SigElement(var=None, id=ident, name="V", index=0, kind=0, system_value=0, comp_type=9, sig_comp_type=3,
                      rows=1, cols=cols, interp=0, interpretation="Arb", data_width=32, start_row=row, start_col=col)


def test_long_dependency_chains_do_not_recurse():
    """Thousands of chained branches and phis, analysed under a small recursion limit: the
    analysis is iterative, not a recursive walk as in DXC."""
    n = 5000
    m = Module()
    load = m.declare(T.FunctionType(T.f32, (T.i32, T.i32, T.i32, T.i8, T.i32)), "dx.op.loadInput.f32")
    store = m.declare(T.FunctionType(T.void, (T.i32, T.i32, T.i32, T.i8, T.f32)), "dx.op.storeOutput.f32")
    fn = m.add_function(T.FunctionType(T.void, ()), "main")
    b = IRBuilder(fn.append_block("entry"))
    i32, i8 = (lambda v: ConstInt(T.i32, v)), (lambda v: ConstInt(T.i8, v))
    x = b.call(load, [i32(4), i32(0), i32(0), i8(1), Undef(T.i32)])
    unused = b.call(load, [i32(4), i32(0), i32(0), i8(0), Undef(T.i32)])
    for _ in range(n):
        then, join = fn.append_block(), fn.append_block()
        head = b.block
        b.cbranch(b.fcmp("ogt", x, ConstFloat(T.f32, 0.0)), then, join)
        b.position_at_end(then)
        y = b.fmul(x, x)
        b.br(join)
        b.position_at_end(join)
        x = b.phi(T.f32, [(y, then), (ConstFloat(T.f32, 1.0), head)])
    b.call(store, [i32(5), i32(0), i32(0), i8(2), x])
    b.call(store, [i32(5), i32(0), i32(0), i8(0), b.fadd(unused, unused)])
    b.ret()
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        state = viewid.compute_view_id_state(fn, [_element(0, 0, 0, 2)], [_element(0, 0, 0, 3)])
    finally:
        sys.setrecursionlimit(limit)
    assert state.inputs_of == (0b01, 0, 0b10)


def _random_function(rng: random.Random):
    """A function of up to six blocks branching anywhere (loops, unreachable blocks), with
    loadInput calls, arithmetic, phis, stores/loads on two allocas and storeOutput calls; values
    are used anywhere, even before their definition, so the analysis must settle what a forward
    pass cannot (a load before a store, a loop's back edges)."""
    from shaderbuild_dxil.llvm.values import Instruction
    m = Module()
    ft = T.FunctionType(T.void, ())
    load_in, store_out = m.declare(ft, "dx.op.loadInput.f32"), m.declare(ft, "dx.op.storeOutput.f32")
    fn = m.add_function(ft, "main")
    blocks = [fn.append_block() for _ in range(rng.randint(1, 6))]
    i32 = lambda v: ConstInt(T.i32, v)   # noqa: E731
    slots = [Instruction("alloca", T.pointer_to(T.f32), [i32(1)], allocated=T.f32, align=4) for _ in range(2)]
    blocks[0].instructions += slots
    values: list = []
    patch: list = []                     # (instruction, operand index) filled once all values exist
    for bb in blocks:
        for _ in range(rng.randint(0, 6)):
            kind = rng.randrange(5)
            if kind == 0:
                inst = Instruction("call", T.f32, [load_in, i32(4), i32(0), i32(0), ConstInt(T.i8, rng.randrange(4)), Undef(T.i32)])
            elif kind == 1:
                inst = Instruction("fadd", T.f32, [None, None])
                patch += [(inst, 0), (inst, 1)]
            elif kind == 2:
                inst = Instruction("load", T.f32, [rng.choice(slots)])
            elif kind == 3:
                inst = Instruction("store", T.void, [None, rng.choice(slots)])
                patch.append((inst, 0))
            else:
                inst = Instruction("call", T.void, [store_out, i32(5), i32(0), i32(0), ConstInt(T.i8, rng.randrange(4)), None])
                patch.append((inst, 5))
            bb.instructions.append(inst)
            values.append(inst)
    preds: dict[int, list] = {id(bb): [] for bb in blocks}
    for n, bb in enumerate(blocks):
        if n == len(blocks) - 1 or rng.random() < 0.2:
            bb.instructions.append(Instruction("ret", T.void, []))
            continue
        targets = (rng.choice(blocks), blocks[rng.randrange(n + 1, len(blocks))])[rng.randrange(2):]
        term = Instruction("br", T.void, [None] if len(targets) == 2 else [], targets=targets)
        if len(targets) == 2:
            patch.append((term, 0))
        bb.instructions.append(term)
        values.append(term)
        for t in dict.fromkeys(targets):
            preds[id(t)].append(bb)
    for bb in blocks:
        if preds[id(bb)] and rng.random() < 0.5:
            phi = Instruction("phi", T.f32, [], incoming=[(None, p) for p in preds[id(bb)]])
            bb.instructions.insert(0, phi)
            values.append(phi)
    for inst, k in patch:
        inst.operands[k] = rng.choice(values)
    for inst in values:
        if inst.op == "phi":
            inst.attrs["incoming"] = [(rng.choice(values), p) for _, p in inst.attrs["incoming"]]
    return fn


def _searched(fn) -> tuple[int, ...]:
    """Each output component's input components by a plain search from each storeOutput over
    operands, phi incoming values, deciding branches and (for a load) every store to its slot."""
    from shaderbuild_dxil.ctrldep import control_dependence
    from shaderbuild_dxil.llvm.values import Instruction
    cd = control_dependence(fn)
    block_of = {id(i): bb for bb in fn.blocks for i in bb.instructions}
    stores = [i for bb in fn.blocks for i in bb.instructions if i.op == "store"]
    deciding = lambda bb: [b.terminator for b in cd.get(id(bb), [])]   # noqa: E731

    def deps(inst):
        values = [v for v, _ in inst.attrs["incoming"]] if inst.op == "phi" else inst.operands
        out = [v for v in values if isinstance(v, Instruction)] + deciding(block_of[id(inst)])
        return out + [s for s in stores if s.operands[1] is inst.operands[0]] if inst.op == "load" else out

    outputs = [0] * 4
    for bb in fn.blocks:
        for inst in bb.instructions:
            if inst.op != "call" or inst.operands[0].name != "dx.op.storeOutput.f32":
                continue
            todo, seen, bits = [inst.operands[5], *deciding(bb)], set(), 0
            while todo:
                v = todo.pop()
                if id(v) not in seen:
                    seen.add(id(v))
                    if v.op == "call" and v.operands[0].name == "dx.op.loadInput.f32":
                        bits |= 1 << v.operands[4].value
                    todo += deps(v)
            outputs[inst.operands[4].value] |= bits
    return tuple(outputs)


@pytest.mark.parametrize("passes", [0, 1, viewid._PASSES])
def test_masks_equal_a_search_from_every_output(monkeypatch, passes):
    """The one-pass-and-settle masks against the definition (reachability), on random CFGs;
    with 0 passes every settling goes to the worklist, with 1 most do after one pass."""
    monkeypatch.setattr(viewid, "_PASSES", passes)
    rng = random.Random(7)
    for _ in range(400):
        fn = _random_function(rng)
        state = viewid.compute_view_id_state(fn, [_element(0, 0, 0, 4)], [_element(0, 0, 0, 4)])
        assert state.inputs_of == _searched(fn)


def _compile(tmp_path, src: str, profile: str):
    path = tmp_path / "s.hlsl"
    path.write_text(src)
    return compile_file(str(path), CompileOptions(profile=profile, target="dxil"))


def test_self_check_rejects_a_wrong_psv_table(tmp_path, monkeypatch):
    real = viewid.ViewIdState.psv_tables
    monkeypatch.setattr(viewid.ViewIdState, "psv_tables", lambda self, i, o: [0] * len(real(self, i, o)))
    res = _compile(tmp_path, "float4 main(float4 p : P) : SV_Position { return p; }", "vs_6_0")
    assert not res.ok
    assert any("PSV0 dependency table" in d.message for d in res.diagnostics)


def test_self_check_rejects_a_truncated_metadata_array(tmp_path, monkeypatch):
    from shaderbuild_dxil import dxmeta
    real = dxmeta.view_id_metadata

    def truncated(lm, valver):
        node = real(lm, valver)
        arr = node.ops[0].value
        arr.elems.pop()
        arr.type = T.ArrayType(T.i32, len(arr.elems))
        return node
    monkeypatch.setattr(dxmeta, "view_id_metadata", truncated)
    res = _compile(tmp_path, "float4 main(float4 p : P) : SV_Position { return p; }", "vs_6_0")
    assert not res.ok
    assert any("dx.viewIdState" in d.message for d in res.diagnostics)


@pytest.mark.parametrize("valver, present", [((1, 0), False), ((1, 1), True), ((0, 0), True)])
def test_metadata_follows_the_validator_version(tmp_path, monkeypatch, valver, present):
    from shaderbuild_dxil import backend, dxmeta
    monkeypatch.setattr(dxmeta, "validator_version", lambda sm: valver)
    monkeypatch.setattr(backend, "validator_version", lambda sm: valver)
    res = _compile(tmp_path, "float4 main(float4 p : P) : SV_Position { return p; }", "vs_6_0")
    assert res.ok, [d.message for d in res.diagnostics]
    assert ("dx.viewIdState" in check_dxil(res.binary).ir) == present


def test_early_return_and_texture_coordinates(tmp_path):
    """The returned value is chosen by a branch on k; a sampled colour depends on its coordinates."""
    a = Analysed(tmp_path, """
Texture2D t; SamplerState s;
float4 main(float4 c : COLOR, float2 uv : UV, float k : K) : SV_Target {
  if (k > 0) return t.Sample(s, uv);
  return c; }""", "ps_6_0")
    a.expect(xyzw("SV_Target", {("UV", 0), ("UV", 1), ("K", 0)}, same="COLOR"))


def test_static_global_carries_dependencies(tmp_path):
    a = Analysed(tmp_path, """
static float g;
void set(float v) { g = v; }
float4 main(float4 p : P, float v : V) : SV_Position { set(v); return float4(p.xy, g, 1); }""", "vs_6_0")
    a.expect({("SV_Position", 0): {("P", 0)}, ("SV_Position", 1): {("P", 1)}, ("SV_Position", 2): {("V", 0)}})


# ------------------------------------------------------------------ control dependence
def _cfg(edges: dict[str, tuple[str, ...]]):
    """A function whose blocks branch as `edges` says (conditions are function arguments)."""
    from shaderbuild_dxil.llvm.values import Argument
    m = Module()
    fn = m.add_function(T.FunctionType(T.void, ()), "f")
    blocks = {name: fn.append_block(name) for name in edges}
    cond = Argument(T.i1, 0)
    for name, succ in edges.items():
        b = IRBuilder(blocks[name])
        if not succ:
            b.ret()
        elif len(succ) == 1:
            b.br(blocks[succ[0]])
        else:
            b.cbranch(cond, blocks[succ[0]], blocks[succ[1]])
    return fn, blocks


def _cd(edges: dict[str, tuple[str, ...]]) -> dict[str, set[str]]:
    from shaderbuild_dxil.ctrldep import control_dependence
    fn, blocks = _cfg(edges)
    cd = control_dependence(fn)
    return {name: {b.name for b in cd.get(id(bb), [])} for name, bb in blocks.items() if cd.get(id(bb))}


def test_control_dependence_of_nested_ifs():
    assert _cd({"entry": ("a", "b"), "a": ("j",), "b": ("c", "j"), "c": ("j",), "j": ()}) == \
        {"a": {"entry"}, "b": {"entry"}, "c": {"b"}}


def test_control_dependence_of_a_loop():
    """The body and the header itself run again depending on the header's branch."""
    assert _cd({"entry": ("h",), "h": ("body", "exit"), "body": ("h",), "exit": ()}) == \
        {"body": {"h"}, "h": {"h"}}


def test_control_dependence_with_two_exits_and_an_endless_loop():
    """Exit blocks hang off one virtual root.  A block that never reaches an exit is outside the
    post-dominator tree (as in LLVM 3.7's), so `r` post-dominates the entry and depends on nothing."""
    assert _cd({"entry": ("r1", "r2"), "r1": (), "r2": ()}) == {"r1": {"entry"}, "r2": {"entry"}}
    assert _cd({"entry": ("spin", "r"), "spin": ("spin",), "r": ()}) == {}


def test_dominator_tree_against_the_definition():
    """a dominates b when b cannot be reached from the entry once a is removed; the immediate
    dominator is the strict dominator that every other strict dominator dominates."""
    from shaderbuild_dxil.ctrldep import dominator_tree
    rng = random.Random(3)

    def reached(succs, without):
        seen, todo = set(), [0] if without != 0 else []
        while todo:
            b = todo.pop()
            if b not in seen:
                seen.add(b)
                todo += [s for s in succs[b] if s != without]
        return seen

    for _ in range(300):
        n = rng.randint(1, 8)
        succs = [rng.sample(range(n), rng.randint(0, min(2, n))) for _ in range(n)]
        live = reached(succs, None)
        strict = {b: {a for a in live if a != b and b not in reached(succs, a)} for b in live}
        want = [-1] * n
        for b in live:
            want[b] = 0 if b == 0 else next(a for a in strict[b] if strict[b] - {a} <= strict[a])
        assert dominator_tree(succs) == want


def test_components_in_topological_order():
    """A loop's blocks form one component, after what enters it and before what it exits to;
    a block no path reaches still gets one."""
    from shaderbuild_dxil.ctrldep import components, successors
    fn, blocks = _cfg({"entry": ("h",), "x": (), "h": ("b", "x"), "b": ("c",), "c": ("h",), "dead": ("x",)})
    got = [[bb.name for bb in comp] for comp in components(fn.blocks, successors(fn.blocks))]
    assert sorted(map(sorted, got)) == [["b", "c", "h"], ["dead"], ["entry"], ["x"]]
    assert got.index(["entry"]) < got.index(["h", "b", "c"]) < got.index(["x"]) and got.index(["dead"]) < got.index(["x"])
