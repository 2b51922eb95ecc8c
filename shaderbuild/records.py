"""`Record`: a cheap-to-declare base class for the many small node types of the
AST and the IR.

dataclasses generate methods with `exec` at import time (~0.25 ms per class),
which dominated the cold start of `shaderbuild compile`.  A Record class gets its
field tables from its annotations when the class is created (`__init_subclass__`,
so no class is rebuilt), and its `__init__` is generated on first instantiation,
so only the node types a compilation actually uses pay for code generation.
Equality is identity, as for `@dataclass(eq=False)` nodes.

No metaclass: `isinstance` against a class whose metaclass is not `type` calls
the metaclass's `__instancecheck__` whenever the object's class is not exactly
the one tested (~3x the cost), and AST, IR and symbol classes are tested that
way everywhere (issue 23).  The price: fields live in the instance's `__dict__`,
not in slots (only a metaclass can add slots before the class is made, and a
slot cannot have a class-level default).  A class that declares `__slots__`, as
every base up to Record does, has no `__dict__` and so no room for its fields:
`_declare` refuses it unless each field has a slot of its own.

    class BinaryOp(Record):
        op: str
        lhs: Expr
        rhs: Expr
        notes: list = Record.factory(list)   # a fresh list per instance
"""

from __future__ import annotations

from . import _record_inits  # the generated __init__ templates (imports nothing)

TYPE_CHECKING = False
if TYPE_CHECKING:      # no typing at run time: importing it costs a cold compile ~2 ms
    from collections.abc import Callable
    from types import CodeType, FunctionType
    from typing import Any, ClassVar, TypeVar

    from typing_extensions import dataclass_transform

    _T = TypeVar("_T")
else:
    FunctionType = type(lambda: None)               # not `types` (~1.2 M instructions, issue 23)
    CodeType = type((lambda: None).__code__)

    def dataclass_transform(**_kwargs: Any) -> Callable[[Any], Any]:
        """Runtime no-op: the decorator only tells type checkers that Record subclasses
        get a dataclass-like __init__ (typing's own is 3.11+)."""
        return lambda cls: cls

_MISSING = object()


class _Factory:
    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


_SLOT = type(_Factory.__dict__["make"])     # a slot's descriptor (types.MemberDescriptorType, without importing types)


def _factory(make: Callable[[], _T]) -> _T:
    """`field: list = Record.factory(list)`: a fresh default per instance (typed as the
    value it makes, as dataclasses.field is)."""
    return _Factory(make)  # type: ignore[return-value]


def _declare(cls: Any) -> None:
    """Give a Record class its field tables (`_fields`, `_defaults`) from its annotations.  As with a
    dataclass, a plain default stays a class attribute and a `Record.factory` marker is taken off."""
    # plain loops, no comprehensions: each is a function call, and ~210 classes run this (issue 23)
    ns = cls.__dict__
    own: list[str] = []
    defaults = {}
    for k, v in ns.get("__annotations__", {}).items():
        if not (v if type(v) is str else str(v)).startswith("ClassVar"):
            own.append(k)
            if k in ns and type(ns[k]) is not _SLOT:    # (a field given a slot by the class's own __slots__)
                defaults[k] = ns[k]
    base_fields: tuple[str, ...] = ()
    base_defaults: dict = {}
    for b in cls.__bases__:
        base_fields += getattr(b, "_fields", ())
        base_defaults.update(getattr(b, "_defaults", {}))
    fields = list(base_fields)
    for f in own:
        if f not in base_fields:
            fields.append(f)
    for k, v in defaults.items():
        if type(v) is _Factory:
            delattr(cls, k)
    if "__slots__" in ns and not cls.__dictoffset__:     # every base slotted: no __dict__ to hold fields
        unstored = [f for f in fields if type(getattr(cls, f, None)) is not _SLOT]
        if unstored:
            raise TypeError(f"Record class {cls.__name__} declares __slots__ but no slot for its fields {unstored}: "
                            "fields live in the instance __dict__, which __slots__ removes here")
    cls._fields = tuple(fields)
    base_defaults.update(defaults)
    cls._defaults = base_defaults


