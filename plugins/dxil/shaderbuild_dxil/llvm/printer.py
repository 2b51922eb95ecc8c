"""Textual LLVM-IR (3.7 syntax, typed pointers) for the --Fc disassembly."""

from __future__ import annotations

import struct

from .metadata import MDNode, MDString, MDValue, Metadata
from .module import Module
from .types import FloatType, FunctionType, StructType, Type, quote_name
from .values import (
    ConstAggregate,
    Constant,
    ConstFloat,
    ConstInt,
    ConstNull,
    Function,
    GlobalValue,
    Instruction,
    Undef,
    Value,
    callee_of,
)

__all__ = ["print_module"]

_quote = quote_name


def _float_text(c: ConstFloat) -> str:
    if c.type.width == 32 and c.value == c.value and abs(c.value) != float("inf"):
        v = struct.unpack("<f", struct.pack("<f", c.value))[0]
        if float(repr(v)) == v and "e" not in repr(v) and "inf" not in repr(v):
            return f"{v:e}"
    if c.type.width == 16:
        return f"0xH{c.bits:04X}"
    d = struct.unpack("<d", struct.pack("<d", c.value))[0]
    return "0x" + struct.pack(">d", d).hex().upper()


class _Printer:
    def __init__(self, module: Module) -> None:
        self.m = module
        self.md_ids: dict[int, int] = {}
        self.mds: list[MDNode] = []
        for nmd in module.named_md:
            for n in nmd.nodes:
                self._number_md(n)

    def _number_md(self, md: Metadata) -> None:
        if isinstance(md, MDNode):
            if id(md) in self.md_ids:
                return
            self.md_ids[id(md)] = len(self.mds)
            self.mds.append(md)
            for op in md.ops:
                if op is not None:
                    self._number_md(op)

    # ---- values
    def const(self, c: Constant) -> str:
        if isinstance(c, GlobalValue):
            return "@" + _quote(c.name)
        if isinstance(c, ConstInt):
            return ("true" if c.value else "false") if c.type.width == 1 else str(c.signed)
        if isinstance(c, ConstFloat):
            return _float_text(c)
        if isinstance(c, Undef):
            return "undef"
        if isinstance(c, ConstNull):
            if isinstance(c.type, FloatType):
                return "0.000000e+00"
            if c.type.is_int:
                return "0"
            return "zeroinitializer" if isinstance(c.type, StructType) or str(c.type).startswith("[") else "null"
        if isinstance(c, ConstAggregate):
            inner = ", ".join(f"{e.type} {self.const(e)}" for e in c.elems)
            return "{ " + inner + " }" if isinstance(c.type, StructType) else "[" + inner + "]"
        raise TypeError(c)

    def ref(self, v: Value, local: dict[int, str]) -> str:
        if isinstance(v, Constant):
            return self.const(v)
        return local[id(v)]

    def typed(self, v: Value, local: dict[int, str]) -> str:
        return f"{v.type} {self.ref(v, local)}"

    def md(self, m: Metadata | None) -> str:
        if m is None:
            return "null"
        if isinstance(m, MDString):
            return '!"' + m.text.replace('"', "\\22") + '"'
        if isinstance(m, MDValue):
            return f"{m.value.type} {self.const(m.value)}"
        return f"!{self.md_ids[id(m)]}"

    # ---- module
    def module(self) -> str:
        out = [f"target datalayout = \"{self.m.datalayout}\"", f"target triple = \"{self.m.triple}\"", ""]
        structs: list[StructType] = []
        seen: set[str] = set()

        def visit(t: Type) -> None:
            for attr in ("pointee", "elem"):
                if hasattr(t, attr):
                    visit(getattr(t, attr))
            if isinstance(t, StructType):
                for e in t.elems:
                    visit(e)
                if t.name is not None and t.name not in seen:
                    seen.add(t.name)
                    structs.append(t)
            if isinstance(t, FunctionType):     # (the only type with params)
                visit(t.ret)
                for p in t.params:
                    visit(p)
        for g in self.m.globals:
            visit(g.value_type)
        for f in self.m.functions:
            visit(f.ftype)
            for bb in f.blocks:
                for i in bb.instructions:
                    visit(i.type)
                    for o in i.operands:
                        visit(o.type)
        for md in self.mds:
            for op in md.ops:
                if isinstance(op, MDValue):
                    visit(op.value.type)
        for s in structs:
            out.append(f"{s} = type {s.body()}")
        if structs:
            out.append("")
        for g in self.m.globals:
            init = f" {self.const(g.initializer)}" if g.initializer is not None else ""
            space = f" addrspace({g.addrspace})" if g.addrspace else ""
            kind = "constant" if g.constant else "global"
            link = "external " if g.initializer is None else ("internal " if g.linkage == "internal" else "")
            align = f", align {g.align}" if g.align else ""
            out.append(f"@{_quote(g.name)} = {link}{space.strip() + ' ' if space else ''}{kind} {g.value_type}{init}{align}")
        if self.m.globals:
            out.append("")
        attr_groups: list[tuple[str, ...]] = []
        for f in self.m.functions:
            out.append(self.function(f, attr_groups))
            out.append("")
        for k, attrs in enumerate(attr_groups):
            out.append(f"attributes #{k} = {{ {' '.join(attrs)} }}")
        if attr_groups:
            out.append("")
        for nmd in self.m.named_md:
            out.append(f"!{nmd.name} = !{{{', '.join(self.md(n) for n in nmd.nodes)}}}")
        for k, md in enumerate(self.mds):
            out.append(f"!{k} = !{{{', '.join(self.md(o) for o in md.ops)}}}")
        return "\n".join(out) + "\n"

    def function(self, f: Function, attr_groups: list[tuple[str, ...]]) -> str:
        suffix = ""
        if f.attrs:
            if f.attrs not in attr_groups:
                attr_groups.append(f.attrs)
            suffix = f" #{attr_groups.index(f.attrs)}"
        local: dict[int, str] = {}
        counter = 0

        def name(v: Value) -> None:
            nonlocal counter
            if v.name:
                local[id(v)] = "%" + _quote(v.name)
            else:
                local[id(v)] = f"%{counter}"
                counter += 1
        for a in f.args:
            name(a)
        for k, bb in enumerate(f.blocks):
            if k > 0 or bb.name:
                if bb.name:
                    local[id(bb)] = "%" + _quote(bb.name)
                else:
                    name(bb)
            else:
                counter += 1         # the unnamed entry block takes a number
                local[id(bb)] = f"%{counter - 1}"
            for i in bb.instructions:
                if i.has_value:
                    name(i)
        params = ", ".join(f"{a.type} {local[id(a)]}" for a in f.args) if f.blocks else \
            ", ".join(str(p) for p in f.ftype.params)
        head = f"{f.ftype.ret} @{_quote(f.name)}({params}){suffix}"
        if f.is_declaration:
            return f"declare {head}"
        lines = [f"define {head} {{"]
        for k, bb in enumerate(f.blocks):
            if k > 0 or bb.name:
                lab = local[id(bb)][1:]
                if k > 0:
                    lines.append("")
                lines.append(f"; <label>:{lab}" if lab.isdigit() else f"{lab}:")
            for i in bb.instructions:
                lines.append("  " + self.instruction(i, local))
        lines.append("}")
        return "\n".join(lines)

    def instruction(self, i: Instruction, local: dict[int, str]) -> str:
        r = self.ref
        lhs = f"{local[id(i)]} = " if i.has_value else ""
        op, ops = i.op, i.operands
        if op in _BINOPS:
            return f"{lhs}{op}{_fast(i)} {self.typed(ops[0], local)}, {r(ops[1], local)}"
        if op in _CASTS:
            return f"{lhs}{op} {self.typed(ops[0], local)} to {i.type}"
        if op in ("icmp", "fcmp"):
            return f"{lhs}{op} {i.attrs['pred']} {self.typed(ops[0], local)}, {r(ops[1], local)}"
        if op == "select":
            return f"{lhs}select {', '.join(self.typed(o, local) for o in ops)}"
        if op == "call":
            fn = callee_of(i)
            args = ", ".join(self.typed(a, local) for a in ops[1:])
            return f"{lhs}call {fn.ftype.ret} @{_quote(fn.name)}({args})"
        if op == "ret":
            return f"ret {self.typed(ops[0], local)}" if ops else "ret void"
        if op == "br":
            t = i.attrs["targets"]
            if ops:
                return f"br i1 {r(ops[0], local)}, label {local[id(t[0])]}, label {local[id(t[1])]}"
            return f"br label {local[id(t[0])]}"
        if op == "switch":
            cases = "".join(f"\n    {c.type} {self.const(c)}, label {local[id(bb)]}" for c, bb in i.attrs["cases"])
            return f"switch {self.typed(ops[0], local)}, label {local[id(i.attrs['default'])]} [{cases}\n  ]"
        if op == "unreachable":
            return "unreachable"
        if op == "phi":
            inc = ", ".join(f"[ {r(v, local)}, {local[id(bb)]} ]" for v, bb in i.attrs["incoming"])
            return f"{lhs}phi {i.type} {inc}"
        if op == "alloca":
            return f"{lhs}alloca {i.attrs['allocated']}, align {i.attrs['align']}"
        if op == "load":
            return f"{lhs}load {i.type}, {self.typed(ops[0], local)}, align {i.attrs['align']}"
        if op == "store":
            return f"store {self.typed(ops[0], local)}, {self.typed(ops[1], local)}, align {i.attrs['align']}"
        if op == "getelementptr":
            ib = "inbounds " if i.attrs["inbounds"] else ""
            return f"{lhs}getelementptr {ib}{i.attrs['source']}, {', '.join(self.typed(o, local) for o in ops)}"
        if op == "extractvalue":
            return f"{lhs}extractvalue {self.typed(ops[0], local)}, {', '.join(map(str, i.attrs['indices']))}"
        if op == "atomicrmw":
            return f"{lhs}atomicrmw {i.attrs['rmw']} {self.typed(ops[0], local)}, {self.typed(ops[1], local)} " \
                   f"{i.attrs['ordering']}"
        if op == "cmpxchg":
            return f"{lhs}cmpxchg {', '.join(self.typed(o, local) for o in ops)} {i.attrs['ordering']} " \
                   f"{i.attrs['failure']}"
        raise TypeError(op)


def _fast(i: Instruction) -> str:
    """` fast` for a float op carrying all the LLVM 3.7 fast-math bits, as llvm-dis prints it."""
    return " fast" if i.op[0] == "f" and i.attrs.get("flags") == 0x1F else ""


_BINOPS = frozenset(("add", "sub", "mul", "udiv", "sdiv", "urem", "srem", "shl", "lshr", "ashr", "and", "or",
                     "xor", "fadd", "fsub", "fmul", "fdiv", "frem"))
_CASTS = frozenset(("trunc", "zext", "sext", "fptoui", "fptosi", "uitofp", "sitofp", "fptrunc", "fpext",
                    "ptrtoint", "inttoptr", "bitcast"))


def print_module(module: Module) -> str:
    """The module as LLVM assembly text (3.7 syntax)."""
    return _Printer(module).module()

