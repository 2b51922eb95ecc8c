"""State-object subobjects: `TriangleHitGroup hg = { "", "CH" };` and the other types of
ir/subobjects.py, declared as global variables with a brace initializer (as in DXC).  They are no
storage: sema checks each against its row of the table and records an `ir.Subobject` on the module
for the manifest and the DXIL library (the root-signature strings are parsed by rootsig/shader.py)."""

from __future__ import annotations

from ... import ir
from ...diagnostics import DiagnosticSink, SourceLoc, error
from ...ir.subobjects import (
    HIT_GROUP_EXPORTS,
    PIPELINE_FLAGS_MASK,
    STATE_OBJECT_FLAGS_MASK,
    SUBOBJECT_KINDS,
    Subobject,
)
from .. import ast

TYPE_CHECKING = False
if TYPE_CHECKING:       # no typing at run time (issue 23)
    from .lower import Analyzer


def subobject_global(sema: Analyzer, d: ast.VarDecl) -> Subobject:
    """Check one subobject declaration against its kind's fields; the record it describes.  (A subobject
    type anywhere else than a global declaration is refused by front/sema/typeresolve.py first.)"""
    row = SUBOBJECT_KINDS[d.type.name]
    if d.dims:
        raise error(f"arrays of subobjects are not allowed ('{d.name}' of type '{row.name}')", d.loc)
    if d.init is None:
        raise error(f"subobject '{d.name}' of type '{row.name}' needs to be initialized", d.loc)
    if not isinstance(d.init, ast.InitList):
        raise error(f"subobject '{d.name}' of type '{row.name}' is initialized with an initializer list "
                    f"{{ {', '.join(f for f, _ in row.fields)} }}", d.init.loc)
    items = d.init.items
    if len(items) != len(row.fields):
        where = items[len(row.fields)].loc if len(items) > len(row.fields) else d.init.loc
        raise error(f"'{row.name}' has {len(row.fields)} field{'s' if len(row.fields) > 1 else ''} "
                    f"({', '.join(f for f, _ in row.fields)}); the initializer gives {len(items)}", where)
    if (sema.profile.major, sema.profile.minor) < row.min_sm:
        raise error(f"'{row.name}' requires shader model {row.min_sm[0]}.{row.min_sm[1]} or higher", d.loc)
    values: list[str | int] = []
    locs: list[SourceLoc] = []
    for (field, kind), item in zip(row.fields, items):
        if kind == "string":
            if not isinstance(item, ast.StringLit):
                raise error(f"field '{field}' of '{row.name}' is a string: expected a string literal", item.loc)
            values.append(item.value)
            locs.append(SourceLoc(item.loc.file, item.loc.line, item.loc.col + 1))
        else:
            if isinstance(item, (ast.StringLit, ast.InitList)):
                raise error(f"field '{field}' of '{row.name}' is a uint: expected an integer constant", item.loc)
            v = sema.const_int(item)
            if not 0 <= v <= 0xFFFFFFFF:
                raise error(f"field '{field}' of '{row.name}' is a uint: {v} is out of range", item.loc)
            values.append(v)
            locs.append(item.loc)
    obj = Subobject(d.name, row.name, tuple(values), d.loc, value_locs=tuple(locs))
    _check_values(obj)
    return obj


