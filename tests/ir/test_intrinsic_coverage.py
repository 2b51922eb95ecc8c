"""Every entry of the one intrinsic table (shaderbuild/ir/intrinsics.py) is handled by each
backend: lowered natively, expanded by a shared polyfill the backend asks for, or refused
with a reason.  Adding a table entry, or deleting a backend handler, fails here."""

from __future__ import annotations

import importlib

import pytest

from shaderbuild.ir import intrinsics as table
from shaderbuild.passes.polyfill import POLYFILLS

BACKENDS = {"spirv": "shaderbuild_spirv.intrinsics", "dxil": "shaderbuild_dxil.intrinsics"}


def test_the_polyfill_list_matches_the_polyfills():
    assert set(POLYFILLS) == set(table.POLYFILLABLE)
    assert all(table.LOWERING[n] == table.POLYFILL for n in POLYFILLS)


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_every_table_entry_is_handled(backend):
    mod = importlib.import_module(BACKENDS[backend])
    native, polyfilled = mod.NATIVE_INTRINSICS, mod.POLYFILLED
    unsupported: dict[str, str] = mod.UNSUPPORTED_INTRINSICS
    missing = sorted(n for n in table.BACKEND_NAMES if n not in native and n not in polyfilled and n not in unsupported)
    assert not missing, f"{backend}: no native lowering, polyfill or stated reason for: {', '.join(missing)}"
    assert all(why.strip() for why in unsupported.values()), f"{backend}: an unsupported entry needs a reason"
    # a handler for a name sema never emits, or one the polyfill replaces, is dead code
    dead = sorted(native - table.BACKEND_NAMES) + sorted(native & polyfilled)
    assert not dead, f"{backend}: handlers that can never run: {', '.join(dead)}"
    assert polyfilled <= table.POLYFILLABLE, f"{backend}: asks for polyfills that do not exist: {polyfilled - table.POLYFILLABLE}"


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_mesh_intrinsics_are_native(backend):
    """SetMeshOutputCounts and DispatchMesh are lowered by each backend itself (OpSetMeshOutputsEXT /
    OpEmitMeshTasksEXT, setMeshOutputCounts / dispatchMesh); tests/resources/test_mesh_shaders.py runs them."""
    mod = importlib.import_module(BACKENDS[backend])
    assert {"SetMeshOutputCounts", "DispatchMesh"} <= mod.NATIVE_INTRINSICS


def test_resource_methods_are_table_entries():
    """Every method a resource kind lists is in the intrinsic table, and every method there has a kind."""
    from shaderbuild.ir.resource_kinds import KINDS

    listed = set().union(*(k.methods for k in KINDS.values()))
    assert listed == set(table.METHODS)


@pytest.mark.parametrize("decl, call, message", [
    ("AppendStructuredBuffer<uint> B : register(u1);", "B.Load(0)",
     "no member function named 'Load' in 'AppendStructuredBuffer<uint>'"),
    ("RWTexture2D<float4> B : register(u1);", "B.Sample(S, float2(0, 0)).x", "'RWTexture2D' cannot be sampled"),
    ("Texture3D<float4> B : register(t1);", "B.Gather(S, float3(0, 0, 0)).x", "'Gather' is not available on 'Texture3D'"),
    ("ByteAddressBuffer B : register(t1);", "B.InterlockedAdd(0, 1)",
     "'InterlockedAdd' requires a RWByteAddressBuffer, not 'ByteAddressBuffer'"),
])
def test_a_method_the_kind_does_not_list_is_refused(decl, call, message):
    from lang_util import compile_cs

    src = (f"RWStructuredBuffer<float> Out : register(u0);\nSamplerState S : register(s0);\n{decl}\n"
           f"[numthreads(1, 1, 1)]\nvoid main() {{\n    Out[0] = {call};\n}}\n")
    res = compile_cs(src)
    errors = [(d.message, d.loc.line) for d in res.diagnostics if d.severity == "error"]
    assert errors == [(message, 6)]


def test_spirv_ray_query_lowerings_are_the_table_methods():
    """SPIR-V's TABLE names every RayQuery method of the table and rayquery.py (imported when one is
    called) lowers each: a method missing there would be a KeyError at compile time."""
    from shaderbuild_spirv.rayquery import RAYQUERY_LOWERINGS

    assert set(RAYQUERY_LOWERINGS) == set(table.RAYQUERY_METHODS)
