"""The LLVM module: triple, datalayout, globals, functions, named metadata."""

from __future__ import annotations

from .metadata import MDNode, NamedMD
from .types import FunctionType, Type
from .values import Function, GlobalVariable

__all__ = ["Module"]


class Module:
    def __init__(self, name: str = "", triple: str = "", datalayout: str = "") -> None:
        self.name = name
        self.triple = triple
        self.datalayout = datalayout
        self.globals: list[GlobalVariable] = []
        self.functions: list[Function] = []
        self.named_md: list[NamedMD] = []
        self.debug_md: list[NamedMD] = []      # -Zi: named metadata written only into the debug bitcode
        self.debug_values: list[tuple] = []    # -Zi: (value, DILocalVariable, DIExpression, location) -> llvm.dbg.value
        self._fn_index: dict[str, Function] = {}

    def add_global(self, value_type: Type, name: str, **kw) -> GlobalVariable:
        g = GlobalVariable(value_type, name, **kw)
        self.globals.append(g)
        return g

    def add_function(self, ftype: FunctionType, name: str, attrs: tuple[str, ...] = ()) -> Function:
        if name in self._fn_index:
            raise ValueError(f"function {name} already exists")
        f = Function(ftype, name, attrs)
        self.functions.append(f)
        self._fn_index[name] = f
        return f

    def retain_functions(self, keep: list[Function]) -> None:
        """Replace the function list (dropping unused declarations), keeping the name index in step."""
        self.functions = list(keep)
        self._fn_index = {f.name: f for f in self.functions}

    def get_function(self, name: str) -> Function | None:
        return self._fn_index.get(name)

    def declare(self, ftype: FunctionType, name: str, attrs: tuple[str, ...] = ()) -> Function:
        """The declaration `name`, created on first use (with a type check)."""
        f = self._fn_index.get(name)
        if f is None:
            return self.add_function(ftype, name, attrs)
        if f.ftype != ftype:
            raise ValueError(f"conflicting declarations of {name}: {f.ftype} vs {ftype}")
        return f

    def add_named_md(self, name: str, nodes: list[MDNode]) -> NamedMD:
        nmd = NamedMD(name, nodes)
        self.named_md.append(nmd)
        return nmd

    def get_named_md(self, name: str) -> NamedMD | None:
        for n in self.named_md:
            if n.name == name:
                return n
        return None
