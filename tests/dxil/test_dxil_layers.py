"""The DXIL backend's stages stand alone: every module belongs to one layer, and imports only
from its own layer or from the layers below it that its layer lists.  The imports are read
from the source with `ast` (all of them: module level, inside functions, under TYPE_CHECKING),
so a new import upward, or a new module without a layer, fails here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "plugins" / "dxil" / "shaderbuild_dxil"

# layer -> its modules (package-relative, dotted); listed bottom-up
LAYERS: dict[str, set[str]] = {
    "base": {"llvm", "llvm.builder", "llvm.metadata", "llvm.module", "llvm.printer", "llvm.types", "llvm.values",
             "bitstream", "hash", "ops_table", "sigpack", "polyfills"},
    "vocabulary": {"ops", "scalarize"},                         # dx.op table and emitter; IR type -> LLVM type
    "writers": {"writer", "container", "rdat"},                         # bitcode writer; DXBC container writer/reader
    "optimisation": {"cfg", "ctrldep", "cse", "dce", "mem2reg", "undef_outputs", "cleanup", "rotate"},
    "facts": {"signature", "resources", "lowered"},              # what lowering hands to the later stages
    "analysis": {"viewid", "dxmeta"},                           # ViewID state, shader flags, metadata
    "lowering": {"lowering", "ssa", "places", "buffers", "intrinsics", "rayquery", "context", "statics", "lower",
                 "debuginfo", "raytracing", "library"},
    "verifier": {"check"},
    "pipeline": {"backend", "disasm", "plugin", "__init__"},
}
# layer -> the layers below it that it may import (besides its own)
MAY_IMPORT: dict[str, set[str]] = {
    "base": set(),
    "vocabulary": {"base"},
    "writers": {"base"},
    "optimisation": {"base", "vocabulary"},
    "facts": {"base", "vocabulary", "writers"},
    "analysis": {"base", "vocabulary", "optimisation", "facts"},
    "lowering": {"base", "vocabulary", "optimisation", "facts"},
    "verifier": {"base", "vocabulary", "writers", "optimisation", "facts", "analysis"},
    "pipeline": {"base", "vocabulary", "writers", "optimisation", "facts", "analysis", "lowering", "verifier"},
}
LAYER_OF = {m: layer for layer, mods in LAYERS.items() for m in mods}


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" and len(rel.parts) > 1 else rel.parts
    return ".".join(parts)


def package_imports(path: Path) -> set[str]:
    """The package modules `path` imports (relative imports, resolved; `from . import x` names x)."""
    me = module_name(path).split(".")
    package = me[:-1] if path.name != "__init__.py" else me
    if path == PKG / "__init__.py":
        package = []
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)]
            target = base + (node.module.split(".") if node.module else [])
            if node.module:
                out.add(".".join(target))
            else:
                out.update(".".join(target + [a.name]) for a in node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            name = node.module if isinstance(node, ast.ImportFrom) else None
            names = [name] if name else [a.name for a in node.names]
            for n in names:
                if n and n.startswith("shaderbuild_dxil."):
                    out.add(n[len("shaderbuild_dxil."):])
    return {m for m in out if m in LAYER_OF or (PKG / (m.replace(".", "/") + ".py")).exists()}


SOURCES = sorted(PKG.rglob("*.py"))
GRAPH = {module_name(p): package_imports(p) for p in SOURCES}


def test_every_module_has_a_layer():
    assert sorted(set(GRAPH) - set(LAYER_OF)) == []
    assert sorted(set(LAYER_OF) - set(GRAPH)) == []             # no stale names in the table


def test_layers_list_only_lower_layers():
    order = list(LAYERS)
    for layer, below in MAY_IMPORT.items():
        assert all(order.index(b) < order.index(layer) for b in below), layer


def upward(module: str, imports: set[str]) -> dict[str, str]:
    """The imports of `module` from layers its layer may not import (name -> layer)."""
    allowed = MAY_IMPORT[LAYER_OF[module]] | {LAYER_OF[module]}
    return {m: LAYER_OF[m] for m in imports if LAYER_OF[m] not in allowed}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of the graph (a path whose last module is its first), or None."""
    state: dict[str, int] = {}                  # 1: on the current path, 2: done

    def visit(m: str, path: list[str]) -> list[str] | None:
        state[m] = 1
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return path[path.index(n):] + [m, n] if n in path else [m, n]
            if n not in state:
                found = visit(n, path + [m])
                if found:
                    return found
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m, [])
            if found:
                return found
    return None


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_go_only_downward(module):
    assert upward(module, GRAPH[module]) == {}, f"{module} ({LAYER_OF[module]}) imports upward"


def test_no_import_cycles():
    assert cycle(GRAPH) is None


def test_the_checks_catch_what_they_guard_against():
    """The import reader finds known edges (one under TYPE_CHECKING, one inside a function), and
    the rules flag the couplings this layering removed: the verifier and the metadata importing
    the lowerer, places importing it back (the old lower/places circle)."""
    assert "lowered" in GRAPH["check"] and "lower" in GRAPH["backend"] and "llvm.values" in GRAPH["cfg"]
    assert "lowering" in GRAPH["intrinsics"] and "ops" in GRAPH["resources"]
    assert upward("check", {"lower"}) == {"lower": "lowering"}
    assert upward("dxmeta", {"lower", "lowered"}) == {"lower": "lowering"}
    assert cycle({"lower": {"places"}, "places": {"lower"}}) is not None
