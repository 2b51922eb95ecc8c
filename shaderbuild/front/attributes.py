"""The attributes the compiler knows and how many arguments each takes.

Checked once, in the parser, so every later use may index an attribute's arguments
without guarding against a missing one. Attributes not listed are accepted and ignored,
as DXC does with attributes it does not know; every attribute DXC gives a meaning to is listed,
and either carried into the IR (ENTRY_MODES, the entry and resource records) or refused (REFUSED)."""

from __future__ import annotations

from ..diagnostics import SourceLoc, error
from .ast import Attribute

TYPE_CHECKING = False
if TYPE_CHECKING:                     # `collections` stays off the compile path (tests/cli/test_import_budget.py)
    from collections.abc import Callable

# at most one of each group on an entry (DXC's SPIR-V emitter refuses two)
EXCLUSIVE_MODES = (("vk::stencil_ref_unchanged_front", "vk::stencil_ref_greater_equal_front",
                    "vk::stencil_ref_less_equal_front"),
                   ("vk::stencil_ref_unchanged_back", "vk::stencil_ref_greater_equal_back",
                    "vk::stencil_ref_less_equal_back"))
# entry attributes that change how a pixel shader runs: sema records each one written in
# ir.EntryPoint.modes and each backend gives it its form (SPIR-V: an execution mode; DXIL: a
# shader flag, or nothing for the [[vk::...]] ones, which are Vulkan's alone: DXC's DXIL ignores
# them, and D3D's pipeline behaves as without them).  [WaveSize] is the entry's `wave_size`.
ENTRY_MODES: frozenset[str] = frozenset({
    "earlydepthstencil",              # depth/stencil tests before the shader runs
    "vk::post_depth_coverage",        # SV_Coverage after the early tests
    "vk::early_and_late_tests", "vk::depth_unchanged", *EXCLUSIVE_MODES[0], *EXCLUSIVE_MODES[1],
})

# name -> (fewest, most) arguments
ATTRIBUTE_ARGS: dict[str, tuple[int, int]] = {
    "numthreads": (3, 3),
    "maxvertexcount": (1, 1),
    "instance": (1, 1),
    "RootSignature": (1, 1),
    "unroll": (0, 1),
    "loop": (0, 0),
    "fastopt": (0, 0),
    "allow_uav_condition": (0, 0),
    "branch": (0, 0),
    "flatten": (0, 0),
    "forcecase": (0, 0),
    "call": (0, 0),
    "domain": (1, 1),
    "partitioning": (1, 1),
    "outputtopology": (1, 1),
    "outputcontrolpoints": (1, 1),
    "patchconstantfunc": (1, 1),
    "maxtessfactor": (1, 1),
    "shader": (1, 1),
    "wavesize": (1, 3),               # [WaveSize(min[, max[, preferred]])]: checked by wave_size_problems
    "raypayload": (0, 0),
    "vk::binding": (1, 2),
    "vk::counter_binding": (1, 1),
    "vk::image_format": (1, 1),
    "vk::offset": (1, 1),
    "vk::location": (1, 1),
    "vk::builtin": (1, 1),
    "vk::constant_id": (1, 1),
    "vk::push_constant": (0, 0),
    "vk::perprimitive": (0, 0),       # a pixel-shader input a mesh shader writes per primitive
    "vk::ext_builtin_input": (1, 1),
    "vk::ext_builtin_output": (1, 1),
    **{name: (0, 0) for name in ENTRY_MODES},
}


# Vulkan attributes DXC's SPIR-V gives a meaning this compiler does not implement (inline SPIR-V, dual-source
# blending's output index, subpass inputs, shader-record buffers, combined image samplers, buffer pointers):
# refused for a target whose Capabilities.vulkan_attributes is set; elsewhere they mean nothing, as in DXC's DXIL
VK_UNIMPLEMENTED: frozenset[str] = frozenset(f"vk::{n}" for n in (
    "index", "input_attachment_index", "shader_record_nv", "shader_record_ext", "combinedImageSampler",
    "aliased_pointer", "spvexecutionmode", "ext_capability", "ext_extension", "ext_decorate", "ext_decorate_id",
    "ext_decorate_string", "ext_storage_class", "ext_instruction", "ext_literal", "ext_reference", "ext_type_def"))

