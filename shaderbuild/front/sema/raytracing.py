"""DXR ray-tracing libraries (lib_6_x): the exported shaders (`[shader("closesthit")]`, ...) and
what each kind takes (ir/raytracing.py), the stage rules of the intrinsics every shader reaches
(checked per shader: one library holds several kinds), and the calls that take a payload,
attribute or callable-data struct (TraceRay, ReportHit, CallShader)."""

from __future__ import annotations

from ... import ir
from ...diagnostics import Diagnostic, SourceLoc, error
from ...ir.intrinsics import INTRINSICS
from ...ir.raytracing import MAX_ATTRIBUTE_BYTES, RAY_DESC, STAGE_RULES, payload_size
from .. import ast
from .base import SemaBase
from .scope import FuncInfo
from .typeresolve import resource_inside

ACCEL = "RaytracingAccelerationStructure"
# the stages a [raypayload] field's read(...) / write(...) qualifier may name
PAYLOAD_ACCESS_STAGES = frozenset({"caller", "anyhit", "closesthit", "miss"})
_WHAT = {"payload": "a payload parameter ('inout Payload payload')",
         "attributes": "an attributes parameter ('BuiltInTriangleIntersectionAttributes attr' or a struct)",
         "callable": "a callable-data parameter ('inout Params params')"}


def shader_kind(decl: ast.FuncDecl) -> tuple[str, SourceLoc] | None:
    """The kind a `[shader("...")]` attribute gives the function, with the attribute's position."""
    for a in decl.attributes:
        if a.name == "shader":
            arg = a.args[0]
            if not isinstance(arg, ast.StringLit):
                raise error("the 'shader' attribute takes a string such as \"closesthit\"", arg.loc)
            return arg.value, arg.loc
    return None


