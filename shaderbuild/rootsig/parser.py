"""Parses an HLSL root signature string (the `[RootSignature("...")]` grammar) into the model.

Every error is located inside the string literal the text came from: `LocatedText`
maps an offset in the (concatenated) string back to a file, line and column."""

from __future__ import annotations

from ..diagnostics import SourceLoc, error
from ..records import DataRecord, Record
from . import model as m


class LocatedText(DataRecord):
    """A string and, per piece (one string literal each), the location of its first character.

    `exact` is False for a piece whose characters cannot be pointed at one by one
    (a string built by a macro); every offset in it maps to the piece's location."""

    text: str
    starts: list[int] = Record.factory(list)
    locs: list[SourceLoc] = Record.factory(list)
    exact: list[bool] = Record.factory(list)

    def add(self, piece: str, loc: SourceLoc, exact: bool = True) -> None:
        self.starts.append(len(self.text))
        self.locs.append(loc)
        self.exact.append(exact)
        self.text += piece

    def locate(self, offset: int) -> SourceLoc | None:
        if not self.locs:
            return None
        import bisect  # here: a diagnostic's location only (a C extension to load, issue 23)

        i = max(0, bisect.bisect_right(self.starts, offset) - 1)
        loc = self.locs[i]
        if not self.exact[i]:
            return loc
        return SourceLoc(loc.file, loc.line, loc.col + offset - self.starts[i])


# Tokens: numbers (`[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?[fF]?`), identifiers, the punctuators `(),=|`,
# anything else a bad character; blanks (str.isspace) between them.  String tests, not regular
# expressions: `re` costs a cold compile of a shader with a root signature ~20 M instructions (issue 23;
# tests/rootsig compares them with the patterns).
_IDENT_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_IDENT_CHARS = _IDENT_START | frozenset("0123456789")


def _digits_end(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i].isdecimal():
        i += 1
    return i


def _number_end(text: str, pos: int) -> int:
    """Where a number starting at `pos` ends; `pos` if none starts there."""
    i = pos + 1 if text[pos] in "+-" else pos
    end = _digits_end(text, i)
    if end > i:
        if text[end:end + 1] == ".":
            end = _digits_end(text, end + 1)
    elif text[i:i + 1] == "." and text[i + 1:i + 2].isdecimal():
        end = _digits_end(text, i + 1)
    else:
        return pos
    if text[end:end + 1] in ("e", "E"):
        k = end + 1 + (text[end + 1:end + 2] in ("+", "-"))
        if text[k:k + 1].isdecimal():
            end = _digits_end(text, k)
    return end + (text[end:end + 1] in ("f", "F"))


def register_parts(text: str) -> tuple[str, int] | None:
    """`t3` -> ("t", 3): a register class (b, t, u or s, lower case only, as in DXC) and number."""
    if len(text) > 1 and text[0] in "btus" and text[1:].isdecimal():
        return text[0], int(text[1:])
    return None


class _Tok:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind: str, text: str, pos: int):
        self.kind, self.text, self.pos = kind, text, pos


def _tokens(src: LocatedText) -> list[_Tok]:
    out: list[_Tok] = []
    text = src.text
    n = len(text)
    pos = 0
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos == n:
            break
        c = text[pos]
        end = _number_end(text, pos)
        if end > pos:
            kind = "num"
        elif c in _IDENT_START:
            end = pos + 1
            while end < n and text[end] in _IDENT_CHARS:
                end += 1
            kind = "id"
        else:
            end = pos + 1
            kind = "punct" if c in "(),=|" else "bad"
        out.append(_Tok(kind, text[pos:end], pos))
        pos = end
        if kind == "bad":
            break
    out.append(_Tok("end", "", len(text.rstrip())))
    return out


