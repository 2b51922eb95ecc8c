"""Diagnostics: source locations, messages and their GNU/MSVC/JSON rendering.

Every user-facing error in the compiler is a `Diagnostic`.  Front-end code raises
`CompileError` carrying one or more diagnostics; the driver renders them and exits
with status 1.  A Python traceback reaching the user is always a bug.
"""

from __future__ import annotations

from .records import DataRecord, Record, ValueRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class SourceLoc(ValueRecord):
    """A position in a source file: 1-based line and column.  (Slotted: every token has one.)"""

    __slots__ = ("file", "line", "col")

    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class Diagnostic(DataRecord):
    """One message: severity is 'error', 'warning' or 'note'."""

    severity: str
    message: str
    loc: SourceLoc | None = None
    notes: list[Diagnostic] = Record.factory(list)
    source_line: str | None = None  # the text of loc.line, filled in by the renderer
    group: str | None = None        # a warning's -W group when its words cannot tell it (`#pragma message`)

    def render(self, sources: SourceCache | None = None, style: str = "gnu") -> str:
        out: list[str] = []
        self._render_into(out, sources, style)
        return "\n".join(out)

    def _render_into(self, out: list[str], sources: SourceCache | None, style: str) -> None:
        message = self.message
        group = warning_group(self) if self.severity == "warning" else None
        if group is not None:       # as DXC and clang: the option that controls the warning
            message += f" [-W{group}]"
        if self.loc is None:
            out.append(f"{self.severity}: {message}")
        elif style == "msvc":
            out.append(f"{self.loc.file}({self.loc.line},{self.loc.col}): {self.severity}: {message}")
        else:
            out.append(f"{self.loc}: {self.severity}: {message}")
        if self.loc is not None:
            line = self.source_line
            if line is None and sources is not None:
                line = sources.line(self.loc.file, self.loc.line)
            if line is not None:
                line = line.rstrip("\r\n").replace("\t", " ")
                out.append(line)
                out.append(" " * max(0, min(self.loc.col - 1, len(line))) + "^")
        for note in self.notes:
            note._render_into(out, sources, style)

    def to_json(self) -> dict:
        d: dict = {"severity": self.severity, "message": self.message}
        if self.loc is not None:
            d.update(file=self.loc.file, line=self.loc.line, column=self.loc.col)
        group = warning_group(self) if self.severity == "warning" else None
        if group is not None:
            d["option"] = f"-W{group}"
        if self.notes:
            d["notes"] = [n.to_json() for n in self.notes]
        return d


class CompileError(Exception):
    """Raised to abandon a compilation; carries the diagnostics that explain why."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = diagnostics
        super().__init__("; ".join(f"{d.loc}: {d.message}" if d.loc else d.message for d in diagnostics))


class ErrorReported(CompileError):
    """Abandons a construct that depends on one whose error is already reported (a use of a declaration
    that failed): it adds no diagnostic of its own, so one mistake gives one error."""

    def __init__(self) -> None:
        super().__init__([])


def error(message: str, loc: SourceLoc | None = None, notes: list[Diagnostic] | None = None) -> CompileError:
    """Build a CompileError for a single error diagnostic (use as `raise error(...)`)."""
    return CompileError(Diagnostic("error", message, loc, notes or []))


def stmt_loc(s: Any) -> SourceLoc | None:
    """Where an IR statement is in the source: its own location, else (a static's initialisation,
    which the entry wrapper stores) the stored variable's declaration."""
    loc = getattr(s, "loc", None)
    if loc is None and hasattr(s, "place"):
        loc = getattr(getattr(s.place, "var", None), "loc", None)
    return loc


def locate(exc: CompileError, loc: SourceLoc | None) -> CompileError:
    """exc, its diagnostics without a location given `loc` (a backend's limit met while it lowers a
    declaration: the type-level check that fails knows no source position); then `raise`."""
    for d in exc.diagnostics:
        if d.loc is None:
            d.loc = loc
    return exc


class SourceCache:
    """Maps file names to their text so renderers can show the offending line."""

    def __init__(self) -> None:
        self._lines: dict[str, list[str]] = {}
        self._texts: dict[str, str] = {}

    def add(self, name: str, text: str) -> None:
        self._lines[name] = text.splitlines()
        self._texts[name] = text

    def names(self) -> list[str]:
        """The files read, in the order they were first read (the main file first)."""
        return list(self._texts)

    def text(self, name: str) -> str:
        """A file's whole text (debug info embeds it)."""
        return self._texts[name]

    def line(self, name: str, lineno: int) -> str | None:
        lines = self._lines.get(name)
        if lines is None or not 1 <= lineno <= len(lines):
            return None
        return lines[lineno - 1]


