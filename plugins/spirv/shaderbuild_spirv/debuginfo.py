"""-Zi: NonSemantic.Shader.DebugInfo.100 records, so RenderDoc and Nsight can step through the HLSL.

What is emitted (as DXC's -fspv-debug=vulkan-with-source): one DebugSource per file the
preprocessor read, with its text; a DebugCompilationUnit; debug types for scalars,
vectors, matrices, arrays and structs; one DebugFunction per function (its
DebugFunctionDefinition in the entry block); DebugLocalVariable + DebugDeclare for named
locals and parameters; a DebugScope at the top of every block and a DebugLine before each
statement; DebugEntryPoint naming the entry.  Every operand of these instructions is an id
(numbers are OpConstant uint), as the extended instruction set requires.  Statements with
no source position (the entry wrapper's I/O copies) get DebugNoLine.
"""

from __future__ import annotations

from shaderbuild.diagnostics import SourceLoc
from shaderbuild.ir.nodes import Function, Module, Variable
from shaderbuild.ir.types import BOOL, VOID, Array, Matrix, Scalar, Struct, Type, Vector

from .builder import ModuleBuilder, enum, inst
from .emit_types import TypeLowering
from .grammar import DEBUG_INFO_100, DEBUG_INFO_100_ENUMS

SET_NAME = "NonSemantic.Shader.DebugInfo.100"
_SOURCE_CHUNK = 16000          # characters per OpString: an instruction holds at most 65535 words
_ENCODING = {"float": "Float", "int": "Signed", "uint": "Unsigned", "bool": "Boolean"}


def _enum(kind: str, name: str) -> int:
    return DEBUG_INFO_100_ENUMS[kind][name]


