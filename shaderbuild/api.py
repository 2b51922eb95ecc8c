"""The Python API: compile HLSL in-process, for engine asset pipelines (docs/API.md).

    import shaderbuild
    result = shaderbuild.compile_file("blur.hlsl", profile="cs_6_0", target="spirv")
    result.raise_for_errors()
    for r in result.manifest.resources: ...

A thin, typed layer over `compiler.compile_file` and the manifest JSON: the same compiler and
the same bytes as `shaderbuild compile`.  Re-exported lazily by `shaderbuild/__init__.py`, so the
command line never imports it.  Nothing here raises for bad shader input except
`raise_for_errors()`; bad arguments (an unknown option name) raise TypeError/ValueError.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .diagnostics import Diagnostic, render_all
from .options import CompileOptions

__all__ = ["CompileFailed", "Diagnostic", "HlslBinding", "Manifest", "Member", "PushConstant", "Resource", "Result",
           "VulkanBinding", "compile_file", "compile_source"]

Count = int | str          # a descriptor count, or "unbounded"


class CompileFailed(Exception):
    """Raised by `Result.raise_for_errors()`; `diagnostics` holds what went wrong."""

    def __init__(self, diagnostics: list[Diagnostic], text: str) -> None:
        super().__init__(text)
        self.diagnostics = diagnostics


@dataclass(frozen=True)
class HlslBinding:
    """The D3D12 view: register class ('t', 'u', 'b', 's'), register, space, count."""

    register_class: str
    register: int
    space: int
    count: Count


@dataclass(frozen=True)
class VulkanBinding:
    """The Vulkan view: descriptor set, binding, descriptor type, count (and the UAV counter's binding)."""

    set: int
    binding: int
    descriptor_type: str
    count: Count
    counter_binding: int | None = None


@dataclass(frozen=True)
class Member:
    """A struct member in both packings: offsets are relative to the enclosing struct."""

    name: str
    type: str
    hlsl_offset: int
    hlsl_size: int
    vulkan_offset: int
    vulkan_size: int
    members: tuple[Member, ...] = ()
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Member:
        return cls(d["name"], d["type"], d["hlsl"]["offset"], d["hlsl"]["size"], d["vulkan"]["offset"],
                   d["vulkan"]["size"], tuple(cls.from_json(m) for m in d.get("members", ())), d)


@dataclass(frozen=True)
class Resource:
    """One resource the shader declares; `used` says whether the entry point references it."""

    name: str
    kind: str
    access: str
    used: bool
    hlsl: HlslBinding
    vulkan: VulkanBinding | None
    members: tuple[Member, ...] = ()       # cbuffer members, or a structured buffer's element members
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Resource:
        h = d["hlsl"]
        v = d.get("vulkan")
        vk = None if v is None else VulkanBinding(v["set"], v["binding"], v["descriptor_type"], v["count"],
                                                   v.get("counter_binding"))
        layout = d.get("block") or d.get("element") or {}
        return cls(d["name"], d["kind"], d["access"], d.get("used", True),
                   HlslBinding(h["class"], h["register"], h["space"], h["count"]), vk,
                   tuple(Member.from_json(m) for m in layout.get("members", ())), d)


@dataclass(frozen=True)
class PushConstant:
    name: str
    used: bool
    vulkan_size: int
    members: tuple[Member, ...]


@dataclass(frozen=True)
class Manifest:
    """The binding manifest (docs/MANIFEST.md) as objects; `raw` is the JSON document itself."""

    raw: Mapping[str, Any] = field(repr=False)

    @property
    def version(self) -> int:
        return int(self.raw.get("manifest_version", 1))

    @property
    def stage(self) -> str:
        """The entry's stage; "library" for a ray-tracing library (see `shaders`)."""
        return "library" if "library" in self.raw else self.raw["entry"]["stage"]

    @property
    def entry(self) -> str:
        return "" if "library" in self.raw else self.raw["entry"]["name"]

    @property
    def numthreads(self) -> tuple[int, int, int] | None:
        n = self.raw.get("entry", {}).get("numthreads")
        return None if n is None else (n[0], n[1], n[2])

    @property
    def shaders(self) -> list[Mapping[str, Any]]:
        """A ray-tracing library's exported shaders (name, kind, sizes, resources: docs/MANIFEST.md); [] otherwise."""
        return list(self.raw.get("library", {}).get("shaders", []))

    @property
    def resources(self) -> list[Resource]:
        return [Resource.from_json(r) for r in self.raw["resources"]]

    @property
    def push_constants(self) -> list[PushConstant]:
        return [PushConstant(p["name"], p.get("used", True), p["block"]["vulkan_size"],
                             tuple(Member.from_json(m) for m in p["block"]["members"]))
                for p in self.raw["push_constants"]]

    def resource(self, name: str) -> Resource:
        for r in self.resources:
            if r.name == name:
                return r
        raise KeyError(name)

    def to_json(self) -> str:
        from .reflect.manifest import dumps

        return dumps(dict(self.raw))


@dataclass
class Result:
    """What one compilation produced.  `ok` is False when there is an error diagnostic; then
    `binary` and `manifest` are None."""

    ok: bool
    binary: bytes | None
    manifest: Manifest | None
    diagnostics: list[Diagnostic]
    dependencies: list[str]
    _inner: Any = field(repr=False, default=None)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity in ("error", "fatal error")]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def disassembly(self) -> str | None:
        return None if self._inner is None else self._inner.disassembly

    def format_diagnostics(self, style: str = "gnu") -> str:
        """The diagnostics as `shaderbuild compile` prints them ('gnu', 'msvc' or 'json')."""
        return render_all(self.diagnostics, None if self._inner is None else self._inner.sources, style)

    def raise_for_errors(self) -> Result:
        """Raise CompileFailed when the compilation failed; return self otherwise (chainable)."""
        if not self.ok:
            raise CompileFailed(self.diagnostics, self.format_diagnostics())
        return self


