"""The SPIR-V raise pass of ray-tracing libraries (SPV_KHR_ray_tracing): what a shader receives
and what a TraceRay / CallShader / ReportHit passes become variables of the ray-tracing storage
classes, as DXC makes them (SPIR-V.rst, "Raytracing in Vulkan and SPIRV"):

  a shader's payload parameter        IncomingRayPayloadKHR (any-hit, closest-hit, miss)
  a shader's hit attributes           HitAttributeKHR (any-hit, closest-hit)
  a callable shader's parameter       IncomingCallableDataKHR
  TraceRay's payload argument         RayPayloadKHR, one variable per call site (copied in and out)
  CallShader's argument               CallableDataKHR, one variable per call site
  ReportHit's attributes              HitAttributeKHR, one variable per attribute type

The payload and callable-data variables get Locations in creation order (shader parameters in
shader order, then call sites in function order), one counter for payloads and one for callable
data, so no two variables of one entry point share a Location.  The wrappers lose their
parameters: each is now a parameterless OpEntryPoint function.

A hit, miss or intersection shader reads the built-ins that describe its ray and hit once, at its
start (ray_state): see _RAY_STATE.
"""

from __future__ import annotations

from shaderbuild import ir
from shaderbuild.diagnostics import error
from shaderbuild.ir.raytracing import STAGE_RULES
from shaderbuild.options import CompileOptions

_INCOMING = {"payload": ir.Storage.INCOMING_RAY_PAYLOAD, "attributes": ir.Storage.HIT_ATTRIBUTE,
             "callable": ir.Storage.INCOMING_CALLABLE_DATA}
_CALL_SITE = {"TraceRay": ir.Storage.RAY_PAYLOAD, "CallShader": ir.Storage.CALLABLE_DATA,
              "ReportHit": ir.Storage.HIT_ATTRIBUTE}
# DXR system values that describe the ray and the hit a shader runs for (SPIR-V built-ins of the same
# meaning): constant over one invocation of a hit, miss or intersection shader, except RayTCurrent in an
# intersection shader (Vulkan, RayTmaxKHR: "can change ... after calling OpReportIntersectionKHR").
# The launch's DispatchRaysIndex / DispatchRaysDimensions are not ray state.
_RAY_STATE = ("WorldRayOrigin", "WorldRayDirection", "ObjectRayOrigin", "ObjectRayDirection", "RayTMin",
              "RayTCurrent", "RayFlags", "InstanceIndex", "InstanceID", "GeometryIndex", "PrimitiveIndex",
              "HitKind", "ObjectToWorld3x4", "ObjectToWorld4x3", "WorldToObject3x4", "WorldToObject4x3")
_STATE_NAMES = frozenset(_RAY_STATE)
_CHANGING = {"intersection": frozenset({"RayTCurrent"})}
_STATE_STAGES = ("anyhit", "closesthit", "intersection", "miss")
_PAYLOADS = (ir.Storage.RAY_PAYLOAD, ir.Storage.INCOMING_RAY_PAYLOAD)
_CALLABLES = (ir.Storage.CALLABLE_DATA, ir.Storage.INCOMING_CALLABLE_DATA)


class _Locations:
    def __init__(self) -> None:
        self.next = {"payload": 0, "callable": 0}

    def assign(self, var: ir.Variable) -> None:
        kind = "payload" if var.storage in _PAYLOADS else "callable" if var.storage in _CALLABLES else None
        if kind is not None:
            var.io = ir.IOInfo(kind, location=self.next[kind])
            self.next[kind] += 1


def ray_interface(module: ir.Module, options: CompileOptions) -> None:
    """Bind every library shader's parameters and every ray-tracing call's argument to a variable."""
    if not module.entries:
        return
    locations = _Locations()
    for ep in module.entries:
        wrapper = ir.wrapper_of(ep)
        rule = STAGE_RULES[ep.stage]
        renames: dict[int, ir.Variable] = {}
        for (role, _), p in zip(rule.params, wrapper.params):
            g = ir.Variable(f"{ep.name}.{p.var.name}", p.var.type, _INCOMING[role], p.var.loc)
            locations.assign(g)
            module.globals.append(g)
            renames[id(p.var)] = g
        wrapper.params = []
        _rename(wrapper.body, renames)
    attributes: dict[ir.Type, ir.Variable] = {}
    for f in module.functions:
        f.body = _call_sites(f.body, module, locations, attributes)
    _check_one_attribute_type(module, attributes)
    ray_state(module)