class _Parser:
    def __init__(self, src: LocatedText, version: str):
        self.src = src
        self.version = version
        self.toks = _tokens(src)
        self.i = 0

    # -------------------------------------------------------------- tokens
    @property
    def tok(self) -> _Tok:
        return self.toks[self.i]

    def loc(self, tok: _Tok | None = None) -> SourceLoc | None:
        return self.src.locate((tok or self.tok).pos)

    def fail(self, message: str, tok: _Tok | None = None):
        return error(f"root signature: {message}", self.loc(tok))

    def describe(self, tok: _Tok) -> str:
        return "end of string" if tok.kind == "end" else f"'{tok.text}'"

    def expect(self, text: str, what: str = "") -> _Tok:
        t = self.tok
        if t.text != text:
            raise self.fail(f"expected '{text}'{what}, found {self.describe(t)}")
        self.i += 1
        return t

    def ident(self, what: str) -> _Tok:
        t = self.tok
        if t.kind != "id":
            raise self.fail(f"expected {what}, found {self.describe(t)}")
        self.i += 1
        return t

    def uint(self, what: str) -> int:
        t = self.tok
        if t.kind != "num" or not t.text.isdigit():
            raise self.fail(f"expected an unsigned integer for {what}, found {self.describe(t)}")
        value = int(t.text)
        if value > 0xFFFFFFFF:
            raise self.fail(f"{what} {value} does not fit in 32 bits")
        self.i += 1
        return value

    def float(self, what: str) -> float:
        t = self.tok
        if t.kind != "num":
            raise self.fail(f"expected a number for {what}, found {self.describe(t)}")
        self.i += 1
        return float(t.text.rstrip("fF"))

    def enum(self, table: dict[str, int], prefix: str, what: str) -> str:
        t = self.ident(what)
        upper = t.text.upper()
        if upper.startswith(prefix):
            for name in table:
                if name.upper() == upper[len(prefix):]:
                    return name
        raise self.fail(f"unknown {what} '{t.text}'", t)

    def flags(self, table: dict[str, int], what: str) -> int:
        """`A | B | 0`: names from `table` (no prefix) or the number 0."""
        mask = 0
        while True:
            t = self.tok
            if t.kind == "num" and t.text.isdigit():
                self.i += 1
                value = int(t.text)
                if value != 0:
                    raise self.fail(f"{what} must be named flags or 0, not {value}", t)
            else:
                name = self.ident(f"a {what} name").text.upper()
                bit = next((b for n, b in table.items() if n == name), None)
                if bit is None:
                    raise self.fail(f"unknown {what} '{t.text}'", t)
                mask |= bit
            if self.tok.text != "|":
                return mask
            self.i += 1

    def register(self, cls: str, what: str) -> int:
        t = self.ident(f"a register for {what} (e.g. {cls}0)")
        parts = register_parts(t.text)
        if parts is None or parts[0] != cls:
            raise self.fail(f"expected a '{cls}' register for {what}, found '{t.text}'", t)
        if parts[1] > 0xFFFFFFFF:
            raise self.fail(f"register '{t.text}' does not fit in 32 bits", t)
        return parts[1]

    def keyword(self, names: tuple[str, ...]) -> str | None:
        """The canonical spelling of the identifier at hand when it is one of `names` (case-insensitive)."""
        t = self.tok
        if t.kind != "id":
            return None
        return next((n for n in names if n.lower() == t.text.lower()), None)

    # -------------------------------------------------------------- grammar
    def root_signature(self) -> m.RootSignature:
        rs = m.RootSignature(version=self.version, loc=self.src.locate(0), text=self.src.text)
        seen_flags = False
        while self.tok.kind != "end":
            start = self.tok
            name = self.keyword(("RootFlags", "RootConstants", "CBV", "SRV", "UAV", "DescriptorTable",
                                 "StaticSampler"))
            if name is None:
                raise self.fail(f"expected RootFlags, RootConstants, CBV, SRV, UAV, DescriptorTable or "
                                f"StaticSampler, found {self.describe(start)}")
            self.i += 1
            self.expect("(", f" after '{start.text}'")
            if name == "RootFlags":
                if seen_flags:
                    raise self.fail("RootFlags is specified more than once", start)
                seen_flags = True
                rs.flags_loc = self.loc(start)
                rs.flags = self.flags(m.ROOT_FLAGS, "root flag")
            elif name == "RootConstants":
                rs.parameters.append(self.root_constants(start))
            elif name == "DescriptorTable":
                rs.parameters.append(self.table(start))
            elif name == "StaticSampler":
                rs.static_samplers.append(self.static_sampler(start))
            else:
                rs.parameters.append(self.root_descriptor(name, start))
            self.expect(")", f" to close '{start.text}'")
            if self.tok.kind == "end":
                break
            self.expect(",", " between root signature clauses")
        return rs

    def arguments(self, start: _Tok, clause: str, register_cls: str | None, named: tuple[str, ...],
                  required: tuple[str, ...] = ()):
        """A clause's arguments, in any order (as DXC reads them): the register (yielded as
        ("register", number)) and `name = value` pairs (yielded as (name, token) with the parser
        at the value).  Each at most once; a missing register or required name is an error."""
        seen: set[str] = set()
        first = True
        while first or self.tok.text == ",":
            if not first:
                self.i += 1
            first = False
            t = self.tok
            if register_cls is not None and t.kind == "id" and register_parts(t.text):
                if "register" in seen:
                    raise self.fail(f"the shader register is specified more than once in {clause}")
                seen.add("register")
                yield "register", self.register(register_cls, clause)
                continue
            name = self.keyword(named)
            if name is None:
                expected = ([f"a '{register_cls}' register"] if register_cls else []) + list(named)
                raise self.fail(f"unexpected {self.describe(t)} in {clause} (expected {', '.join(expected)})")
            if name in seen:
                raise self.fail(f"'{name}' is specified more than once in {clause}", t)
            seen.add(name)
            self.i += 1
            self.expect("=", f" after '{t.text}'")
            yield name, t
        if register_cls is not None and "register" not in seen:
            raise self.fail(f"{clause} needs a '{register_cls}' register", start)
        for name in required:
            if name not in seen:
                raise self.fail(f"{clause} needs '{name}'", start)

    def visibility(self) -> str:
        return self.enum(m.VISIBILITY, "SHADER_VISIBILITY_", "shader visibility")

    def check_flags(self, t: _Tok) -> None:
        if self.version == "1.0":
            raise self.fail("flags are not allowed in root signature version 1.0", t)

    def root_constants(self, start: _Tok) -> m.RootParameter:
        p = m.RootParameter("RootConstants", loc=self.loc(start))
        for name, value in self.arguments(start, "RootConstants", "b", ("num32BitConstants", "space", "visibility"),
                                          ("num32BitConstants",)):
            if name == "register":
                p.register = value
            elif name == "num32BitConstants":
                p.num_32bit_values = self.uint("num32BitConstants")
            elif name == "space":
                p.space = self.uint("space")
            else:
                p.visibility = self.visibility()
        return p

    def root_descriptor(self, kind: str, start: _Tok) -> m.RootParameter:
        p = m.RootParameter(kind, loc=self.loc(start))
        for name, value in self.arguments(start, f"root {kind}", m.REGISTER_CLASS[kind], ("space", "visibility", "flags")):
            if name == "register":
                p.register = value
            elif name == "space":
                p.space = self.uint("space")
            elif name == "visibility":
                p.visibility = self.visibility()
            else:
                self.check_flags(value)
                p.flags = self.flags(m.DESCRIPTOR_FLAGS, "root descriptor flag")
        return p

    def table(self, start: _Tok) -> m.RootParameter:
        p = m.RootParameter("DescriptorTable", loc=self.loc(start))
        seen_visibility = False
        first = True
        while first or self.tok.text == ",":
            if not first:
                self.i += 1
            first = False
            t = self.tok
            if self.tok.text == ")" and not p.ranges and not seen_visibility:
                return p                    # an empty table
            if self.keyword(("visibility",)):
                if seen_visibility:
                    raise self.fail("'visibility' is specified more than once in DescriptorTable")
                seen_visibility = True
                self.i += 1
                self.expect("=", " after 'visibility'")
                p.visibility = self.visibility()
                continue
            kind = self.keyword(("CBV", "SRV", "UAV", "Sampler"))
            if kind is None:
                raise self.fail(f"expected CBV, SRV, UAV, Sampler or visibility in DescriptorTable, "
                                f"found {self.describe(t)}")
            self.i += 1
            self.expect("(", f" after '{t.text}'")
            p.ranges.append(self.range(kind, t))
            self.expect(")", f" to close '{t.text}'")
        return p

    def range(self, kind: str, start: _Tok) -> m.DescriptorRange:
        r = m.DescriptorRange(kind, 0, loc=self.loc(start))
        for name, value in self.arguments(start, f"{kind} range", m.REGISTER_CLASS[kind],
                                          ("numDescriptors", "space", "offset", "flags")):
            if name == "register":
                r.register = value
            elif name == "numDescriptors":
                if self.keyword(("unbounded",)):
                    self.i += 1
                    r.count = None
                else:               # 0xFFFFFFFF is what `unbounded` means
                    n = self.uint("numDescriptors")
                    r.count = None if n == m.UNBOUNDED else n
            elif name == "space":
                r.space = self.uint("space")
            elif name == "offset":
                if self.keyword(("DESCRIPTOR_RANGE_OFFSET_APPEND",)):
                    self.i += 1
                    r.offset = None
                else:               # 0xFFFFFFFF is DESCRIPTOR_RANGE_OFFSET_APPEND
                    n = self.uint("offset")
                    r.offset = None if n == m.OFFSET_APPEND else n
            else:
                self.check_flags(value)
                r.flags = self.flags(m.RANGE_FLAGS, "descriptor range flag")
        return r

    def static_sampler(self, start: _Tok) -> m.StaticSampler:
        s = m.StaticSampler(0, loc=self.loc(start))
        fields = ("filter", "addressU", "addressV", "addressW", "mipLODBias", "maxAnisotropy", "comparisonFunc",
                  "borderColor", "minLOD", "maxLOD", "space", "visibility")
        for name, value in self.arguments(start, "StaticSampler", "s", fields):
            if name == "register":
                s.register = value
            elif name == "filter":
                s.filter = self.enum(m.FILTERS, "FILTER_", "filter")
            elif name.startswith("address"):
                setattr(s, "address_" + name[-1].lower(), self.enum(m.ADDRESS_MODES, "TEXTURE_ADDRESS_",
                                                                    "texture address mode"))
            elif name == "mipLODBias":
                s.mip_lod_bias = self.float("mipLODBias")
            elif name == "maxAnisotropy":
                s.max_anisotropy = self.uint("maxAnisotropy")
            elif name == "comparisonFunc":
                s.comparison_func = self.enum(m.COMPARISON_FUNCS, "COMPARISON_", "comparison function")
            elif name == "borderColor":
                s.border_color = self.enum(m.BORDER_COLORS, "STATIC_BORDER_COLOR_", "border color")
            elif name == "minLOD":
                s.min_lod = self.float("minLOD")
            elif name == "maxLOD":
                s.max_lod = self.float("maxLOD")
            elif name == "space":
                s.space = self.uint("space")
            else:
                s.visibility = self.visibility()
        return s


def parse(src: LocatedText | str, version: str = "1.1") -> m.RootSignature:
    """The root signature `src` spells, at `version` ('1.0' | '1.1'); a located error if malformed."""
    if isinstance(src, str):
        text, src = src, LocatedText("")
        src.add(text, SourceLoc("<root signature>", 1, 1))
    return _Parser(src, version).root_signature()