# attributes DXC gives a meaning this compiler does not implement -> why (refused where written,
# rather than compiled into a shader that behaves otherwise)
# Other attribute names DXC knows (its Attr.td spellings of [name] / [[name]], [[vk::name]] and [[clang::name]]):
# accepted and ignored here without a word; any other name gets clang's "unknown attribute 'x' ignored".
KNOWN_IGNORED: frozenset[str] = frozenset((
    "maxrecords", "nodearraysize", "__LinAlgMatrix_Attributes", "center", "centroid", "column_major", "experimental",
    "export", "globallycoherent", "groupshared", "hlsl_vk_buffer_pointer", "in", "indices", "inout", "intrinsic",
    "line", "lineadj", "linear", "maybe_unused", "nodiscard", "noinline", "nointerpolation", "noperspective", "out",
    "payload", "point", "precise", "primitives", "reordercoherent", "row_major", "sample", "shared", "snorm",
    "triangle", "triangleadj", "uniform", "unorm", "vertices", "wavesensitive", "carries_dependency", "deprecated",
    "noreturn", *(f"clang::{n}" for n in (
        "fallthrough", "no_sanitize", "noduplicate", "optnone", "type_visibility", "warn_unused_result",
        "acquire_capability", "acquire_shared_capability", "assert_capability", "assert_shared_capability",
        "capability", "release_capability", "release_generic_capability", "release_shared_capability",
        "requires_capability", "requires_shared_capability", "shared_capability", "try_acquire_capability",
        "try_acquire_shared_capability")),
))


def is_known(name: str) -> bool:
    """Whether DXC knows attribute `name` (canonical_name's spelling); it looks a name up as written and in lower
    case (AttributeList::getKind)."""
    return (name in ATTRIBUTE_ARGS or name in REFUSED or name in VK_UNIMPLEMENTED or name in KNOWN_IGNORED
            or name.lower() in KNOWN_IGNORED)


REFUSED: dict[str, str] = {
    "waveopsincludehelperlanes": "[WaveOpsIncludeHelperLanes] is not supported: wave operations here never "
                                 "include helper lanes",
    "clipplanes": "[clipplanes] is not supported: write the clip distances to SV_ClipDistance instead",
    "groupsharedlimit": "[GroupSharedLimit] is not supported: it needs shader model 6.10 (this compiler targets 6.8)",
    **{name: f"[{name}] is not supported: work-graph node shaders are not supported" for name in (
        "nodelaunch", "nodeisprogramentry", "nodeid", "nodelocalrootargumentstableindex", "nodeshareinputof",
        "nodedispatchgrid", "nodemaxdispatchgrid", "nodemaxrecursiondepth", "nodetrackrwinputsharing",
        "maxrecords", "maxrecordssharedwith", "allowsparsenodes", "nodearraysize", "unboundedsparsenodes")},
}

# attributes of functions (entry points): DXC refuses them on any other declaration
# (SemaHLSL.cpp ValidateAttributeTargetIsFunction)
FUNCTION_ONLY = frozenset({"numthreads", "maxvertexcount", "instance", "RootSignature", "domain", "partitioning",
                           "outputtopology", "outputcontrolpoints", "patchconstantfunc", "maxtessfactor", "shader",
                           "wavesize", "earlydepthstencil"})

# statement attributes DXC refuses together -> (its message, located at the statement rather than the attribute)
INCOMPATIBLE: dict[tuple[str, str], tuple[str, bool]] = {
    ("loop", "unroll"): ("loop and unroll attributes are not compatible", False),
    ("fastopt", "unroll"): ("fastopt and unroll attributes are not compatible", False),
    ("branch", "flatten"): ("can't use branch and flatten attributes together", True),
}

_WAVE_SIZES = (4, 8, 16, 32, 64, 128)


def wave_size_problems(values: list[int], stage: str, sm_minor: int) -> list[str]:
    """The errors of a [WaveSize] on an entry point, in DXC's words (SemaHLSL.cpp
    ValidateWaveSizeAttributes, DiagnoseComputeEntry, DiagnoseEntryAttrAllowedOnStage): the shader
    does not depend on the wave size it asks for, so the attribute is only checked. An equal minimum and
    maximum is a warning DXC makes an error by default (DefaultError): an error here."""
    out: list[str] = []
    if stage != "compute":
        out.append("attribute WaveSize only allowed on compute or node shaders")
    if any(v not in _WAVE_SIZES for v in values):
        out.append("WaveSize arguments must be between 4 and 128 and a power of 2")
    elif len(values) > 1 and values[1] == values[0]:
        out.append("Wave Size Range minimum and maximum are equal")
    elif len(values) > 1 and values[1] < values[0]:
        out.append(f"Minimum WaveSize value {values[0]} must be less than maximum WaveSize value "
                   f"{values[1]}")
    elif len(values) > 2 and not values[0] <= values[2] <= values[1]:
        out.append(f"Preferred WaveSize value {values[2]} must be between {values[0]} and {values[1]}")
    if stage == "compute" and sm_minor < 6:
        out.append("attribute wavesize requires shader model 6.6 or greater")
    if stage == "compute" and sm_minor < 8 and len(values) > 1:
        out.append("WaveSize only takes multiple arguments in Shader Model 6.8 or higher")
    return out