def ray_state(module: ir.Module) -> None:
    """Each hit, miss and intersection shader loads the ray-state built-ins it reads (_RAY_STATE) once, at
    its start, and every read is a load of what it stored: a local of the shader's own function (inlined
    code, so -O1 on: an SSA value), a Private variable for a function it calls (-O0).  The values cannot
    change during the invocation, so this is the same program; it is also one a driver whose nested
    TraceRay (or ReportHit running an any-hit shader) overwrites the caller's hit state still runs right:
    lavapipe (Mesa 25.0) keeps one instance / primitive / geometry / hit kind for the whole pipeline and
    gives a closest-hit shader the nested hit's InstanceID once a TraceRay returns.  A function reached
    from several shaders reads a built-in through the variable only if every one of them stores it."""
    calls: dict[int, list[ir.Function]] = {}     # function id -> the functions it calls
    reads: dict[int, set[str]] = {}              # function id -> the ray-state built-ins it reads
    for f in module.functions:
        exprs = ir.body_exprs(f.body)
        calls[id(f)] = [x.func for x in exprs if isinstance(x, ir.Call)]
        reads[id(f)] = {x.name for x in exprs if isinstance(x, ir.Intrinsic) and not x.args and x.name in _STATE_NAMES}
    if not any(reads.values()):
        return
    snapshots: dict[int, set[str]] = {}          # function id -> the built-ins it reads from a snapshot
    reached: dict[int, list[ir.Function]] = {}   # entry wrapper id -> the functions it reaches
    for ep in module.entries:
        names = _STATE_NAMES - _CHANGING.get(ep.stage, frozenset()) if ep.stage in _STATE_STAGES else frozenset()
        wrapper = ir.wrapper_of(ep)
        reached[id(wrapper)] = _reached(wrapper, calls)
        for f in reached[id(wrapper)]:
            wanted = reads.get(id(f), set()) & names
            snapshots[id(f)] = snapshots[id(f)] & wanted if id(f) in snapshots else wanted
    shared: dict[str, ir.Variable] = {}          # built-in -> the Private variable the called functions read
    own: dict[int, dict[str, ir.Variable]] = {}  # entry wrapper id -> built-in -> its local
    read: dict[int, set[str]] = {}               # called function id -> the built-ins it reads from `shared`
    for f in module.functions:
        if not snapshots.get(id(f)):
            continue
        if id(f) in reached:
            mine = own[id(f)] = {}
            _read_snapshots(f, snapshots[id(f)], mine, ir.Storage.FUNCTION)
            f.locals += [mine[n] for n in _RAY_STATE if n in mine]
        else:
            read[id(f)] = _read_snapshots(f, snapshots[id(f)], shared, ir.Storage.PRIVATE)
    module.globals += [shared[n] for n in _RAY_STATE if n in shared]
    for ep in module.entries:
        wrapper = ir.wrapper_of(ep)
        mine = own.get(id(wrapper), {})
        called = set().union(*(read.get(id(f), set()) for f in reached[id(wrapper)]))
        stores: list[ir.Stmt] = []
        for n in (n for n in _RAY_STATE if n in mine or n in called):
            t = (mine[n] if n in mine else shared[n]).type
            value: ir.Expr = ir.Intrinsic(n, [], t)
            if n in mine:
                stores.append(ir.Store(ir.VarRef(mine[n]), value))
                value = ir.Load(ir.VarRef(mine[n]), t)
            if n in called:
                stores.append(ir.Store(ir.VarRef(shared[n]), value))
        wrapper.body[:0] = stores


