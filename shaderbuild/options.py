"""Compile options: everything that changes a compiled binary.

The build engine hashes `CompileOptions.cache_fields()` into its cache key, so
every field here must be deterministic and JSON-serialisable.
"""

from __future__ import annotations

from .diagnostics import error
from .records import DataRecord, Record, ValueRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import ClassVar

STAGES = {"cs": "compute", "vs": "vertex", "ps": "pixel", "gs": "geometry", "hs": "hull", "ds": "domain",
          "ms": "mesh", "as": "amplification", "lib": "library"}
_SM_MINORS = frozenset("012345678")
# the first shader model of a stage: DXR libraries arrived with SM 6.3, mesh and amplification shaders with 6.5
STAGE_MIN_SM = {"library": 3, "mesh": 5, "amplification": 5}


class Profile(ValueRecord):
    """A parsed shader profile."""

    stage: str          # 'compute' | 'vertex' | 'pixel' | 'geometry' | 'hull' | 'domain' | 'mesh' | 'amplification' | 'library'
    major: int
    minor: int

    @property
    def short(self) -> str:
        return {v: k for k, v in STAGES.items()}[self.stage]

    def __str__(self) -> str:
        return f"{self.short}_{self.major}_{self.minor}"


def parse_profile(text: str) -> Profile:
    """Parse a DXC profile such as 'cs_6_0' (SM 6.0 through 6.8)."""
    parts = text.split("_")        # string tests, not a regex: compiling one costs a cold start ~0.2 ms
    if len(parts) != 3 or parts[0] not in STAGES or parts[1] != "6" or parts[2] not in _SM_MINORS:
        raise error(f"unknown or unsupported profile '{text}' (expected cs_6_0..cs_6_8, vs_6_x, ps_6_x, gs_6_x, "
                    f"hs_6_x, ds_6_x, ms_6_5..ms_6_8, as_6_5..as_6_8 or lib_6_3..lib_6_8)")
    stage, sm_minor = STAGES[parts[0]], int(parts[2])
    if sm_minor < STAGE_MIN_SM.get(stage, 0):
        what = "ray-tracing libraries" if stage == "library" else f"{stage} shaders"
        raise error(f"profile '{text}': {what} need shader model 6.{STAGE_MIN_SM[stage]} or later")
    return Profile(stage, 6, sm_minor)


MAX_REGISTER = 2**32 - 1   # registers, spaces, Vulkan sets and bindings are 32-bit in DXIL and SPIR-V


class BindingShift(ValueRecord):
    """DXC's -fvk-{b,t,s,u}-shift N <space|all>."""

    register_class: str   # 'b' | 't' | 's' | 'u'
    shift: int
    space: int | None     # None = all spaces


class BindRegister(ValueRecord):
    """DXC's -fvk-bind-register xX Y N M: register xX in space Y -> binding N, set M."""

    register_class: str
    register: int
    space: int
    binding: int
    set: int


VK_LAYOUTS = ("default", "dx", "gl", "scalar")
# -fspv-target-env values (DXC's); the SPIR-V backend maps each to a SPIR-V version
VK_TARGET_ENVS = ("vulkan1.0", "vulkan1.1", "vulkan1.2", "vulkan1.3", "universal1.5")