def _first_init(self, *args, **kwargs) -> None:
    """Generate this class's real __init__, install it, and call it."""
    owner: Any
    for owner in type(self).__mro__:
        if owner.__dict__.get("__init__") is _first_init:
            break
    init = owner.__init__ = _make_init(owner)
    init(self, *args, **kwargs)


def _make_init(owner: Any) -> Any:
    """The __init__ of Record class `owner`, from the template of its shape of fields."""
    fields = owner._fields
    defaults = owner._defaults
    shape, argdefs, env = [], [], {"_M": _MISSING}
    for i, f in enumerate(fields):
        d = defaults.get(f, _MISSING)
        if isinstance(d, _Factory):
            shape.append("f")
            env[f"_f{i}"] = d.make
            argdefs.append(_MISSING)
        elif d is not _MISSING:
            shape.append("d")
            argdefs.append(d)
        else:
            shape.append("p")
    # not hasattr: a miss formats an AttributeError message (~4 k instructions, ~90 classes a compile)
    post = any("__post_init__" in vars(k) for k in owner.__mro__)
    code = _template(tuple(shape), post)
    # the template's placeholder names (its parameters after self, `_aN`, also the attributes it
    # sets) become the field names; map() with dict.get keeps the renaming in C (a cold compile
    # does this for ~80 classes)
    rename = dict(zip(code.co_varnames[1:], fields))
    code = code.replace(co_name="__init__", co_varnames=("self", *fields),
                        co_names=tuple(map(rename.get, code.co_names, code.co_names)))
    init = FunctionType(code, env, "__init__", tuple(argdefs) or None)
    init.__qualname__ = f"{owner.__qualname__}.__init__"
    return init


# (shape, post) -> __init__ code with placeholder names.  Compiling is ~40 us a class, and a
# compilation instantiates ~70 record classes but only a few dozen shapes ('p'lain, 'd'efault,
# 'f'actory per field), so one template is compiled per shape, in-process (never cached on disk).
# The shapes of the package's own Record classes are pre-generated (_record_inits.py, see write_inits):
# plain source, imported and byte-compiled like any module of the package.  A process's first
# compile() costs ~10 M instructions more (the compiler's own set-up), ~5% of a cold compile.
_templates: dict[tuple[tuple[str, ...], bool], CodeType] = {}


def template_name(shape: tuple[str, ...], post: bool) -> str:
    return f"init_{''.join(shape)}{'_post' if post else ''}"


def template_source(shape: tuple[str, ...], post: bool, name: str = "__init__") -> str:
    params, body = [], []
    for i, kind in enumerate(shape):
        a = f"_a{i}"
        params.append(a if kind == "p" else f"{a}=_M")  # real defaults are given to FunctionType
        body.append(f"  self.{a} = _f{i}() if {a} is _M else {a}" if kind == "f" else f"  self.{a} = {a}")
    if post:
        body.append("  self.__post_init__()")
    return f"def {name}(self, {', '.join(params)}):\n" + ("\n".join(body) or "  pass") + "\n"


def _template(shape: tuple[str, ...], post: bool) -> CodeType:
    code = _templates.get((shape, post))
    if code is None:
        made = getattr(_record_inits, template_name(shape, post), None)
        if made is not None:
            code = made.__code__    # renamed __init__ by _first_init
        else:
            module = compile(template_source(shape, post), "<record __init__>", "exec")
            code = next(c for c in module.co_consts if isinstance(c, CodeType))
        _templates[(shape, post)] = code
    return code


@dataclass_transform(eq_default=False)
class Record:
    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _defaults: ClassVar[dict[str, Any]] = {}

    factory = staticmethod(_factory)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        _declare(cls)
        if "__init__" not in cls.__dict__:
            cls.__init__ = _first_init  # type: ignore[method-assign]   # replaced by the generated one on first use

    def __repr__(self) -> str:
        items = ", ".join(f"{f}={getattr(self, f, '?')!r}" for f in self._fields)
        return f"{type(self).__name__}({items})"


class DataRecord(Record):
    """A mutable Record compared by its fields (unhashable, like a non-frozen dataclass)."""

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]   # unhashable, as a non-frozen dataclass

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)