class DiagnosticSink:
    """Collects warnings (and errors that do not stop compilation immediately)."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []
        self._warned: set[tuple] = set()

    def warning(self, message: str, loc: SourceLoc | None = None) -> None:
        """A warning, once (a body analysed again, for a template or unsized-array instance, repeats them)."""
        if (message, loc) not in self._warned:
            self._warned.add((message, loc))
            self.items.append(Diagnostic("warning", message, loc))

    def error(self, message: str, loc: SourceLoc | None = None) -> None:
        self.items.append(Diagnostic("error", message, loc))

    def mark(self) -> tuple[int, frozenset]:
        """A point to roll back to (`rollback`) when what was analysed since is thrown away."""
        return len(self.items), frozenset(self._warned)

    def rollback(self, mark: tuple[int, frozenset]) -> None:
        del self.items[mark[0]:]
        self._warned = set(mark[1])

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    def raise_if_errors(self) -> None:
        if self.errors:
            raise CompileError(self.errors)


DEFAULT_ERROR_LIMIT = 20      # -ferror-limit=N, as clang and DXC
TOO_MANY_ERRORS = "too many errors emitted, stopping now [-ferror-limit=]"   # clang's words


def limit_errors(diags: list[Diagnostic], limit: int) -> list[Diagnostic]:
    """Keep diagnostics up to the `limit`-th error (0: no limit), then clang's fatal 'too many errors'."""
    if limit <= 0 or sum(d.severity == "error" for d in diags) <= limit:
        return diags
    out: list[Diagnostic] = []
    for d in diags:
        if d.severity == "error":
            if limit == 0:
                break
            limit -= 1
        out.append(d)
    out.append(Diagnostic("fatal error", TOO_MANY_ERRORS))
    return out


def render_all(diags: list[Diagnostic], sources: SourceCache | None, fmt: str = "gnu") -> str:
    """Render diagnostics as text ('gnu' or 'msvc') or as JSON lines ('json')."""
    if fmt == "json":
        import json

        return "\n".join(json.dumps(d.to_json(), sort_keys=True) for d in diags)
    return "\n".join(d.render(sources, fmt) for d in diags)


