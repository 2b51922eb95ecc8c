"""Declarative validators for the project file.

Each validator checks one TOML value and returns it normalised, appending a
`ConfigError` (with the key path) for every problem instead of stopping at the
first, so a user fixes a config in one round.  The schema itself is data in
config.py; the code here only knows value kinds.
"""

from __future__ import annotations

import re
from typing import Any

from ..records import DataRecord
from .tomlpos import format_path

IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ConfigError(DataRecord):
    path: tuple
    message: str
    line: int | None = None
    file: str = ""

    def render(self, style: str = "gnu") -> str:
        key = format_path(self.path) or "(top level)"
        where = self.file or "<config>"
        if self.line is not None:
            where = f"{where}({self.line})" if style == "msvc" else f"{where}:{self.line}"
        return f"{where}: error: {key}: {self.message}"


class ConfigFileError(Exception):
    """Raised with every error found in a project file."""

    def __init__(self, errors: list[ConfigError]):
        self.errors = errors
        super().__init__("\n".join(e.render() for e in errors))


Errs = list[ConfigError]

_TYPE_NAMES = {str: "a string", int: "an integer", bool: "a boolean", list: "an array", dict: "a table",
               float: "a float"}


def type_name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


class Spec:
    what = "a value"

    def check(self, value: Any, path: tuple, errs: Errs) -> Any:  # pragma: no cover - interface
        raise NotImplementedError

    def _bad(self, value: Any, path: tuple, errs: Errs) -> None:
        errs.append(ConfigError(path, f"expected {self.what}, got {type_name(value)} {value!r}"))


class Str(Spec):
    what = "a string"

    def __init__(self, pattern: str | None = None, hint: str = "") -> None:
        self.pattern = re.compile(pattern) if pattern else None
        self.hint = hint

    def check(self, value, path, errs):
        if not isinstance(value, str):
            self._bad(value, path, errs)
            return None
        if self.pattern and not self.pattern.match(value):
            errs.append(ConfigError(path, f"invalid value {value!r}{': ' + self.hint if self.hint else ''}"))
            return None
        return value


class Int(Spec):
    what = "an integer"

    def __init__(self, lo: int | None = None, hi: int | None = None) -> None:
        self.lo, self.hi = lo, hi

    def check(self, value, path, errs):
        if not isinstance(value, int) or isinstance(value, bool):
            self._bad(value, path, errs)
            return None
        if (self.lo is not None and value < self.lo) or (self.hi is not None and value > self.hi):
            errs.append(ConfigError(path, f"{value} is out of range [{self.lo}, {self.hi}]"))
            return None
        return value


class Bool(Spec):
    what = "a boolean"

    def check(self, value, path, errs):
        if not isinstance(value, bool):
            self._bad(value, path, errs)
            return None
        return value


class Enum(Spec):
    def __init__(self, *choices: str | int) -> None:
        self.choices = choices
        self.what = "one of " + ", ".join(repr(c) for c in choices)

    def check(self, value, path, errs):
        if value not in self.choices:
            errs.append(ConfigError(path, f"expected {self.what}, got {value!r}"))
            return None
        return value


class StrList(Spec):
    """A string or an array of strings (always returned as a list)."""

    what = "a string or an array of strings"

    def __init__(self, item: Spec | None = None) -> None:
        self.item = item or Str()

    def check(self, value, path, errs):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list):
            self._bad(value, path, errs)
            return None
        out = [self.item.check(v, path + (i,), errs) for i, v in enumerate(value)]
        return [v for v in out if v is not None]


def define_value(value: Any, path: tuple, errs: Errs) -> str | None:
    """Define values are strings; integers and booleans (1/0) are accepted as shorthands."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, str)):
        return str(value)
    errs.append(ConfigError(path, f"a define value must be a string, integer or boolean, got {type_name(value)}"))
    return None


class Defines(Spec):
    what = "a table of NAME = value"

    def check(self, value, path, errs):
        if not isinstance(value, dict):
            self._bad(value, path, errs)
            return None
        out: dict[str, str] = {}
        for name, v in value.items():
            if not IDENT_RE.match(name):
                errs.append(ConfigError(path + (name,), f"invalid define name {name!r}"))
                continue
            s = define_value(v, path + (name,), errs)
            if s is not None:
                out[name] = s
        return out


class Table(Spec):
    """A table with a fixed set of keys; unknown keys are errors."""

    what = "a table"

    def __init__(self, fields: dict[str, Spec], required: tuple[str, ...] = ()) -> None:
        self.fields = fields
        self.required = required

    def check(self, value, path, errs):
        if not isinstance(value, dict):
            self._bad(value, path, errs)
            return None
        out = {}
        for key, v in value.items():
            spec = self.fields.get(key)
            if spec is None:
                known = ", ".join(sorted(self.fields))
                errs.append(ConfigError(path + (key,), f"unknown key (known keys: {known})"))
                continue
            checked = spec.check(v, path + (key,), errs)
            if checked is not None:
                out[key] = checked
        for key in self.required:
            if key not in value:
                errs.append(ConfigError(path, f"missing required key '{key}'"))
        return out


class TableOf(Spec):
    """A table whose keys are free names, each value checked by one spec."""

    what = "a table"

    def __init__(self, item: Spec, key_pattern: re.Pattern | None = None, key_hint: str = "") -> None:
        self.item = item
        self.key_pattern = key_pattern
        self.key_hint = key_hint

    def check(self, value, path, errs):
        if not isinstance(value, dict):
            self._bad(value, path, errs)
            return None
        out = {}
        for key, v in value.items():
            if self.key_pattern is not None and not self.key_pattern.match(key):
                errs.append(ConfigError(path + (key,), f"invalid name {key!r}{': ' + self.key_hint if self.key_hint else ''}"))
                continue
            checked = self.item.check(v, path + (key,), errs)
            if checked is not None:
                out[key] = checked
        return out


class ArrayOf(Spec):
    what = "an array"

    def __init__(self, item: Spec) -> None:
        self.item = item

    def check(self, value, path, errs):
        if not isinstance(value, list):
            self._bad(value, path, errs)
            return None
        out = [self.item.check(v, path + (i,), errs) for i, v in enumerate(value)]
        return [v for v in out if v is not None]


class OneOf(Spec):
    """The first alternative whose Python type matches the value decides."""

    def __init__(self, *alts: tuple[type, Spec], what: str) -> None:
        self.alts = alts
        self.what = what

    def check(self, value, path, errs):
        for typ, spec in self.alts:
            if isinstance(value, typ):
                return spec.check(value, path, errs)
        self._bad(value, path, errs)
        return None