_WORDS = {0: "no arguments", 1: "one argument", 2: "two arguments", 3: "three arguments"}


def _count(lo: int, hi: int) -> str:
    if lo == hi:
        return _WORDS[lo]
    if lo == 0:
        return f"at most {_WORDS[hi]}"
    return f"{_WORDS[lo].split()[0]} or {_WORDS[hi]}"


def canonical_name(name: str) -> str:
    """DXC looks an attribute up by its spelling and then by its spelling in lower case
    (AttributeList::getKind), so `[NumThreads(...)]` and `[OutputTopology("triangle")]` are the
    table's `numthreads` and `outputtopology`."""
    if name in ATTRIBUTE_ARGS:
        return name
    lower = name.lower()
    return lower if lower in ATTRIBUTE_ARGS or lower in REFUSED else name


def check_attribute(a: Attribute) -> None:
    """Reject a known attribute given the wrong number of arguments."""
    if a.name in REFUSED:
        raise error(REFUSED[a.name], a.loc)
    bounds = ATTRIBUTE_ARGS.get(a.name)
    if bounds is not None and not bounds[0] <= len(a.args) <= bounds[1]:
        raise error(f"attribute '{a.name}' takes {_count(*bounds)}, not {len(a.args)}", a.loc)


def entry_modes(attrs: list[Attribute], stage: str, warn: Callable[[str, SourceLoc], None]) -> tuple[str, ...]:
    """The ENTRY_MODES written on an entry of `stage`, sorted (so the output does not depend on their order),
    at most one of each EXCLUSIVE_MODES group.  They describe the pixel stage's depth and stencil tests: on
    another stage they change nothing (DXC accepts them silently); a warning says so."""
    found = {a.name: a for a in attrs if a.name in ENTRY_MODES}
    if stage != "pixel":
        for name, a in found.items():
            warn(f"attribute '{name}' has no effect on a {stage} shader: it applies to pixel shaders", a.loc)
        return ()
    for group in EXCLUSIVE_MODES:
        both = [found[n] for n in group if n in found]
        if len(both) > 1:
            raise error(f"'{both[0].name}' and '{both[1].name}' cannot both be given: shaders must not specify more "
                        f"than one of {', '.join(group)}", both[1].loc)
    return tuple(sorted(found))


def check_statement_attributes(attrs: list[Attribute], stmt_loc: SourceLoc) -> None:
    """Reject hints that contradict each other on one statement ([loop][unroll], [branch][flatten])."""
    names = {a.name for a in attrs}
    for (a, b), (message, at_statement) in INCOMPATIBLE.items():
        if a in names and b in names:
            raise error(message, stmt_loc if at_statement else attrs[0].loc)


# statement attributes -> the statements they belong on and DXC's warning wording for any other one
# (DXC's table in SemaHLSL.cpp ProcessStmtAttributeForHLSL; group -Wattribute-statement)
_PLACES = {
    "loop": ("loop", "'for', 'while' and 'do' loop statements"),
    "fastopt": ("loop", "'for', 'while' and 'do' loop statements"),
    "unroll": ("loop", "'for', 'while' and 'do' loop statements"),
    "allow_uav_condition": ("loop", "'for', 'while' and 'do' loop statements"),
    "branch": ("if switch", "'if' and 'switch' statements"),
    "flatten": ("if switch", "'if' and 'switch' statements"),
    "forcecase": ("switch", "'switch' statements"),
    "call": ("switch", "'switch' statements"),
}


def misplaced_statement_attributes(attrs: list[Attribute], kind: str) -> list[tuple[str, SourceLoc]]:
    """Warnings for statement attributes on a statement of `kind` ('loop', 'if', 'switch' or 'other')
    they do not apply to; DXC ignores such an attribute."""
    out = []
    for a in attrs:
        place = _PLACES.get(a.name)
        if place is not None and kind not in place[0].split():
            out.append((f"attribute '{a.name}' can only be applied to {place[1]}", a.loc))
    return out