class RayTracingLowering(SemaBase):
    """Mixin of Analyzer."""

    # ------------------------------------------------------------ the library's shaders
    def library_shaders(self, main_file: str) -> list[tuple[FuncInfo, str]]:
        """Every defined function marked [shader("kind")], in source order; `-E name` keeps one."""
        found: list[tuple[FuncInfo, str]] = []
        names: dict[str, SourceLoc] = {}
        for info in self.funcs:
            marked = shader_kind(info.decl)
            if marked is None:
                continue
            kind, loc = marked
            d = info.decl
            if info.method_of is not None:
                raise error(f"[shader(\"{kind}\")] marks a member function: a shader is a global function", loc)
            if not info.defined:
                if any(f.decl.name == d.name and f.defined for f in self.funcs):
                    continue        # a declaration of a shader defined elsewhere in the file
                raise error(f"shader '{d.name}' is declared but never defined", d.loc)
            if d.name in names:
                raise error(f"a library exports one shader named '{d.name}' (another is at line "
                            f"{names[d.name].line})", d.loc)
            names[d.name] = d.loc
            if kind not in STAGE_RULES:
                kinds = ", ".join(f'"{k}"' for k in STAGE_RULES)
                raise error(f"shader kind \"{kind}\" is not supported in a library (one of {kinds})", loc)
            found.append((info, kind))
        name = self.options.entry
        chosen = [(f, k) for f, k in found if f.decl.name == name]
        if chosen:
            return chosen
        if name and name != "main":
            raise error(f"missing entry point definition '{name}': no function of that name is marked "
                        f"[shader(\"...\")]", SourceLoc(main_file, 1, 1))
        exported = [f for f in self.funcs if f.defined and "export" in f.decl.qualifiers and shader_kind(f.decl) is None]
        if not found and not self.subobjects and exported:
            # DXC compiles it (DXIL: a library of functions for its linker; SPIR-V: functions with Export
            # linkage and no entry point); our backends only emit shaders, with every call inlined into them
            d = exported[0].decl
            raise error(f"a library exporting only functions ('{d.name}') is not supported: no function here "
                        f"has a [shader(\"...\")] attribute, and exported functions are only compiled into the "
                        f"shaders that call them", d.loc)
        for f in exported if found else []:      # DXC's library would list them for its linker; ours cannot
            self.sink.warning(f"exported function '{f.decl.name}' is not exported from the library: only its "
                              f"shaders are, with '{f.decl.name}' compiled into those that call it", f.decl.loc)
        if not found and not self.subobjects:    # (a library of subobjects only exports no shader)
            raise error("a library exports its shaders with [shader(\"raygeneration\")], [shader(\"closesthit\")], "
                        "...: no function here has one", SourceLoc(main_file, 1, 1))
        return found

    def check_shader_stages(self, info: FuncInfo, kind: str, reachable: list[FuncInfo]) -> list[Diagnostic]:
        """The stage-limited intrinsics the shader reaches, against its kind."""
        out = []
        for f in reachable:
            for name, stages, loc in f.stage_uses:
                if kind not in stages:
                    allowed = ", ".join(sorted(stages))
                    via = "" if f is info else f" (reached from {STAGE_RULES[kind].title} '{info.decl.name}')"
                    out.append(Diagnostic("error", f"intrinsic '{name}' is not allowed in {kind} shaders "
                                                   f"(allowed in: {allowed}){via}", loc))
        return out

    def ray_entry_point(self, info: FuncInfo, kind: str) -> ir.EntryPoint:
        """A library shader's entry point, its parameters checked against its kind."""
        d = info.decl
        rule = STAGE_RULES[kind]
        if not isinstance(info.return_type, ir.VoidType):
            raise error(f"{rule.title} '{d.name}' must return void", d.loc)
        if d.semantic is not None:
            raise error(f"{rule.title} '{d.name}' takes no semantic", d.loc)
        for i, (role, direction) in enumerate(rule.params):
            if i >= len(d.params):
                raise error(f"{rule.title} '{d.name}' needs {_WHAT[role]}", d.loc)
            p, t, given = d.params[i], info.param_types[i], info.param_dirs[i]
            noun = "callable data" if role == "callable" else role
            if not isinstance(t, ir.Struct):
                raise error(f"the {noun} of {rule.title} '{d.name}' must be a user-defined struct, not '{t}'", p.loc)
            inner = resource_inside(t)
            if inner is not None:
                raise error(f"the {noun} '{t}' of {rule.title} '{d.name}' contains the resource '{inner}': it is "
                            f"data passed between shaders", p.loc)
            if given != direction:
                raise error(f"the {noun} parameter '{p.name}' of {rule.title} '{d.name}' must be "
                            f"{'declared inout' if direction == 'inout' else 'an in parameter'}, not {given}", p.loc)
            # a semantic here (`inout P p : SV_RayPayload`, `A a : SV_IntersectionAttributes`, from an early DXR
            # draft) means nothing: the position says what a parameter is, and DXC ignores it, so do we
            if role == "payload":
                self.check_payload_type(t, p.loc)
            if role == "attributes" and payload_size(t) > MAX_ATTRIBUTE_BYTES:
                raise error(f"hit attributes '{t}' are {payload_size(t)} bytes; D3D12 allows at most "
                            f"{MAX_ATTRIBUTE_BYTES}", p.loc)
        if len(d.params) > len(rule.params):
            extra = d.params[len(rule.params)]
            nouns = ", ".join("callable data" if r == "callable" else r for r, _ in rule.params)
            n = len(rule.params)
            takes = f"{n} parameter{'s' if n != 1 else ''} ({nouns})" if n else "no parameters"
            raise error(f"{rule.title} '{d.name}' takes {takes}: '{extra.name}' is one too many", extra.loc)
        return ir.EntryPoint(d.name, kind, info.ir_func)

    def payload_qualifiers_on(self) -> bool:
        """Payload access qualifiers are in effect from SM 6.7, and on SM 6.6 with -enable-payload-qualifiers."""
        sm = (self.profile.major, self.profile.minor)
        return sm >= (6, 7) or (sm >= (6, 6) and self.options.enable_payload_qualifiers)

    def check_payload_access(self, d: ast.StructDecl) -> None:
        """A [raypayload] struct's `: read(...)` / `: write(...)` qualifiers name the stages a payload
        visits; where qualifiers are in effect every field has one, elsewhere they are ignored (a warning)."""
        marked = any(a.name == "raypayload" for a in d.attributes)
        qualified = [f for f in d.fields if f.payload_access]
        for f in qualified:
            for qualifier, stages in (f.payload_access or {}).items():
                for s in stages:
                    if s not in PAYLOAD_ACCESS_STAGES:
                        raise error(f"'{s}' in {qualifier}(...) of payload field '{f.name}' is not a payload "
                                    f"stage (caller, anyhit, closesthit or miss)", f.loc)
        if qualified and not marked:
            raise error(f"payload access qualifiers on '{qualified[0].name}' need a [raypayload] struct: "
                        f"declare 'struct [raypayload] {d.name}'", qualified[0].loc)
        if not marked:
            return
        self.payload_structs.add(d.name)
        if not self.payload_qualifiers_on():
            if qualified:
                self.warn("payload access qualifiers are ignored: they take effect from lib_6_7, or on lib_6_6 "
                          "with -enable-payload-qualifiers", qualified[0].loc)
            return
        for f in d.fields:
            if not f.payload_access:
                raise error(f"field '{f.name}' of payload '{d.name}' has no access qualifier: add "
                            f"': read(...) : write(...)' naming the stages that use it", f.loc)

    def check_payload_type(self, t: ir.Type, loc: SourceLoc) -> None:
        """With qualifiers in effect a payload is a [raypayload] struct (D3D12 Raytracing spec, payload access
        qualifiers)."""
        if self.payload_qualifiers_on() and isinstance(t, ir.Struct) and t.name not in self.payload_structs:
            raise error(f"payload type '{t}' must be declared 'struct [raypayload] {t}' with access qualifiers "
                        f"(payload access qualifiers are in effect for {self.options.profile}"
                        f"{' with -enable-payload-qualifiers' if self.profile.minor == 6 else ''})", loc)

    # ------------------------------------------------------------ TraceRay, ReportHit, CallShader
    def _ray_struct(self, name: str, a: ast.Expr, what: str, inout: bool) -> tuple[ir.Expr | None, ir.Variable]:
        """A caller temporary holding a payload / attribute / callable-data argument (its place,
        written back after the call, when `inout`)."""
        place = None
        if inout:
            if not self.is_place_expr(a):
                raise error(f"the {what} argument of '{name}' must be a variable (it is inout)", a.loc)
            place = self.place(a, for_write=True)
            value = self.load(place)
        else:
            value = self.rvalue(a)
        if not isinstance(value.type, ir.Struct):
            raise error(f"the {what} argument of '{name}' must be a user-defined struct, not '{value.type}'", a.loc)
        inner = resource_inside(value.type)
        if inner is not None:
            raise error(f"the {what} argument of '{name}' contains the resource '{inner}': it is data passed between "
                        f"shaders", a.loc)
        tmp = self.temp(value.type, what.replace(" ", "_"))
        self.emit(ir.Store(ir.VarRef(tmp), value, a.loc))
        return place, tmp

    def _ray_call(self, name: str, args: list[ast.Expr], loc: SourceLoc) -> None:
        sig = INTRINSICS[name][0]
        if len(args) != len(sig.params):
            raise error(f"no matching intrinsic for call to '{name}': expected {len(sig.params)} arguments, "
                        f"have {len(args)}", loc)
        self.check_stage(name, sig.stages, sig.min_sm, loc)

    def special_TraceRay(self, name: str, args: list[ast.Expr], loc: SourceLoc) -> ir.Expr:  # noqa: N802
        self._ray_call(name, args, loc)
        accel = self.place(args[0], for_write=False) if self.is_place_expr(args[0]) else self.rvalue(args[0])
        if not (isinstance(accel.type, ir.Resource) and accel.type.kind == ACCEL):
            raise error(f"the first argument of 'TraceRay' must be a {ACCEL}, not '{accel.type}'", args[0].loc)
        values = [self.convert(self.rvalue(a), ir.UINT, a.loc) for a in args[1:6]]
        ray = self.rvalue(args[6])
        if ray.type != RAY_DESC:
            raise error(f"the ray argument of 'TraceRay' must be a RayDesc, not '{ray.type}'", args[6].loc)
        place, tmp = self._ray_struct(name, args[7], "payload", inout=True)
        self.check_payload_type(tmp.type, args[7].loc)
        self.emit(ir.Eval(ir.Intrinsic(name, [accel, *values, ray, ir.VarRef(tmp)], ir.VOID), loc))
        assert place is not None
        self.emit(ir.Store(place, self.load(ir.VarRef(tmp)), loc))
        return self.void_value(loc)

    def special_CallShader(self, name: str, args: list[ast.Expr], loc: SourceLoc) -> ir.Expr:  # noqa: N802
        self._ray_call(name, args, loc)
        index = self.convert(self.rvalue(args[0]), ir.UINT, args[0].loc)
        place, tmp = self._ray_struct(name, args[1], "callable data", inout=True)
        self.emit(ir.Eval(ir.Intrinsic(name, [index, ir.VarRef(tmp)], ir.VOID), loc))
        assert place is not None
        self.emit(ir.Store(place, self.load(ir.VarRef(tmp)), loc))
        return self.void_value(loc)

    def special_ReportHit(self, name: str, args: list[ast.Expr], loc: SourceLoc) -> ir.Expr:  # noqa: N802
        self._ray_call(name, args, loc)
        t_hit = self.convert(self.rvalue(args[0]), ir.FLOAT, args[0].loc)
        kind = self.convert(self.rvalue(args[1]), ir.UINT, args[1].loc)
        _, tmp = self._ray_struct(name, args[2], "attributes", inout=False)
        if payload_size(tmp.type) > MAX_ATTRIBUTE_BYTES:
            raise error(f"hit attributes '{tmp.type}' are {payload_size(tmp.type)} bytes; D3D12 allows at most "
                        f"{MAX_ATTRIBUTE_BYTES}", args[2].loc)
        result = self.temp(ir.BOOL, "accepted")
        self.emit(ir.Store(ir.VarRef(result), ir.Intrinsic(name, [t_hit, kind, ir.VarRef(tmp)], ir.BOOL), loc))
        return self.load(ir.VarRef(result))
