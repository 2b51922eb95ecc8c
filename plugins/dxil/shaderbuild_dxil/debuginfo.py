"""-Zi for DXIL: LLVM 3.7 debug metadata, as DXC's debug module carries it.

DIFile + DICompileUnit (listed in `!llvm.dbg.cu`, its subprograms listed in it, as 3.7
did), one DISubprogram per HLSL function (the entry's one describes the DXIL function), a
DILocation on every instruction a statement produced (callees are inlined, so their
statements' locations carry `inlinedAt` the call's location), the "Dwarf Version" and
"Debug Info Version" module flags, and DXC's `dx.source.contents` / `dx.source.defines` /
`dx.source.mainFileName` / `dx.source.args`.  All of it goes only into the debug bitcode
(the ILDB part); the DXIL part drivers read stays without it, as DXC's.
"""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import SourceLoc

from .llvm.metadata import DINode, MDNode, MDString, Metadata, md_int
from .llvm.module import Module
from .llvm.types import i32
from .llvm.values import Function

__all__ = ["DebugInfo"]

# METADATA_* record codes (LLVM 3.7 bitcode)
LOCATION, BASIC_TYPE, FILE, COMPOSITE_TYPE, SUBROUTINE_TYPE, COMPILE_UNIT, SUBPROGRAM, SUBRANGE = 7, 15, 16, 18, 19, 20, 21, 13
LOCAL_VAR, EXPRESSION = 28, 29
DW_OP_BIT_PIECE = 0x9D
DW_TAG_AUTO_VARIABLE, DW_TAG_ARG_VARIABLE = 0x100, 0x101
DW_LANG_C_PLUS_PLUS = 0x0004
DW_TAG_BASE_TYPE, DW_TAG_ARRAY_TYPE = 0x24, 0x01
DW_ATE = {"float": 0x04, "int": 0x05, "uint": 0x08, "bool": 0x02}
FLAG_PROTOTYPED, FLAG_VECTOR = 1 << 8, 1 << 11
PRODUCER = "shaderbuild"
DEBUG_INFO_VERSION, DWARF_VERSION = 3, 4


