"""Line numbers for TOML key paths.

tomllib returns plain dicts without positions, so config errors would have no
line.  This module scans the TOML text once for table headers (``[a.b]``,
``[[a.b]]``) and ``key =`` lines and maps each key path (a tuple of str keys and
int array-of-tables indices) to its 1-based line.  It is a locator, not a
parser: a path it cannot place (keys inside inline tables, say) falls back to
the line of its nearest placed ancestor.
"""

from __future__ import annotations

import re

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r'"(?:[^"\\]|\\.)*"|\'[^\']*\''
_KEY = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_HEADER_RE = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$")
_KEYLINE_RE = re.compile(rf"^\s*({_DOTTED})\s*=")
_PART_RE = re.compile(_KEY)
_MULTILINE_OPEN = re.compile(r'("""|\'\'\')')

Path = tuple  # tuple[str | int, ...]


def _split_dotted(text: str) -> list[str]:
    out = []
    for m in _PART_RE.finditer(text):
        part = m.group(0)
        if part[0] in "\"'":
            part = part[1:-1]
        out.append(part)
    return out


class KeyLocator:
    """Maps key paths of one TOML document to line numbers."""

    def __init__(self, text: str, prefix: Path = ()) -> None:
        self.lines: dict[Path, int] = {}
        self._prefix = prefix
        self._scan(text)

    def _scan(self, text: str) -> None:
        table: Path = ()
        aot_counts: dict[Path, int] = {}
        in_multiline: str | None = None
        for lineno, line in enumerate(text.splitlines(), 1):
            if in_multiline is not None:
                if in_multiline in line:
                    in_multiline = None
                continue
            m = _HEADER_RE.match(line)
            if m:
                parts = _split_dotted(m.group(2))
                table = self._resolve_header(parts, aot_counts, m.group(1) == "[[")
                self.lines.setdefault(table, lineno)
                continue
            m = _KEYLINE_RE.match(line)
            if m:
                path = table + tuple(_split_dotted(m.group(1)))
                self.lines.setdefault(path, lineno)
                rest = line[m.end():]
                opened = _MULTILINE_OPEN.findall(rest)
                if len(opened) % 2 == 1:
                    in_multiline = opened[-1]

    def _resolve_header(self, parts: list[str], aot_counts: dict[Path, int], is_aot: bool) -> Path:
        # Earlier path components that are arrays of tables refer to their last element.
        path: Path = ()
        for i, part in enumerate(parts):
            path = path + (part,)
            last = i == len(parts) - 1
            if last and is_aot:
                index = aot_counts.get(path, -1) + 1
                aot_counts[path] = index
                return path + (index,)
            if path in aot_counts:
                path = path + (aot_counts[path],)
        return path

    def line_of(self, path: Path) -> int | None:
        """The line of `path`, or of its nearest placed ancestor; None if nothing matches."""
        path = tuple(path)
        if self._prefix and path[: len(self._prefix)] != self._prefix:
            path = self._prefix + path
        while path:
            line = self.lines.get(path)
            if line is not None:
                return line
            path = path[:-1]
        return None


def format_path(path: Path) -> str:
    """'shader[1].permutations.MODE' style rendering of a key path."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + part
    return out
