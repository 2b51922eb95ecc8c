"""Readable text form of an IR module, for debugging and golden tests."""

from __future__ import annotations

from . import nodes as n


def expr_str(e: n.Expr) -> str:
    match e:
        case n.Const():
            return f"{e.value!r}:{e.type}"
        case n.SpecConst():
            return f"spec{e.spec_id}<{e.name}={e.value!r}>:{e.type}"
        case n.VarRef():
            return f"%{e.var.name}"
        case n.FieldRef():
            return f"{expr_str(e.base)}.f{e.index}"
        case n.IndexRef():
            return f"{expr_str(e.base)}[{expr_str(e.index)}]"
        case n.SwizzleRef() | n.Swizzle():
            base = e.base if isinstance(e, n.SwizzleRef) else e.value
            return f"{expr_str(base)}.{''.join('xyzw'[c] for c in e.comps)}"
        case n.BufferElem():
            return f"{expr_str(e.resource)}<{expr_str(e.index)}>"
        case n.Load():
            return f"load({expr_str(e.place)})"
        case n.Unary():
            return f"{e.op}({expr_str(e.operand)})"
        case n.Binary():
            return f"{e.op}({expr_str(e.lhs)}, {expr_str(e.rhs)})"
        case n.Select():
            return f"select({expr_str(e.cond)}, {expr_str(e.true)}, {expr_str(e.false)})"
        case n.Convert():
            return f"convert<{e.type}>({expr_str(e.value)})"
        case n.Bitcast():
            return f"bitcast<{e.type}>({expr_str(e.value)})"
        case n.Construct():
            return f"{e.type}({', '.join(expr_str(p) for p in e.parts)})"
        case n.Extract():
            return f"extract({expr_str(e.value)}, {e.index})"
        case n.Call():
            return f"call {e.func.name}({', '.join(expr_str(a) for a in e.args)})"
        case n.Intrinsic():
            return f"{e.name}({', '.join(expr_str(a) for a in e.args)}):{e.type}"
    return f"<{type(e).__name__}>"


def _stmts(stmts: list[n.Stmt], indent: str, out: list[str]) -> None:
    for s in stmts:
        match s:
            case n.Store():
                out.append(f"{indent}store {expr_str(s.place)} = {expr_str(s.value)}")
            case n.Eval():
                out.append(f"{indent}eval {expr_str(s.expr)}")
            case n.If():
                out.append(f"{indent}if {expr_str(s.cond)}{' [' + s.hint + ']' if s.hint else ''} {{")
                _stmts(s.then, indent + "  ", out)
                if s.else_:
                    out.append(f"{indent}}} else {{")
                    _stmts(s.else_, indent + "  ", out)
                out.append(f"{indent}}}")
            case n.Loop():
                out.append(f"{indent}loop{' [' + s.hint + ']' if s.hint else ''} {{")
                _stmts(s.body, indent + "  ", out)
                if s.continuing or s.break_if is not None:
                    out.append(f"{indent}}} continuing {{")
                    _stmts(s.continuing, indent + "  ", out)
                    if s.break_if is not None:
                        out.append(f"{indent}  break_if {expr_str(s.break_if)}")
                out.append(f"{indent}}}")
            case n.Switch():
                out.append(f"{indent}switch {expr_str(s.selector)} {{")
                for c in s.cases:
                    labels = [str(v) for v in c.values] + (["default"] if c.is_default else [])
                    out.append(f"{indent}case {', '.join(labels)}:")
                    _stmts(c.body, indent + "  ", out)
                out.append(f"{indent}}}")
            case n.Return():
                out.append(f"{indent}return" + (f" {expr_str(s.value)}" if s.value is not None else ""))
            case _:
                out.append(f"{indent}{type(s).__name__.lower()}")


def module_str(m: n.Module) -> str:
    out: list[str] = [f"module {m.stage} sm{m.shader_model[0]}.{m.shader_model[1]}"]
    for g in m.globals:
        extra = ""
        if g.binding is not None:
            b = g.binding
            extra = f" register({b.register_class}{b.register}, space{b.space}) count={b.count}"
            if b.vk is not None:
                extra += f" vk(set={b.vk.set}, binding={b.vk.binding})"
        out.append(f"global {g.storage.value} {g.name}: {g.type}{extra}")
    if m.entry is not None:
        for v in m.entry.inputs + m.entry.outputs:
            io = v.io
            if io is None:      # broken IR (the validator reports it); print what there is
                out.append(f"{v.storage.value} {v.name}: {v.type} (no IOInfo)")
                continue
            where = (f"BuiltIn {io.builtin}" if io.builtin else f"Location {io.location}" if io.location is not None
                     else "system value")
            out.append(f"{v.storage.value} {v.name}: {v.type} ({io.semantic}{io.index or ''}, {where})")
    for f in m.functions:
        params = ", ".join(f"{p.direction} {p.var.name}: {p.var.type}" for p in f.params)
        out.append(f"fn {f.name}({params}) -> {f.return_type} {{")
        for v in f.locals:
            out.append(f"  local {v.name}: {v.type}")
        _stmts(f.body, "  ", out)
        out.append("}")
    return "\n".join(out) + "\n"