def _options(profile: str, entry: str, target: str, defines: Mapping[str, object] | None,
             include_dirs: Sequence[str] | None, extra: dict[str, Any]) -> CompileOptions:
    unknown = sorted(set(extra) - set(CompileOptions._fields))
    if unknown:
        raise TypeError(f"unknown compile option(s) {', '.join(unknown)} (known: {', '.join(CompileOptions._fields)})")
    return CompileOptions(entry=entry, profile=profile, target=target,
                          defines={str(k): str(v) for k, v in (defines or {}).items()},
                          include_dirs=[os.fspath(d) for d in include_dirs or ()], **extra)


def _wrap(inner) -> Result:
    return Result(inner.ok, inner.binary, Manifest(inner.manifest) if inner.manifest is not None else None,
                  list(inner.diagnostics), list(inner.dependencies), inner)


def compile_file(path: str | os.PathLike[str], *, profile: str, entry: str = "main", target: str = "spirv",
                 defines: Mapping[str, object] | None = None, include_dirs: Sequence[str] | None = None,
                 **options: Any) -> Result:
    """Compile `entry` of the HLSL file `path` for `target` ('spirv' or 'dxil').  `options` are
    other CompileOptions fields (opt_level, row_major, vk_target_env, binding_shifts, ...)."""
    from .compiler import compile_file as _compile

    return _wrap(_compile(os.fspath(path), _options(profile, entry, target, defines, include_dirs, options)))


def compile_source(source: str, *, profile: str, entry: str = "main", target: str = "spirv",
                   name: str = "shader.hlsl", defines: Mapping[str, object] | None = None,
                   include_dirs: Sequence[str] | None = None, **options: Any) -> Result:
    """Compile HLSL text.  `name` is the file name diagnostics and the manifest show; quoted
    #includes resolve relative to its directory (default: the working directory)."""
    from .compiler import compile_file as _compile

    return _wrap(_compile(name, _options(profile, entry, target, defines, include_dirs, options), text=source))
