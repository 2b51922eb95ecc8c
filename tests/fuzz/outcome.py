"""Classification of one compile: the property every fuzz input must satisfy.

The compiler either succeeds (and its binary passes the external validators) or fails with
located error diagnostics.  Everything else is a finding, bucketed by a signature so a
campaign reports each bug once with its first reproducer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OK, ERROR = "ok", "error"                      # the two acceptable outcomes
INVALID = "invalid"                            # compiled, but a validator rejected the binary
INTERNAL = "internal"                          # an 'internal compiler error' diagnostic
BAD_DIAG = "bad_diagnostic"                    # failed without a located error diagnostic
TRACEBACK = "traceback"                        # an exception escaped compile_file
CRASH = "crash"                                # the worker process died
HANG = "hang"                                  # per-input timeout
ACCEPTABLE = frozenset({OK, ERROR})
FINDINGS = (INVALID, INTERNAL, BAD_DIAG, TRACEBACK, CRASH, HANG)

ICE_MARK = "internal compiler error"
_AT = re.compile(r"\(at ([\w.]+:\d+)\)")
_NUMBER = re.compile(r"\d+")
_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"")


@dataclass
class Outcome:
    """What one (input, target) pair did; `detail` is the message that explains a finding."""

    target: str
    cls: str
    detail: str = ""
    seconds: float = 0.0

    @property
    def acceptable(self) -> bool:
        return self.cls in ACCEPTABLE

    @property
    def signature(self) -> str:
        """Bucket key: class + message shape (numbers and quoted names blanked, ICE site kept)."""
        at = _AT.search(self.detail)
        head = self.detail.splitlines()[0] if self.detail else ""
        shape = _NUMBER.sub("N", _QUOTED.sub("'_'", _AT.sub("", head)))[:160]
        return f"{self.cls}|{at.group(1) if at else ''}|{shape}"


def classify_diagnostics(diagnostics: list) -> tuple[str, str]:
    """(class, detail) of a failed compile from its Diagnostic list."""
    errors = [d for d in diagnostics if d.severity == "error"]
    for d in diagnostics:
        if ICE_MARK in d.message:
            return INTERNAL, d.message
    if not errors:
        return BAD_DIAG, "compile failed without an error diagnostic"
    for d in errors:
        loc = d.loc
        if loc is None or not loc.file or loc.line < 1 or loc.col < 1:
            return BAD_DIAG, f"error without file:line:col: {d.message}"
    return ERROR, errors[0].message
