"""The compile pipeline as one in-process call: source file -> binary + manifest.

    preprocess -> parse -> sema (-> IR) -> shared passes -> backend plugin -> manifest

`compile_file` never raises for bad input: user errors come back as
diagnostics in the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .diagnostics import Diagnostic, SourceCache
from .options import CompileOptions


@dataclass(slots=True)
class CompileResult:
    ok: bool
    binary: bytes | None = None
    manifest: dict | None = None
    disassembly: str | None = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    dependencies: list[str] = field(default_factory=list)   # every file the preprocessor read
    sources: SourceCache = field(default_factory=SourceCache)
    timings: dict[str, float] = field(default_factory=dict)  # phase -> seconds