# The warning groups: name (as in -Wno-NAME and the `[-WNAME]` shown after a warning, DXC's/clang's
# spelling where DXC has the warning) -> what the group covers (docs) and patterns (re.match) of its messages.
# docs/WARNINGS.md lists them; a test checks every warning the compiler emits belongs to one.
WARNING_GROUPS: dict[str, tuple[str, tuple[str, ...]]] = {
    "conversion": ("implicit conversions that lose components or precision (DXC: -Wconversion)",
                   (r"implicit truncation of (vector|matrix) type$", r"conversion from larger type .* possible loss of data$",
                    r"array index is a floating-point value", r"'.*' is promoted to '.*'$",
                    r"implicit conversion from .* (adds|loses) globallycoherent annotation$")),
    "macro-redefined": ("a #define that changes an existing macro", (r"'.*' macro redefined$",)),
    "extra-tokens": ("tokens after a preprocessor directive's arguments", (r"extra tokens at end of",)),
    "ignored-pragmas": ("a #pragma the compiler does not understand and ignores", (r"unknown pack_matrix pragma",)),
    "ignored-attributes": ("a declaration part the compiler ignores",
                           (r"the initializer of uniform global", r"semantic '.*' is ignored",
                            r"duplicate HLSL specifier")),
    "attribute-statement": ("a statement attribute on the wrong kind of statement (DXC's group)",
                            (r"attribute '.*' can only be applied to",)),
    "unused-value": ("an expression statement whose value is unused", (r"expression result unused$",
                                                                       r"ignoring return value of function that only "
                                                                       r"reads data$")),
    "uninitialized": ("an 'out' parameter not written on every path; with -Wall or -Wuninitialized also a local "
                      "variable read before anything is stored to it",
                      (r"'out' parameter", r"variable '.*' is uninitialized when used here$")),
    "unused-variable": ("a local variable that is never used (with -Wall or -Wunused-variable)",
                        (r"unused variable '.*'$",)),
    "effects-syntax": ("Effects (FX) syntax DXC parses and ignores at SM 6: techniques, passes, state blocks, "
                       "annotations, effect objects",
                       (r"effect ", r"possible effect annotation")),
    "switch": ("a case value that does not fit the switch condition's type (converted, as clang)",
               (r"overflow converting case value",)),
    "ambig-lit-shift": ("a shift of an unsuffixed literal by a value that is not one (`1 << x`: typed by x, as DXC)",
                        (r"ambiguous type for bit shift",)),
    "constant-conversion": ("an integer literal (or literal expression) converted implicitly to a type it needs "
                            "more bits than (as clang's)", (r"implicit conversion from 'literal int' to .* changes "
                                                            r"value from",)),
    "attribute-type": ("an attribute's integer argument written as a float (truncated, as DXC)",
                       (r"attribute .* must have a uint literal argument$",)),
    "comma-in-init": ("a parenthesized comma expression as an initializer (`float2 v = (1, 2);` is 2, not "
                      "float2(1, 2); DXC's group)", (r"comma expression used where a constructor list",)),
    "packoffset-override": ("a second packoffset on one member: the last one is used (DXC's group)",
                            (r"packoffset is overridden by another packoffset",)),
    "specifier-override": ("`sample` with `centroid`: sample interpolation wins (DXC's group)",
                           (r"'centroid' will be overridden by 'sample'",)),
    "for-redefinition": ("before HLSL 2021: a for-init variable declared again by a later for-init (the newest "
                         "declaration is used, as DXC)", (r"redefinition of '.*' .*shadows declaration in the outer",)),
    "dx9-deprecation": ("a vertex shader returning D3D9's POSITION, a user semantic at SM 6 (DXC's group)",
                        (r"'.*' is a user-defined semantic; did you mean 'SV_Position'\?$",)),
    "deprecated-declarations": ("a deprecated form DXC still accepts: an array's `.Length` (HLSL 2016)",
                                (r"Length is deprecated$",)),
    "missing-declarations": ("a declaration that declares nothing: `float;`, `typedef struct { ... };` (clang's "
                             "group)", (r"declaration does not declare anything$", r"typedef requires a name$")),
    "comment": ("a `/*` inside a block comment (clang's group)", (r"'/\*' within block comment$",)),
    "literal-range": ("a floating-point literal its type cannot hold: infinite or zero (clang's group)",
                      (r"magnitude of floating-point constant too (large|small) for type",)),
    "unknown-escape-sequence": ("a character literal's escape C does not have: '\\q' is 'q' (clang's group)",
                                (r"unknown escape sequence",)),
    "unknown-attributes": ("an attribute name DXC does not know: ignored (clang's group)",
                           (r"unknown attribute '.*' ignored$",)),
    "empty-body": ("`if (c);`: an if whose body is an empty statement on the condition's line (clang's group)",
                   (r"if statement has empty body$",)),
    "dangling-else": ("an `else` that belongs to an inner `if` though it may read as the outer's (clang's group)",
                      (r"add explicit braces to avoid dangling else$",)),
    "parentheses": ("`if (x = 1)` (an assignment as a condition) and `a & b == c` (a comparison inside a bitwise "
                    "operator) without parentheses (clang's group)",
                    (r"using the result of an assignment as a condition without parentheses$",
                     r"'.*' has lower precedence than '.*'; '.*' will be evaluated first$")),
    "logical-op-parentheses": ("`a && b || c` without parentheses (clang's group)", (r"'&&' within '\|\|'$",)),
    "switch-bool": ("`switch (a && b)`: a condition of type bool (clang's group)",
                    (r"switch condition has boolean value$",)),
    "#pragma-messages": ("the text of a `#pragma message` (clang's group; never an error under -WX, as clang's "
                         "DefaultWarnNoWerror)", ()),
    "builtin-macro-redefined": ("`#define` or `#undef` of __LINE__, __FILE__ or __COUNTER__ (clang's group)",
                                (r"(re|un)defining builtin macro$",)),
    "pragma-once-outside-header": ("`#pragma once` in the main file (the name of later clang's group; DXC's "
                                   "warning has none)", (r"#pragma once in main file$",)),
    "line-decimal": ("a `#line` number written with a leading 0: read as decimal (ours; DXC's warning has no "
                     "group)", (r"(#line|GNU line marker) directive interprets number as decimal",)),
    "preprocessor-arithmetic": ("`#if` arithmetic that overflows or makes a negative operand unsigned (ours; "
                                "DXC's warnings have no group)",
                                (r"integer overflow in preprocessor expression$",
                                 r"(left|right) side of operator converted from negative value to unsigned")),
    "implicitly-unsigned-literal": ("HLSL 202x: a decimal literal too large for int64_t, read as uint64_t (clang's "
                                    "group)", (r"integer literal is too large to be represented in a signed",)),
}
# warnings -WX leaves warnings (clang's DefaultWarnNoWerror)
NO_WERROR = ("#pragma-messages",)
# warnings shown only when asked for (-Wall or -W<group>), as clang's DefaultIgnore ones
DEFAULT_OFF = (r"variable '.*' is uninitialized when used here$", r"unused variable '.*'$")


def warning_group(d: Diagnostic) -> str | None:
    """The -W name of warning `d`, or None (e.g. a #warning directive's text: never suppressed)."""
    import re

    if d.group is not None:
        return d.group
    for name, (_what, patterns) in WARNING_GROUPS.items():
        if any(re.match(p, d.message) for p in patterns):
            return name
    return None


def apply_warning_options(diags: list[Diagnostic], disabled: list[str], as_errors: bool,
                          enabled: list[str] | tuple[str, ...] = ()) -> list[Diagnostic]:
    """Default-off warnings stay only with -Wall or -W<their group>; -Wno-NAME drops the warnings of group
    NAME; -WX then makes every remaining warning an error."""
    import re

    out = []
    for d in diags:
        if d.severity == "warning":
            group = warning_group(d)
            if disabled and group in disabled:
                continue
            if "all" not in enabled and group not in enabled and any(re.match(p, d.message) for p in DEFAULT_OFF):
                continue
            if as_errors and group not in NO_WERROR:
                d = Diagnostic("error", f"{d.message} [-WX]", d.loc, d.notes, d.source_line)
        out.append(d)
    return out
