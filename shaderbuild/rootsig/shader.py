"""The glue between a compiled module and its root signature: find and parse it, and check
that it binds every resource the module uses."""

from __future__ import annotations

from .. import ir
from ..diagnostics import Diagnostic, error
from ..options import CompileOptions
from . import source
from .model import ROOT_FLAGS, RootSignature
from .parser import parse
from .validate import ShaderResource, check_heaps, check_resources, check_signature


def root_signature_for(tu, macros: dict, options: CompileOptions, *, standalone: bool = False) -> RootSignature | None:
    """The entry point's root signature (-rootsig-define wins over the attribute), parsed and
    checked on its own; None when it has none.  `standalone` (-T rootsig_1_x): not a shader's
    global root signature, so LOCAL_ROOT_SIGNATURE is allowed."""
    if options.rootsig_define:
        text = source.from_define(options.rootsig_define, macros)
    else:
        attr = source.find_entry_attribute(tu, options.entry)
        if attr is None:
            return None
        text = source.attribute_text(attr, macros)
    rs = parse(text, options.rootsig_version)
    if rs.flags & ROOT_FLAGS["LOCAL_ROOT_SIGNATURE"] and not standalone:
        raise error("root signature: LOCAL_ROOT_SIGNATURE flag used in a shader's (global) root signature",
                    rs.flags_loc)
    check_signature(rs)
    return rs


def used_resources(module: ir.Module) -> list[ir.Variable]:
    """The resources the code reads or writes (DXC validates only those against the root signature)."""
    used = ir.referenced_variables(module.functions)
    return [v for v in module.resources if id(v) in used]


def shader_resources(module: ir.Module) -> list[ShaderResource]:
    from ..ir.layout import layout_of
    from ..reflect.manifest import resource_kind

    out = []
    for v in used_resources(module):
        b = v.binding
        assert b is not None and b.register is not None      # dx_registers gave every resource a register
        size = layout_of(v.type, "dx_cbuffer").size if isinstance(v.type, ir.Struct) else 0
        out.append(ShaderResource(v.name, b.register_class, b.register, b.space, b.count,
                                  b.kind or resource_kind(v), size, v.loc))
    return out


def check_module(module: ir.Module) -> list[Diagnostic]:
    """Every resource `module` uses must be bound by its root signature (DXC's validator rule);
    raises CompileError, returns warnings."""
    rs = module.root_signature
    if isinstance(rs, RootSignature) and module.entry is not None:
        check_heaps(rs, module.entry.stage, used_heaps(module))
        return check_resources(rs, module.entry.stage, shader_resources(module))
    return []


def used_heaps(module: ir.Module) -> set[str]:
    """The SM 6.6 descriptor heaps ('resource', 'sampler') the code indexes."""
    used = ir.referenced_variables(module.functions)
    return {ir.view_binding(v)[1] for v in module.heap_views if id(v) in used}


def parse_subobject_signatures(module: ir.Module, version: str) -> None:
    """Each GlobalRootSignature / LocalRootSignature subobject's string, parsed and checked (a local one
    gets LOCAL_ROOT_SIGNATURE, as DXC compiles it; a global one must not carry that flag)."""
    from .parser import LocatedText

    for obj in module.subobjects:
        if obj.kind not in ("GlobalRootSignature", "LocalRootSignature"):
            continue
        text = LocatedText("")
        text.add(str(obj.values[0]), obj.value_locs[0])
        rs = parse(text, version)
        if obj.kind == "LocalRootSignature":
            rs.flags |= ROOT_FLAGS["LOCAL_ROOT_SIGNATURE"]
        elif rs.flags & ROOT_FLAGS["LOCAL_ROOT_SIGNATURE"]:
            raise error(f"global root signature '{obj.name}' has the LOCAL_ROOT_SIGNATURE flag", rs.flags_loc)
        check_signature(rs)
        obj.root_signature = rs
