"""ir/validate.py: the IR contract is checked, and a broken module is reported as a compiler
bug naming the function and the node."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "passes"))
from passutil import sema_module  # noqa: E402

from shaderbuild import ir  # noqa: E402
from shaderbuild.compiler import compile_file  # noqa: E402
from shaderbuild.ir.validate import IRValidationError, validate_module  # noqa: E402
from shaderbuild.options import CompileOptions  # noqa: E402

SOURCE = """
RWStructuredBuffer<float> Out : register(u0);
float f(float x, inout float y) { y += x; return x * 2; }
[numthreads(1,1,1)]
void main(uint3 id : SV_DispatchThreadID) {
    float t = 1;
    for (uint i = 0; i < id.x; i++) {
        if (i == 3) continue;
        if (i == 5) break;
        t = f(t, t);
    }
    switch (id.y) { case 0: t = 2; break; default: t = 3; }
    Out[id.x] = t;
}
"""


def _module() -> ir.Module:
    return sema_module(SOURCE)[0]


def _fn(module: ir.Module, name: str) -> ir.Function:
    return next(f for f in module.functions if f.name == name)


def test_sema_output_and_every_pass_validate():
    from shaderbuild.passes import PIPELINE

    module, options = sema_module(SOURCE)
    for p in PIPELINE:
        p(module, options)
        validate_module(module, p.__module__)


def test_test_suite_validates_every_compilation():
    assert os.environ.get("SHADERBUILD_VALIDATE_IR") == "1"


def _broken(mutate, match: str) -> None:
    module = _module()
    validate_module(module)
    mutate(module)
    with pytest.raises(IRValidationError, match=match):
        validate_module(module, "test")


def test_binary_operands_of_different_types():
    def mutate(m):
        f = _fn(m, "f")
        ret = f.body[-1]
        ret.value = ir.Binary("mul", ret.value.lhs, ir.Const(ir.UINT, 2), ir.FLOAT)
    _broken(mutate, r"after test: IR invalid in function 'f': mul of float and uint: operand types differ"
                    r" \(a conversion is missing\): mul\(load\(%x\), 2:uint\)")


def test_store_of_the_wrong_type():
    def mutate(m):
        main = _fn(m, "main")
        main.body.append(ir.Store(ir.VarRef(main.params[0].var), ir.Const(ir.UINT, 1)))
    _broken(mutate, r"in function 'main': store of uint to a place of type uint3: store %id = 1:uint")


def test_load_of_a_value_that_is_not_a_place():
    def mutate(m):
        f = _fn(m, "f")
        x = ir.Load(ir.VarRef(f.params[0].var), ir.FLOAT)
        f.body.append(ir.Return(ir.Load(x, ir.FLOAT)))
    _broken(mutate, r"in function 'f': Load used where a place is required: load\(%x\)")


def test_break_outside_loop_or_switch():
    _broken(lambda m: _fn(m, "main").body.append(ir.Break()), "in function 'main': break outside a loop or switch")


def test_continue_in_switch_outside_loop():
    def mutate(m):
        sw = next(s for s in _fn(m, "main").body if isinstance(s, ir.Switch))
        sw.cases[0].body.insert(0, ir.Continue())
    _broken(mutate, "in function 'main': continue outside a loop")


def test_return_type_mismatch():
    _broken(lambda m: _fn(m, "f").body.append(ir.Return()),
            "in function 'f': return without a value in a function returning float")


def test_call_of_a_function_not_in_the_module():
    def mutate(m):
        m.functions = [f for f in m.functions if f.name != "f"]
    _broken(mutate, r"in function 'main': call of 'f', which is not a function of the module: call f\(")


def test_inout_argument_must_be_a_caller_temporary():
    def mutate(m):
        main = _fn(m, "main")
        call = next(e for s in ir.walk_stmts(main.body) for x in ir.stmt_exprs(s) for e in ir.walk_expr(x)
                    if isinstance(e, ir.Call))
        call.args[1] = ir.Load(call.args[1], ir.FLOAT)
    _broken(mutate, r"in function 'main': argument 1 for inout parameter 'y' is not a caller temporary")


def test_argument_type_must_match_parameter():
    def mutate(m):
        main = _fn(m, "main")
        call = next(e for s in ir.walk_stmts(main.body) for x in ir.stmt_exprs(s) for e in ir.walk_expr(x)
                    if isinstance(e, ir.Call))
        call.args[0] = ir.Const(ir.INT, 1)
    _broken(mutate, r"argument 0 of type int for parameter 'x' of type float")


def test_variable_of_another_function():
    def mutate(m):
        f, main = _fn(m, "f"), _fn(m, "main")
        main.body.append(ir.Store(ir.VarRef(f.params[0].var), ir.Const(ir.FLOAT, 1.0)))
    _broken(mutate, "in function 'main': variable 'x' is not a global, parameter or local of this function")


def test_conversion_that_changes_shape():
    def mutate(m):
        main = _fn(m, "main")
        main.body.append(ir.Eval(ir.Convert(ir.Load(ir.VarRef(main.params[0].var), ir.Vector(ir.UINT, 3)),
                                            ir.FLOAT)))
    _broken(mutate, r"conversion from uint3 to float changes the shape: convert<float>\(load\(%id\)\)")


def test_if_condition_must_be_bool():
    def mutate(m):
        main = _fn(m, "main")
        main.body.append(ir.If(ir.Const(ir.UINT, 1), [], []))
    _broken(mutate, "if condition has type uint, not bool")


def test_module_without_entry_point():
    def mutate(m):
        m.entry = None
    _broken(mutate, "module has no entry point")


def test_compile_file_reports_a_broken_pass_as_an_internal_error(tmp_path, monkeypatch):
    """A pass that breaks the IR is caught right after it runs, named in the diagnostic."""
    from shaderbuild import passes

    def break_types(module, options):
        main = module.entry.source_function
        main.body.insert(0, ir.Store(ir.VarRef(main.params[0].var), ir.Const(ir.FLOAT, 1.0)))

    monkeypatch.setattr(passes, "PIPELINE", passes.PIPELINE[:1] + (break_types,) + passes.PIPELINE[1:])
    src = tmp_path / "k.hlsl"
    src.write_text(SOURCE)
    result = compile_file(str(src), CompileOptions(profile="cs_6_0", target="spirv", validate_ir=True))
    assert not result.ok
    [diag] = [d for d in result.diagnostics if d.severity == "error"]
    assert "internal compiler error: IRValidationError: after test_validate: IR invalid in function 'main': " \
           "store of float to a place of type uint3: store %id = 1.0:float" in diag.message


def test_validate_ir_is_not_in_cache_keys():
    from shaderbuild.build.cache import options_fields

    on, off = CompileOptions(validate_ir=True), CompileOptions()
    assert on.cache_fields() == off.cache_fields() and "validate_ir" not in off.cache_fields()
    assert options_fields(on) == options_fields(off)


def test_cli_flag(tmp_path):
    import subprocess

    src = tmp_path / "k.hlsl"
    src.write_text(SOURCE)
    env = {k: v for k, v in os.environ.items() if k != "SHADERBUILD_VALIDATE_IR"}
    proc = subprocess.run([sys.executable, "-m", "shaderbuild", "compile", str(src), "-T", "cs_6_0", "-spirv",
                           "--validate-ir", "-o", str(tmp_path / "k.spv")], capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "k.spv").read_bytes()[:4] == bytes.fromhex("03022307")
