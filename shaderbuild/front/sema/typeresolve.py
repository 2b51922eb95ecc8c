"""Turns written type names (ast.TypeRef) into IR types."""

from __future__ import annotations

from ... import ir
from ...diagnostics import ErrorReported, error
from ...ir.raytracing import RAY_DESC, RAY_FLAGS, RAYQUERY_FLAGS
from ...ir.resource_kinds import KINDS
from ...ir.streams import STREAM_KINDS
from ...ir.subobjects import SUBOBJECT_KINDS
from .. import ast
from ..parser import SAMPLER_ALIASES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# spelling -> (kind, width, width with -enable-16bit-types)
SCALAR_SPELLINGS: dict[str, tuple[str, int, int]] = {
    "bool": ("bool", 32, 32),
    "int": ("int", 32, 32), "int32_t": ("int", 32, 32), "dword": ("uint", 32, 32),
    "uint": ("uint", 32, 32), "uint32_t": ("uint", 32, 32),
    "float": ("float", 32, 32), "float32_t": ("float", 32, 32),
    "double": ("float", 64, 64), "float64_t": ("float", 64, 64),
    "half": ("float", 32, 16), "float16_t": ("float", 16, 16),
    "min16float": ("float", 32, 16), "min10float": ("float", 32, 16),
    "min16int": ("int", 32, 16), "min12int": ("int", 32, 16), "min16uint": ("uint", 32, 16),
    "int16_t": ("int", 16, 16), "uint16_t": ("uint", 16, 16),
    "int64_t": ("int", 64, 64), "uint64_t": ("uint", 64, 64),
}
REQUIRES_16BIT = frozenset({"float16_t", "int16_t", "uint16_t"})
# DXC's distinct types that can share another's IR type (half is float without -enable-16bit-types, min16float
# is half with it): the written name keeps their overloads apart (sema/calls.resolve_overload)
PRECISION_SPELLINGS = {"half": "half", "float16_t": "half", "min16float": "min16float", "min10float": "min10float",
                       "min16int": "min16int", "min12int": "min12int", "min16uint": "min16uint"}


def precision_spelling(ref: ast.TypeRef) -> str | None:
    """The PRECISION_SPELLINGS name of a written numeric type's components, '' for another built-in scalar
    (its IR type tells it apart), None for a name that does not say (a typedef, a struct)."""
    name = ref.name
    if name in ("vector", "matrix") and ref.args and isinstance(ref.args[0], ast.TypeRef):
        name = ref.args[0].name
    shaped = _shape_suffix(name) if name not in SCALAR_SPELLINGS else None
    if shaped is not None:
        name = shaped[0]
    return PRECISION_SPELLINGS.get(name, "") if name in SCALAR_SPELLINGS else None


def _bits(t: ir.Type) -> int:
    """The bits of a scalar or vector value."""
    if isinstance(t, ir.Vector):
        return t.size * t.elem.width
    return t.width if isinstance(t, ir.Scalar) else 0


def _shape_suffix(name: str) -> tuple[str, int, int | None] | None:
    """`half2x3` -> ('half', 2, 3), `float4` -> ('float', 4, None): the component name and shape of
    a shaped type name (string tests: a regular expression compiled at import costs a cold start)."""
    if len(name) > 3 and name[-2] == "x" and name[-3] in "1234" and name[-1] in "1234":
        return name[:-3], int(name[-3]), int(name[-1])
    if len(name) > 1 and name[-1] in "1234":
        return name[:-1], int(name[-1]), None
    return None

# the resource types a declaration can name (cbuffer/tbuffer blocks are declarations of their own)
RESOURCE_KINDS = frozenset(KINDS) - {"cbuffer", "tbuffer", "$Globals"}
UNTYPED_RESOURCES = frozenset(k for k in RESOURCE_KINDS if KINDS[k].element == "none")
PATCH_TYPES = frozenset({"InputPatch", "OutputPatch"})
# resources of formatted texels: their element is a scalar or a vector
TEXEL_RESOURCES = frozenset(k for k in RESOURCE_KINDS if KINDS[k].element == "texel")
# element float4 when written without <T> (TextureBuffer too, as before the table)
DEFAULT_FLOAT4 = TEXEL_RESOURCES | {"TextureBuffer"}