class CompileOptions(DataRecord):
    """Everything that changes a compiled binary (see the module docstring).  `_fields` names
    them in order.  Records, not dataclasses: this module is on every compile's start-up path,
    where importing dataclasses (with copy) and creating each dataclass cost ~3 ms in all."""

    entry: str = "main"
    profile: str = "cs_6_0"
    target: str = "spirv"
    defines: dict[str, str] = Record.factory(dict)
    include_dirs: list[str] = Record.factory(list)
    binding_shifts: list[BindingShift] = Record.factory(list)
    vk_target_env: str = "vulkan1.1"
    dxil_hash: str = "bypass"       # 'bypass' | 'retail'
    hlsl_version: int = 2021
    enable_16bit_types: bool = False
    enable_payload_qualifiers: bool = False         # -enable-payload-qualifiers: DXR payload access qualifiers on lib_6_6
    res_may_alias: bool = False                     # -res-may-alias: DXIL leaves out the "UAVs may not alias" flag
    all_resources_bound: bool = False               # -all-resources-bound: DXIL's AllResourcesBound shader flag
    # DXC's Vulkan options (SPIR-V.rst "Vulkan-specific options")
    vk_invert_y: bool = False                       # -fvk-invert-y
    vk_use_dx_position_w: bool = False              # -fvk-use-dx-position-w
    vk_support_nonzero_base_vertex: bool = False    # -fvk-support-nonzero-base-vertex
    vk_support_nonzero_base_instance: bool = False  # -fvk-support-nonzero-base-instance
    vk_auto_shift_bindings: bool = False            # -fvk-auto-shift-bindings
    vk_bind_registers: list[BindRegister] = Record.factory(list)   # -fvk-bind-register
    vk_bind_globals: tuple[int, int] | None = None  # -fvk-bind-globals N M (binding, set)
    auto_binding_space: int = 0                     # -auto-binding-space N
    vk_bind_resource_heap: tuple[int, int] | None = None  # -fvk-bind-resource-heap N M (binding, set)
    vk_bind_sampler_heap: tuple[int, int] | None = None   # -fvk-bind-sampler-heap N M
    vk_bind_counter_heap: tuple[int, int] | None = None   # -fvk-bind-counter-heap N M
    vk_layout: str = "default"                      # -fvk-use-{dx,gl,scalar}-layout
    row_major: bool = False                         # -Zpr (default column_major, -Zpc)
    max_preprocessed_bytes: int = 16 * 1024 * 1024  # --max-preprocessed-bytes (PPLimits.max_total_size)
    validate_ir: bool = False                       # --validate-ir: check the IR after sema and each pass
    # debug info (-Zi, -Fd FILE, -Qembed_debug): see docs/DEBUG_INFO.md
    debug_info: bool = False                        # -Zi: SPIR-V NonSemantic.Shader.DebugInfo.100 / DXIL ILDB
    debug_file: str | None = None                   # -Fd FILE: the DXIL debug container (PDB) goes there
    embed_debug: bool = False                       # -Qembed_debug: the ILDB part in the main container
    # root signatures (shaderbuild/rootsig)
    rootsig_define: str | None = None               # -rootsig-define NAME: the macro holding the root signature
    rootsig_version: str = "1.1"                    # -force-rootsig-ver rootsig_1_0 | rootsig_1_1
    strip_root_signature: bool = False              # -Qstrip_rootsignature: no RTS0 part in the container
    opt_level: int = 3                              # -O0..-O3 (-Od = 0); DXC's default is -O3
    warnings_as_errors: bool = False                # -WX
    disabled_warnings: list[str] = Record.factory(list)   # -Wno-NAME (names: diagnostics.WARNING_GROUPS)
    enabled_warnings: list[str] = Record.factory(list)    # -Wall, -WNAME: also the default-off warnings
    error_limit: int = 20                           # -ferror-limit=N (0: no limit); diagnostics.limit_errors

    # fields that change no output byte, so no cache key
    _NOT_IN_CACHE_KEY: ClassVar[tuple[str, ...]] = ("validate_ir", "error_limit")

    def cache_fields(self) -> dict:
        """A stable, JSON-serialisable view used in cache keys."""
        d = {name: getattr(self, name) for name in self._fields if name not in self._NOT_IN_CACHE_KEY}
        d["include_dirs"] = list(self.include_dirs)
        d["defines"] = sorted(self.defines.items())
        d["binding_shifts"] = [[s.register_class, s.shift, s.space] for s in self.binding_shifts]
        d["vk_bind_registers"] = [[b.register_class, b.register, b.space, b.binding, b.set]
                                  for b in self.vk_bind_registers]
        d["vk_bind_globals"] = list(self.vk_bind_globals) if self.vk_bind_globals is not None else None
        for name in ("vk_bind_resource_heap", "vk_bind_sampler_heap", "vk_bind_counter_heap"):
            d[name] = list(d[name]) if d[name] is not None else None
        return d

    def replace(self, **changes) -> CompileOptions:
        """A copy with `changes` applied, as dataclasses.replace (an unknown name is a TypeError)."""
        return type(self)(**{**{name: getattr(self, name) for name in self._fields}, **changes})

    @property
    def passes_level(self) -> int:
        """The optimisation level the passes apply: -Zi keeps the code as written (its debug
        records describe each source statement and function; inlined scopes are not described), as -Od."""
        return 0 if self.debug_info else self.opt_level

    @property
    def parsed_profile(self) -> Profile:
        return parse_profile(self.profile)