class ValueRecord(Record):
    """A Record compared and hashed by its fields, and not to be mutated after
    construction (IR types are interned by structure)."""

    __slots__ = ("_hash",)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self._fields)

    def __reduce__(self):
        # rebuild from fields: a cached hash must not cross processes (str hashes are salted)
        return type(self), tuple(getattr(self, f) for f in self._fields)

    def __hash__(self) -> int:
        try:
            return self._hash  # type: ignore[attr-defined]   # a slot set below, not a field
        except AttributeError:
            h = hash((type(self).__name__,) + tuple(getattr(self, f) for f in self._fields))
            object.__setattr__(self, "_hash", h)
            return h


class InternedRecord(Record):
    """A Record interned by its fields: one instance per distinct value (IR types), so equality and
    hashing are by identity (fast dict keys).  Constructing one with fields equal to an existing one's
    returns that instance.  The table lives as long as the process; it holds only the distinct types seen."""

    __slots__ = ()
    _interned: ClassVar[dict[tuple, Any]] = {}     # shared by all subclasses; keys include the class
    __init__ = object.__init__   # __new__ initialises (once); C's no-op, no call

    def __init_subclass__(cls, **kwargs: Any) -> None:
        _declare(cls)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        fields = cls._fields
        if kwargs or len(args) < len(fields):
            values = list(args)
            defaults = cls._defaults
            for f in fields[len(args):]:
                if f in kwargs:
                    values.append(kwargs.pop(f))
                elif f in defaults:
                    values.append(defaults[f])
                else:
                    raise TypeError(f"{cls.__name__}() missing argument '{f}'")
            if kwargs:
                raise TypeError(f"{cls.__name__}() got unexpected arguments {sorted(kwargs)}")
            args = tuple(values)
        key = (cls, args)
        inst = cls._interned.get(key)
        if inst is None:
            init = _interned_inits.get(cls)
            if init is None:
                init = _interned_inits[cls] = _make_init(cls)
            inst = object.__new__(cls)
            init(inst, *args)
            cls._interned[key] = inst
        return inst

    def __reduce__(self):
        return type(self), tuple(getattr(self, f) for f in self._fields)


_interned_inits: dict[type, Any] = {}   # InternedRecord class -> its generated initialiser (not its __init__)


class Constant:
    """A member of a closed set of named constants, what `enum.Enum` gave this code: `name`, `value`,
    comparison by identity, the same member after pickling or copying.  Not `enum`: importing it (with
    `functools` and `collections`) costs a cold compile ~10 M instructions, and creating each Enum class
    ~0.17 ms (issue 23).  Members are created once, right after their class:

        class Storage(Constant):
            FUNCTION: ClassVar[Storage]
        Storage.FUNCTION = Storage("FUNCTION", "function")
    """

    __slots__ = ("name", "value")

    def __init__(self, name: str, value: str):
        self.name = name
        self.value = value

    @classmethod
    def define(cls, **values: str) -> None:
        for name, value in values.items():
            setattr(cls, name, cls(name, value))

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self.name}: {self.value!r}>"

    def __reduce__(self):
        return getattr, (type(self), self.name)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo: dict):
        return self


def init_shape(cls: type) -> tuple[tuple[str, ...], bool]:
    """The (shape, post) key of the template `_first_init` uses for `cls` (write_inits' input)."""
    defaults = cls._defaults  # type: ignore[attr-defined]
    shape = tuple("f" if isinstance(d, _Factory) else "p" if d is _MISSING else "d"
                  for d in (defaults.get(f, _MISSING) for f in cls._fields))  # type: ignore[attr-defined]
    return shape, hasattr(cls, "__post_init__")


def write_inits(shapes: set[tuple[tuple[str, ...], bool]], path: str) -> None:
    """Write the pre-generated templates module (_record_inits.py) for `shapes`: the shapes of every
    Record class of the three packages (`python tests/ir/test_record_inits.py` regenerates it;
    the test checks the committed file)."""
    parts = ['"""Generated from records.template_source: the Record __init__ templates of the compile path."""\n',
             "# ruff: noqa\n# mypy: ignore-errors\n",
             "# _M and _fN are the globals records.py gives each __init__ (its real defaults too)\n_M = None\n"]
    for shape, post in sorted(shapes):
        parts.append("\n\n" + template_source(shape, post, template_name(shape, post)))
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(parts))