class TypeResolver:
    """Resolves type names against built-ins and the user's structs/typedefs."""

    def __init__(self, enable_16bit: bool, const_eval) -> None:
        self.enable_16bit = enable_16bit
        self.named: dict[str, ir.Type] = {}
        self.poisoned: set[str] = set()     # types whose declaration had an error: uses stay silent
        self.const_eval = const_eval  # callable(ast.Expr) -> int
        self.template_hook: Callable[[ast.TypeRef], ir.Type | None] | None = None     # (struct templates)
        # a matrix template argument's orientation (set by the analyzer: pragma, typedef, -Zpr)
        self.element_major: Callable[[ast.TypeRef], bool] | None = None

    def scalar(self, name: str, ref: ast.TypeRef) -> ir.Scalar | None:
        spec = SCALAR_SPELLINGS.get(name)
        if spec is None:
            return None
        if name in REQUIRES_16BIT and not self.enable_16bit:
            raise error(f"'{name}' requires -enable-16bit-types", ref.loc)
        kind, width, width16 = spec
        return ir.Scalar(kind, width16 if self.enable_16bit else width)

    def resolve(self, ref: ast.TypeRef) -> ir.Type:
        name = ref.name
        if name == "void":
            return ir.VOID
        if name in self.named:
            return self.named[name]
        if name in self.poisoned:
            raise ErrorReported()
        if self.template_hook is not None:
            t = self.template_hook(ref)
            if t is not None:
                return t
        s = self.scalar(name, ref)
        if s is not None:
            return s
        elem: ir.Type | None    # a component scalar, or a resource's element type
        shaped = _shape_suffix(name)
        if shaped and (elem := self.scalar(shaped[0], ref)) is not None:
            _, n, cols = shaped
            if cols is None:
                return ir.Vector(elem, n) if n > 1 else elem
            return ir.Matrix(elem, n, cols)
        if name == "vector":
            elem, n = self._template_args(ref, 2, (ir.FLOAT, 4))
            return self._shape(ref, elem, n)
        if name == "matrix":
            if not ref.args:
                return ir.Matrix(ir.FLOAT, 4, 4)
            if len(ref.args) != 3:
                raise error("'matrix' takes three template arguments", ref.loc)
            elem = self._elem_scalar(ref.args[0])
            r, c = self.const_eval(ref.args[1]), self.const_eval(ref.args[2])
            if not (1 <= r <= 4 and 1 <= c <= 4):
                raise error("matrix dimensions must be between 1 and 4", ref.loc)
            return ir.Matrix(elem, r, c)
        if name in STREAM_KINDS:
            if len(ref.args) != 1 or not isinstance(ref.args[0], ast.TypeRef):
                raise error(f"'{name}' requires a type as template argument", ref.args[0].loc if ref.args else ref.loc)
            vertex = self.resolve(ref.args[0])
            if not isinstance(vertex, ir.Struct) and not ir.is_numeric(vertex):
                raise error(f"'{vertex}' is not a valid vertex type for '{name}': a stream carries a struct or "
                            f"a numeric type", ref.args[0].loc)
            return ir.Resource(name, vertex)
        if name in RESOURCE_KINDS:
            if name in UNTYPED_RESOURCES:
                if ref.args:
                    raise error(f"'{name}' does not take template arguments", ref.loc)
                return ir.Resource(name)
            if not ref.args:
                if name in DEFAULT_FLOAT4:
                    return ir.Resource(name, ir.Vector(ir.FLOAT, 4))
                raise error(f"'{name}' requires a template argument", ref.loc)
            arg = ref.args[0]
            if len(ref.args) > (2 if KINDS[name].ms else 1):
                raise error(f"too many template arguments for '{name}'", ref.args[-1].loc)
            samples = 0
            if len(ref.args) == 2:      # Texture2DMS<T, samples>: an integer constant expression
                samples = self.const_eval(ref.args[1])
                if not 0 <= samples <= 128:
                    raise error(f"sample count {samples} of '{name}' is out of range [0, 128]", ref.args[1].loc)
            if isinstance(arg, ast.Name):
                raise error(f"unknown type name '{arg.name}'", arg.loc)
            if not isinstance(arg, ast.TypeRef):
                raise error(f"'{name}' requires a type as template argument", arg.loc)
            elem = self.resolve(arg)
            if isinstance(elem, (ir.Resource, ir.VoidType)) or \
                    (name in TEXEL_RESOURCES and not isinstance(elem, (ir.Scalar, ir.Vector))):
                raise error(f"'{elem}' is not a valid element type for '{name}'", arg.loc)
            if name in TEXEL_RESOURCES and ir.scalar_of(elem) == ir.BOOL:    # no texel format holds a bool
                raise error(f"'{elem}' elements of '{name}' are not supported: use uint and compare with 0",
                            arg.loc)
            if name in TEXEL_RESOURCES and _bits(elem) > 128:     # double3/4, uint64_t3/4: DXC's words
                raise error("elements of typed buffers and textures must fit in four 32-bit quantities", arg.loc)
            inner = resource_inside(elem) if KINDS[name].element != "block" else None
            if inner is not None:       # buffer memory holds values, not resources (fuzz finding)
                raise error(f"'{elem}' is not a valid element type for '{name}': it contains the resource "
                            f"'{inner}'", arg.loc)
            if self.element_major is not None and _has_matrix(elem) and self.element_major(arg):
                return ir.Resource(name, elem, row_major=True)
            return ir.Resource(name, elem, samples=samples)
        if name in ("uint8_t4_packed", "int8_t4_packed"):    # SM 6.6 packed bytes: a uint (pack_u8, unpack_s8s32)
            return ir.UINT
        if name in SAMPLER_ALIASES:       # DXC turns the dimension-typed samplers into sampler states
            return ir.Resource("SamplerState")
        if name == "RayDesc":
            return RAY_DESC
        if name == "RayQuery":
            if not 1 <= len(ref.args) <= 2 or any(isinstance(a, ast.TypeRef) for a in ref.args):
                raise error("'RayQuery' takes one or two constant template arguments: ray flags and "
                            "RAYQUERY_FLAG_* flags", ref.loc)
            flags = [self.const_eval(a) for a in ref.args]
            if flags[1:] and flags[1] != RAYQUERY_FLAGS["RAYQUERY_FLAG_NONE"]:
                raise error(f"RayQuery flags {flags[1]:#x} are not supported (only RAYQUERY_FLAG_NONE)", ref.args[1].loc)
            if flags[0] & ~sum(RAY_FLAGS.values()) or flags[0] < 0:
                raise error(f"{flags[0]:#x} is not a combination of RAY_FLAG_* values", ref.args[0].loc)
            return ir.RayQuery(flags[0])
        if name in PATCH_TYPES:
            return self._patch(ref)
        if name in SUBOBJECT_KINDS:      # only a global declaration of its own (sema/subobjects.py)
            raise error(f"'{name}' is a state-object subobject: it can only be the type of a global variable "
                        f"with an initializer list", ref.loc)
        if name == "string":
            raise error("a string declaration may only appear at global scope (not as an array, field, parameter, "
                        "return value or local)", ref.loc)
        raise error(f"unknown type name '{name}'" + (f"; did you mean '{ref.hint}'?" if ref.hint else ""), ref.loc)

    def _patch(self, ref: ast.TypeRef) -> ir.Type:
        """InputPatch<T, N> / OutputPatch<T, N>: an array of N control points; the entry wrapper
        (passes/entry_wrapper.py) makes it per-control-point stage I/O."""
        if len(ref.args) != 2 or not isinstance(ref.args[0], ast.TypeRef):
            raise error(f"'{ref.name}' takes two template arguments: a control-point type and a count", ref.loc)
        elem = self.resolve(ref.args[0])
        n = self.const_eval(ref.args[1])
        if not 1 <= n <= 32:
            raise error(f"'{ref.name}' control-point count must be between 1 and 32, not {n}", ref.loc)
        return ir.Array(elem, n)

    def _elem_scalar(self, arg) -> ir.Scalar:
        if not isinstance(arg, ast.TypeRef):
            raise error("expected a scalar type", arg.loc)
        t = self.resolve(arg)
        if not isinstance(t, ir.Scalar):
            raise error(f"expected a scalar type, not '{t}'", arg.loc)
        return t

    def _template_args(self, ref: ast.TypeRef, count: int, default) -> tuple[ir.Scalar, int]:
        if not ref.args:
            return default
        if len(ref.args) != count:
            raise error(f"'{ref.name}' takes {count} template arguments", ref.loc)
        return self._elem_scalar(ref.args[0]), self.const_eval(ref.args[1])

    def _shape(self, ref: ast.TypeRef, elem: ir.Scalar, n: int) -> ir.Type:
        if not 1 <= n <= 4:
            raise error("vector size must be between 1 and 4", ref.loc)
        return ir.vec(elem, n)


def resource_inside(t: ir.Type) -> ir.Resource | None:
    """A resource found in a struct or array type (recursively), else None."""
    if isinstance(t, ir.Resource):
        return t
    if isinstance(t, ir.Array):
        return resource_inside(t.elem)
    if isinstance(t, ir.Struct):
        return next((r for f in t.fields if (r := resource_inside(f.type)) is not None), None)
    return None


def _has_matrix(t: ir.Type | None) -> bool:
    while isinstance(t, ir.Array):
        t = t.elem
    return isinstance(t, ir.Matrix)


def unsized_value_array(t: ir.Type) -> bool:
    """An unsized array of values (a parameter type specialised per call); unsized
    resource arrays are not: they stay references to their global and are inlined
    (passes/resource_locals.py)."""
    if not (isinstance(t, ir.Array) and t.size is None):
        return False
    while isinstance(t, ir.Array):
        t = t.elem
    return not isinstance(t, ir.Resource)