class DebugInfo:
    """The debug records of one module; `loc` gives the (line, col, scope, inlinedAt) of a statement."""

    def __init__(self, module: ir.Module, args: list[str]) -> None:
        self.texts = module.source_texts
        entry = module.entry
        src = entry.source_function if entry is not None else None
        self.main = next(iter(self.texts), None) or (src.loc.file if src is not None and src.loc else "")
        self.args = args
        self.files: dict[str, DINode] = {}
        self.types: dict[ir.Type, DINode | None] = {}
        self.subprograms: dict[int, DINode] = {}     # id(ir.Function) -> DISubprogram
        self.order: list[DINode] = []
        self.locs: dict = {}                          # instruction -> location tuple (the builder fills it)
        self.var_nodes: dict[int, DINode] = {}        # id(ir.Variable) -> its DILocalVariable
        self.values: list[tuple] = []                 # (value, DILocalVariable, DIExpression, location)
        self._expressions: dict[tuple[int, ...], DINode] = {}
        self.unit_file = self.file(self.main)

    def file(self, name: str) -> DINode:
        f = self.files.get(name)
        if f is None:
            f = self.files[name] = DINode(FILE, [MDString(name), MDString("")])
        return f

    def type(self, t: ir.Type) -> DINode | None:
        """DIBasicType for scalars, a vector-flagged array for vectors; None (no type) for the rest."""
        if t in self.types:
            return self.types[t]
        d: DINode | None = None
        if isinstance(t, ir.Scalar):
            d = DINode(BASIC_TYPE, [DW_TAG_BASE_TYPE, MDString(str(t)), t.width, t.width,
                                    DW_ATE.get(t.kind, DW_ATE["uint"])])
        elif isinstance(t, ir.Vector):
            elem = self.type(t.elem)
            count = DINode(SUBRANGE, [t.size, 0])
            d = DINode(COMPOSITE_TYPE, [DW_TAG_ARRAY_TYPE, None, None, 0, None, elem, t.elem.width * t.size,
                                        t.elem.width, 0, FLAG_VECTOR, MDNode([count]), 0, None, None, None])
        self.types[t] = d
        return d

    def subprogram(self, f: ir.Function, name: str, loc: SourceLoc | None, body: ir.Function | None = None) -> DINode:
        """`f`'s DISubprogram; its variables are `body`'s (the entry wrapper's are its source function's)."""
        sp = self.subprograms.get(id(f))
        if sp is None:
            file = self.file(loc.file) if loc is not None else self.unit_file
            line = loc.line if loc is not None else 0
            ret = None if isinstance(f.return_type, ir.VoidType) else self.type(f.return_type)
            stype = DINode(SUBROUTINE_TYPE, [0, MDNode([ret, *(self.type(p.var.type) for p in f.params)])])
            # 3.7 layout: scope, name, linkageName, file, line, type, isLocal, isDefinition, scopeLine,
            # containingType, virtuality, virtualIndex, flags, isOptimized, function, templateParams,
            # declaration, variables
            sp = DINode(SUBPROGRAM, [file, MDString(name), MDString(name), file, line, stype, 0, 1, line, None, 0, 0,
                                     FLAG_PROTOTYPED, 0, None, None, None, None], distinct=True, early=True)
            sp.ops[17] = MDNode(self._variables(body or f, sp))
            self.subprograms[id(f)] = sp
            self.order.append(sp)
        return sp

    def _variables(self, f: ir.Function, sp: DINode) -> list[Metadata | None]:
        """DILocalVariables of the named parameters and locals (the subprogram's `variables`, as
        3.7 listed them; compiler temporaries have no position and are left out).  Their values
        live in SSA registers without llvm.dbg.value: a debugger sees names, types and lines."""
        params = [p.var for p in f.params]
        out: list[Metadata | None] = []
        for v in params + [v for v in f.locals if v not in params]:
            if v.loc is None:
                continue
            arg = params.index(v) + 1 if v in params else 0
            node = DINode(LOCAL_VAR, [DW_TAG_ARG_VARIABLE if arg else DW_TAG_AUTO_VARIABLE, sp,
                                      MDString(v.name), self.file(v.loc.file), v.loc.line, self.type(v.type), arg, 0])
            self.var_nodes[id(v)] = node
            out.append(node)
        return out

    def expression(self, *ops: int) -> DINode:
        e = self._expressions.get(ops)
        if e is None:
            e = self._expressions[ops] = DINode(EXPRESSION, list(ops))
        return e

    def assigned(self, var: ir.Variable, vals: list, loc: tuple | None) -> None:
        """A scalar or vector local got `vals` (its SSA components) at `loc`: an llvm.dbg.value each
        in the debug bitcode (a vector's components as DW_OP_bit_piece pieces), when the variable is
        described and the location is in its subprogram (what the LLVM verifier requires)."""
        node = self.var_nodes.get(id(var))
        if node is None or loc is None or loc[2] is not node.ops[1]:
            return
        t = var.type
        if isinstance(t, ir.Scalar) and len(vals) == 1:
            self.values.append((vals[0], node, self.expression(), loc))
        elif isinstance(t, ir.Vector) and len(vals) == t.size:
            bits = t.elem.width
            for k, v in enumerate(vals):
                self.values.append((v, node, self.expression(DW_OP_BIT_PIECE, k * bits, bits), loc))

    def describe(self, sp: DINode, fn: Function) -> None:
        """The DXIL function `fn` is what subprogram `sp` describes."""
        from .llvm.metadata import MDValue

        sp.ops[14] = MDValue(fn)

    def loc(self, loc: SourceLoc | None, scope: DINode | None, inlined_at: DINode | None) -> tuple | None:
        if loc is None or loc.line <= 0 or scope is None:
            return None
        return (loc.line, loc.col, scope, inlined_at)

    def inlined_at(self, loc: tuple) -> DINode:
        """The DILocation of a call, for the callee's statements' `inlinedAt`."""
        line, col, scope, outer = loc
        return DINode(LOCATION, [line, col, scope, outer], required=(2,))

    def finish(self, llmod: Module) -> None:
        """The compile unit, module flags and dx.source.* named metadata (debug bitcode only)."""
        cu = DINode(COMPILE_UNIT, [DW_LANG_C_PLUS_PLUS, self.unit_file, MDString(PRODUCER), 0, MDString(""), 0,
                                   MDString(""), 1, MDNode([]), MDNode([]), MDNode(list(self.order)), MDNode([]),
                                   MDNode([]), 0], distinct=True)
        flags = [MDNode([md_int(i32, 2), MDString("Dwarf Version"), md_int(i32, DWARF_VERSION)]),
                 MDNode([md_int(i32, 2), MDString("Debug Info Version"), md_int(i32, DEBUG_INFO_VERSION)])]
        llmod.debug_values = self.values
        llmod.debug_md += [
            _named("llvm.dbg.cu", [cu]),
            _named("llvm.module.flags", flags),
            _named("dx.source.contents", [MDNode([MDString(n), MDString(t)]) for n, t in self.texts.items()]),
            _named("dx.source.defines", [MDNode([])]),
            _named("dx.source.mainFileName", [MDNode([MDString(self.main)])]),
            _named("dx.source.args", [MDNode([MDString(a) for a in self.args])]),
        ]


def _named(name: str, nodes: list):
    from .llvm.metadata import NamedMD

    return NamedMD(name, nodes)
