"""Hot paths test the exact class (a pointer comparison; `isinstance` is a builtin call and, when it
fails, a search of the object's MRO): ir.types.scalar_of / is_numeric, sema's
shape_of, conversions and name lookup, the inliner's call search, ir.clone's statements.  Correct
only while those classes have no subclasses."""

import shaderbuild_dxil.plugin  # noqa: F401
import shaderbuild_spirv.plugin  # noqa: F401

import shaderbuild.compiler  # noqa: F401  (the compiler, both backends and sema loaded: all their classes exist)
from shaderbuild import ir
from shaderbuild.ir.types import is_numeric, scalar_of


def _all_subclasses(cls: type) -> list[type]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_all_subclasses(sub)]
    return out


def test_exactly_tested_classes_have_no_subclasses():
    from shaderbuild.front import ast
    from shaderbuild.front.sema.exprs import HeapElement
    from shaderbuild.front.sema.lower import MemberOfThis, MemberSymbol
    from shaderbuild.front.sema.scope import ErrorSymbol

    exact = (ir.Scalar, ir.Vector, ir.Matrix, ir.Store, ir.Eval, ir.Call, ir.If, ir.Loop, ir.Switch, ir.Return,
             ir.Break, ir.Continue, ir.Discard, ir.VarRef, HeapElement, ErrorSymbol, MemberOfThis, MemberSymbol, ast.Name, ast.StaticMember)
    assert [c for k in exact for c in _all_subclasses(k)] == []


def test_scalar_of_and_is_numeric_agree_with_isinstance():
    f = ir.FLOAT
    kinds = [f, ir.Vector(f, 3), ir.Matrix(f, 2, 4), ir.Array(f, 4), ir.Struct("S", (ir.StructField("x", f),))]
    assert [is_numeric(t) for t in kinds] == [isinstance(t, (ir.Scalar, ir.Vector, ir.Matrix)) for t in kinds]
    assert [is_numeric(t) for t in kinds] == [True, True, True, False, False]
    assert [scalar_of(t) for t in kinds] == [f, f, f, None, None]