def _rename(body: list[ir.Stmt], renames: dict[int, ir.Variable]) -> None:
    def change(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.VarRef) and id(e.var) in renames:
            return ir.VarRef(renames[id(e.var)], e.loc)
        return e

    for s in ir.walk_stmts(body):
        for name in type(s)._fields:
            v = getattr(s, name)
            if isinstance(v, ir.Expr):
                setattr(s, name, ir.rewrite_expr(v, change))


def _call_sites(body: list[ir.Stmt], module: ir.Module, locations: _Locations,
                attributes: dict[ir.Type, ir.Variable]) -> list[ir.Stmt]:
    """`body` with each TraceRay / CallShader / ReportHit passing a variable of its storage class."""

    def change(s: ir.Stmt) -> list[ir.Stmt] | None:
        call = _ray_call(s)
        if call is None:
            return None
        temp = call.args[-1]
        assert isinstance(temp, ir.VarRef)      # sema passes a caller temporary (ir.intrinsics.RAY_CALLS)
        t = temp.var.type
        if call.name == "ReportHit":
            g = attributes.get(t)
            if g is None:
                g = attributes[t] = ir.Variable(f"hit.attributes.{t}", t, ir.Storage.HIT_ATTRIBUTE, temp.var.loc)
                module.globals.append(g)
        else:
            g = ir.Variable(f"{call.name}.{temp.var.name}", t, _CALL_SITE[call.name], temp.var.loc)
            locations.assign(g)
            module.globals.append(g)
        call.args[-1] = ir.VarRef(g)
        out = [ir.Store(ir.VarRef(g), ir.Load(ir.VarRef(temp.var), t)), s]
        if call.name != "ReportHit":        # payload and callable data are inout
            out.append(ir.Store(ir.VarRef(temp.var), ir.Load(ir.VarRef(g), t)))
        return out

    return ir.rewrite_stmts(body, change)


def _read_snapshots(f: ir.Function, names: set[str], variables: dict[str, ir.Variable],
                    storage: ir.Storage) -> set[str]:
    """`f` with each read of a built-in in `names` a load of its variable in `variables` (made on first use,
    of `storage`); which of them it reads."""
    read: set[str] = set()

    def change(e: ir.Expr) -> ir.Expr:
        if isinstance(e, ir.Intrinsic) and not e.args and e.name in names:
            g = variables.get(e.name)
            if g is None:
                g = variables[e.name] = ir.Variable(f"ray.{e.name}", e.type, storage)
            read.add(e.name)
            return ir.Load(ir.VarRef(g), e.type)
        return e

    ir.rewrite_body(f.body, change)
    return read


def _ray_call(s: ir.Stmt) -> ir.Intrinsic | None:
    e = s.expr if isinstance(s, ir.Eval) else s.value if isinstance(s, ir.Store) else None
    if isinstance(e, ir.Intrinsic) and e.name in _CALL_SITE:
        return e
    return None


def _check_one_attribute_type(module: ir.Module, attributes: dict[ir.Type, ir.Variable]) -> None:
    """Vulkan allows one HitAttributeKHR variable per entry point: an intersection shader reports
    one attribute type (the one its any-hit and closest-hit shaders receive)."""
    if len(attributes) < 2:
        return
    for ep in module.entries:
        used = ir.referenced_variables(_reached(ir.wrapper_of(ep)))
        mine = [g for g in attributes.values() if id(g) in used]
        if len(mine) > 1:
            raise error(f"intersection shader '{ep.name}' reports hits with two attribute types ('{mine[0].type}' "
                        f"and '{mine[1].type}'); Vulkan gives an entry point one hit-attribute variable",
                        ep.source_function.loc)


def _reached(f: ir.Function, calls: dict[int, list[ir.Function]] | None = None) -> list[ir.Function]:
    """`f` and the functions it calls, directly or not (`calls`: each function's callees, when known)."""
    seen: dict[int, ir.Function] = {}
    stack = [f]
    while stack:
        g = stack.pop()
        if id(g) in seen:
            continue
        seen[id(g)] = g
        if calls is not None and id(g) in calls:
            stack += calls[id(g)]
        else:
            stack += [x.func for x in ir.body_exprs(g.body) if isinstance(x, ir.Call)]
    return list(seen.values())