def _check_values(obj: Subobject) -> None:
    """The checks DXC and the D3D12 runtime make on single values."""
    loc = dict(zip((f for f, _ in obj.row.fields), obj.value_locs))
    if obj.kind == "StateObjectConfig" and obj.field("Flags") & ~STATE_OBJECT_FLAGS_MASK:
        raise error(f"invalid state object flags 0x{obj.field('Flags'):x} (valid: 0x{STATE_OBJECT_FLAGS_MASK:x})",
                    loc["Flags"])
    if obj.kind == "RaytracingPipelineConfig1" and obj.field("Flags") & ~PIPELINE_FLAGS_MASK:
        raise error(f"invalid ray-tracing pipeline flags 0x{obj.field('Flags'):x} "
                    f"(valid: 0x{PIPELINE_FLAGS_MASK:x})", loc["Flags"])
    if obj.kind in ("RaytracingPipelineConfig", "RaytracingPipelineConfig1") and obj.field("MaxTraceRecursionDepth") > 31:
        raise error(f"MaxTraceRecursionDepth {obj.field('MaxTraceRecursionDepth')} exceeds the D3D12 limit of 31",
                    loc["MaxTraceRecursionDepth"])
    for field in ("Data", "Subobject", "Intersection"):     # DXC: "empty string not expected here"
        if field in loc and obj.field(field) == "":
            raise error(f"field '{field}' of '{obj.kind}' must not be empty", loc[field])
    if obj.kind == "SubobjectToExportsAssociation" and not obj.exports and obj.field("Exports") != "":
        raise error("the export list names no export (exports are separated by ';')", loc["Exports"])


def check_exports(subobjects: list[Subobject], shader_kinds: dict[str, str], sink: DiagnosticSink) -> None:
    """Cross-references the library can check: a hit group's shaders must have the kind its field
    names, an association's subobject must exist; a name this library does not define may come from
    another library of the state object, so that is a warning, not an error."""
    declared = {o.name for o in subobjects}
    for o in subobjects:
        loc = dict(zip((f for f, _ in o.row.fields), o.value_locs))
        if o.row.hit_group_type is not None:
            for field, want in HIT_GROUP_EXPORTS.items():
                if field not in loc or o.field(field) == "":
                    continue
                name = o.field(field)
                kind = shader_kinds.get(name)
                if kind is None:
                    sink.warning(f"hit group '{o.name}': {field} shader '{name}' is not defined in this library",
                                 loc[field])
                elif kind != want:
                    raise error(f"hit group '{o.name}': {field} shader '{name}' is a {kind} shader, "
                                f"not {'an' if want[0] in 'ai' else 'a'} {want} shader", loc[field])
        if o.kind == "SubobjectToExportsAssociation":
            target = o.field("Subobject")
            if target not in declared:
                sink.warning(f"association '{o.name}': subobject '{target}' is not declared in this library",
                             loc["Subobject"])
            exports = set(shader_kinds) | {h.name for h in subobjects if h.row.hit_group_type is not None}
            for name in o.exports:
                if name not in exports:
                    sink.warning(f"association '{o.name}': export '{name}' is not defined in this library",
                                 loc["Exports"])


def check_shader_config(subobjects: list[Subobject], entries: list[ir.EntryPoint], sink: DiagnosticSink) -> None:
    """A library's one RaytracingShaderConfig that no association narrows applies to every shader it
    exports: a payload or attribute struct larger than the config's maximum would make D3D12's
    state-object creation fail, so say so here (a warning: the state object may override it)."""
    from ...ir.raytracing import STAGE_RULES, payload_size

    configs = [o for o in subobjects if o.kind == "RaytracingShaderConfig"]
    associated = {o.field("Subobject") for o in subobjects if o.kind == "SubobjectToExportsAssociation"}
    if len(configs) != 1 or configs[0].name in associated:
        return
    config = configs[0]
    limits = {"payload": ("MaxPayloadSizeInBytes", config.field("MaxPayloadSizeInBytes")),
              "callable": None,       # callable data is not bounded by the shader config
              "attributes": ("MaxAttributeSizeInBytes", config.field("MaxAttributeSizeInBytes"))}
    locs = dict(zip((f for f, _ in config.row.fields), config.value_locs))
    for ep in entries:
        rule = STAGE_RULES.get(ep.stage)
        if rule is None:
            continue
        for (role, _), p in zip(rule.params, ep.source_function.params):
            limit = limits.get(role)
            if limit is None:
                continue
            size = payload_size(p.var.type)
            if size > limit[1]:
                sink.warning(f"shader config '{config.name}': {limit[0]} is {limit[1]}, but the {role} of "
                             f"'{ep.name}' ('{p.var.type}') is {size} bytes", locs[limit[0]])