class DebugInfo:
    """Module-wide debug records; the function emitter asks it for per-function ones."""

    def __init__(self, b: ModuleBuilder, T: TypeLowering, module: Module, command_line: str) -> None:
        self.b, self.T = b, T
        self.set = b.ext_import(SET_NAME)
        if b.version < (1, 6):
            b.extension("SPV_KHR_non_semantic_info")
        self.void = T.void()
        self.texts = module.source_texts
        self.sources: dict[str, int] = {}
        self.types: dict[Type, int] = {}
        self.functions: dict[Function, int] = {}
        self.strings: dict[str, int] = {}
        self.none = self.ext("DebugInfoNone")
        main = next(iter(self.texts), None) or (module.entry.source_function.loc.file
                                               if module.entry and module.entry.source_function.loc else "")
        for name in self.texts:        # every file read, main first, so each has its text
            self.source(name)
        main_source = self.source(main)
        self.unit = self.ext("DebugCompilationUnit", self.u(100), self.u(5), main_source, self.u(enum("SourceLanguage", "HLSL")))
        self.command_line = command_line
        src = self.string(main)
        b.strings += inst("OpSource", [enum("SourceLanguage", "HLSL"), 600, src])

    # ------------------------------------------------------------ helpers

    def u(self, v: int) -> int:
        return self.T.uconst(v)

    def string(self, s: str) -> int:
        sid = self.strings.get(s)
        if sid is None:
            sid = self.strings[s] = self.b.new_id()
            self.b.strings += inst("OpString", [sid, s])
        return sid

    def ext(self, name: str, *operands: int) -> int:
        """A module-scope debug instruction (types/values section)."""
        rid = self.b.new_id()
        self.b.globals += inst("OpExtInst", [self.void, rid, self.set, DEBUG_INFO_100[name], *operands])
        return rid

    def code(self, name: str, *operands: int) -> list[int]:
        """A function-scope debug instruction."""
        return inst("OpExtInst", [self.void, self.b.new_id(), self.set, DEBUG_INFO_100[name], *operands])

    def source(self, file: str) -> int:
        sid = self.sources.get(file)
        if sid is None:
            text = self.texts.get(file)
            if text is None:
                sid = self.ext("DebugSource", self.string(file))
            else:
                chunks = [text[i:i + _SOURCE_CHUNK] for i in range(0, len(text), _SOURCE_CHUNK)] or [""]
                sid = self.ext("DebugSource", self.string(file), self.string(chunks[0]))
                for c in chunks[1:]:
                    self.ext("DebugSourceContinued", self.string(c))
            self.sources[file] = sid
        return sid

    # ------------------------------------------------------------ types

    def type(self, t: Type) -> int:
        """A debug type for `t`; DebugInfoNone for what has none (void, resources)."""
        d = self.types.get(t)
        if d is not None:
            return d
        if isinstance(t, Scalar):
            d = self.ext("DebugTypeBasic", self.string(str(t)), self.u(t.width), self.u(_enum(
                "DebugBaseTypeAttributeEncoding", _ENCODING.get(t.kind, "Unspecified"))), self.u(0))
        elif isinstance(t, Vector):
            d = self.ext("DebugTypeVector", self.type(t.elem), self.u(t.size))
        elif isinstance(t, Matrix):     # HLSL rows as the vectors, as DXC
            row = self.type(Vector(t.elem, t.cols))
            d = self.ext("DebugTypeMatrix", row, self.u(t.rows), self.T.scalar_const(BOOL, False))
        elif isinstance(t, Array) and t.size is not None:
            d = self.ext("DebugTypeArray", self.type(t.elem), self.u(t.size))
        elif isinstance(t, Struct):
            d = self._struct(t)
        else:
            d = self.none
        self.types[t] = d
        return d

    def _struct(self, t: Struct) -> int:
        main = self.sources[next(iter(self.sources))]
        members, offset = [], 0
        for f in t.fields:
            bits = _bits(f.type)
            members.append(self.ext("DebugTypeMember", self.string(f.name), self.type(f.type), main, self.u(1),
                                    self.u(1), self.u(offset), self.u(bits),
                                    self.u(_enum("DebugInfoFlags", "FlagIsPublic"))))
            offset += bits
        return self.ext("DebugTypeComposite", self.string(t.name), self.u(_enum("DebugCompositeType", "Structure")),
                        main, self.u(1), self.u(1), self.unit, self.string(t.name), self.u(offset),
                        self.u(_enum("DebugInfoFlags", "FlagIsPublic")), *members)

    # ------------------------------------------------------------ functions

    def function(self, f: Function, name: str, loc: SourceLoc | None) -> int:
        d = self.functions.get(f)
        if d is None:
            ret = self.void if f.return_type == VOID else self.type(f.return_type)   # OpTypeVoid, as DXC
            ftype = self.ext("DebugTypeFunction", self.u(_enum("DebugInfoFlags", "None")), ret,
                             *(self.type(p.var.type) for p in f.params))
            line, col, src = self.position(loc)
            d = self.functions[f] = self.ext(
                "DebugFunction", self.string(name), ftype, src, self.u(line), self.u(col), self.unit,
                self.string(name), self.u(_enum("DebugInfoFlags", "FlagIsPublic") | _enum("DebugInfoFlags", "FlagIsDefinition")),
                self.u(line))
        return d

    def position(self, loc: SourceLoc | None) -> tuple[int, int, int]:
        if loc is None:
            return 1, 1, self.sources[next(iter(self.sources))]
        return loc.line, loc.col, self.source(loc.file)

    def local(self, v: Variable, scope: int, arg: int | None) -> int | None:
        """DebugLocalVariable for a named local or parameter (None for compiler temporaries)."""
        if v.loc is None:
            return None
        line, col, src = self.position(v.loc)
        extra = [self.u(arg)] if arg is not None else []
        return self.ext("DebugLocalVariable", self.string(v.name), self.type(v.type), src, self.u(line),
                        self.u(col), scope, self.u(_enum("DebugInfoFlags", "FlagIsLocal")), *extra)

    def expression(self) -> int:
        e = self.types.get(VOID)       # the empty DebugExpression, made once
        if e is None:
            e = self.types[VOID] = self.ext("DebugExpression")
        return e

    def line(self, loc: SourceLoc | None) -> list[int]:
        if loc is None or loc.line <= 0:
            return self.code("DebugNoLine")
        line = self.u(loc.line)
        col = self.u(loc.col)
        return self.code("DebugLine", self.source(loc.file), line, line, col, col)

    def entry_point(self, func: int) -> None:
        self.ext("DebugEntryPoint", func, self.unit, self.string("shaderbuild"), self.string(self.command_line))


def _bits(t: Type) -> int:
    if isinstance(t, Scalar):
        return t.width
    if isinstance(t, Vector):
        return t.elem.width * t.size
    if isinstance(t, Matrix):
        return t.elem.width * t.rows * t.cols
    if isinstance(t, Array):
        return _bits(t.elem) * (t.size or 0)
    if isinstance(t, Struct):
        return sum(_bits(f.type) for f in t.fields)
    return 0

