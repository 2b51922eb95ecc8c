"""The pluggy host: backends found through entry points, broken ones reported,
a missing backend a clear error."""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from shaderbuild.compiler import compile_file
from shaderbuild.options import CompileOptions
from shaderbuild.plugin import BackendInfo, BackendResult, PluginHost, hookimpl

REPO = Path(__file__).resolve().parents[2]
CS = """RWStructuredBuffer<uint> Out : register(u0);
[numthreads(4, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { Out[id.x] = id.x; }
"""


def shaderbuild(*args: str, cwd: Path, env: dict | None = None, exe: list[str] | None = None):
    cmd = (exe or [sys.executable, "-m", "shaderbuild"]) + list(args)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def test_plugins_lists_both_backends_with_distributions(tmp_path):
    proc = shaderbuild("plugins", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[0]: line for line in proc.stdout.splitlines()}
    assert "shaderbuild-spirv 0.1.0" in lines["spirv"]
    assert "shaderbuild-dxil 0.1.0" in lines["dxil"]


def test_broken_plugin_is_reported_and_others_keep_working(tmp_path):
    site = tmp_path / "site"
    dist = site / "shaderbuild_broken-1.2.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: shaderbuild-broken\nVersion: 1.2\n")
    (dist / "entry_points.txt").write_text("[shaderbuild]\nbroken = shaderbuild_broken_backend_does_not_exist\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    proc = shaderbuild("plugins", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    broken = [line for line in proc.stdout.splitlines() if line.startswith("broken")]
    assert broken and "shaderbuild-broken" in broken[0]
    assert "FAILED TO LOAD: ModuleNotFoundError: No module named 'shaderbuild_broken_backend_does_not_exist'" in broken[0]
    assert any(line.startswith("spirv") for line in proc.stdout.splitlines())
    (tmp_path / "cs.hlsl").write_text(CS)
    proc = shaderbuild("compile", "cs.hlsl", "-T", "cs_6_0", "-spirv", "-o", "cs.spv", cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "cs.spv").read_bytes()[:4] == b"\x03\x02\x23\x07"
    proc = shaderbuild("compile", "cs.hlsl", "-T", "cs_6_0", "--target", "broken", "-o", "x", cwd=tmp_path, env=env)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: backend 'broken' (shaderbuild-broken) failed to load: ModuleNotFoundError")


def test_unknown_target_lists_available_backends(tmp_path):
    (tmp_path / "cs.hlsl").write_text(CS)
    proc = shaderbuild("compile", "cs.hlsl", "-T", "cs_6_0", "--target", "metal", "-o", "x", cwd=tmp_path)
    assert proc.returncode == 1
    assert "error: no backend for target 'metal' is installed (available: dxil, spirv)" in proc.stderr
    assert not (tmp_path / "x").exists()


@pytest.mark.slow
def test_uninstalled_backend_leaves_the_other_usable(tmp_path):
    """A real virtualenv with the core and only the SPIR-V plugin installed."""
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = str(env_dir / "bin" / "python")
    pip = subprocess.run([py, "-m", "pip", "install", "-q", str(REPO), str(REPO / "plugins" / "spirv")],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stderr
    exe = [str(env_dir / "bin" / "shaderbuild")]
    proc = shaderbuild("plugins", cwd=tmp_path, exe=exe)
    assert [line.split()[0] for line in proc.stdout.splitlines()] == ["spirv"]
    (tmp_path / "cs.hlsl").write_text(CS)
    ok = shaderbuild("compile", "cs.hlsl", "-T", "cs_6_0", "-spirv", "-o", "cs.spv", cwd=tmp_path, exe=exe)
    assert ok.returncode == 0, ok.stderr
    missing = shaderbuild("compile", "cs.hlsl", "-T", "cs_6_0", "--target", "dxil", "-o", "cs.dxil",
                          cwd=tmp_path, exe=exe)
    assert missing.returncode == 1
    assert missing.stderr.strip() == ("error: no backend for target 'dxil' is installed (available: spirv); "
                                      "install shaderbuild-dxil")
    assert not (tmp_path / "cs.dxil").exists()


class EchoBackend:
    """An in-process plugin: proves the hooks are all a backend needs."""

    @hookimpl
    def shaderbuild_register_backends(self):
        return [BackendInfo(name="echo", extension=".txt", description="IR printer", version="1")]

    @hookimpl
    def shaderbuild_compile(self, module, target, options):
        if target != "echo":
            return None
        from shaderbuild.ir.printer import module_str
        text = module_str(module)
        return BackendResult(binary=text.encode(), reflection={"echo": True}, disassembly=text)


class CapableBackend:
    """A backend declaring capabilities: its raise pass, macros and push constants are its own."""

    def __init__(self):
        self.raised: list[str] = []

    def _raise(self, module, options):
        self.raised.append(module.entry.name)

    @hookimpl
    def shaderbuild_register_backends(self):
        from shaderbuild.capabilities import Capabilities
        caps = Capabilities(push_constants=True, predefined_macros=(("__capable__", "7"),),
                            raise_passes=(self._raise,))
        return [BackendInfo(name="capable", extension=".txt", capabilities=caps)]

    @hookimpl
    def shaderbuild_compile(self, module, target, options):
        if target != "capable":
            return None
        from shaderbuild.ir.printer import module_str
        return BackendResult(binary=module_str(module).encode())


def test_backend_capabilities_steer_the_core_only_for_their_target(tmp_path):
    capable = CapableBackend()
    host = PluginHost(load_entry_points=False)
    host.register(capable, name="capable")
    host.register(EchoBackend(), name="echo")
    src = tmp_path / "cs.hlsl"
    src.write_text("struct P { uint v; };\n[[vk::push_constant]] P pc;\nRWStructuredBuffer<uint> Out : register(u0);\n"
                   "[numthreads(1, 1, 1)] void main() { Out[0] = pc.v + __capable__; }\n")
    mine = compile_file(str(src), CompileOptions(profile="cs_6_0", target="capable"), host=host)
    assert mine.ok, [d.message for d in mine.diagnostics]
    assert capable.raised == ["main"]
    assert "global push_constant pc" in mine.binary.decode()
    assert [p["name"] for p in mine.manifest["push_constants"]] == ["pc"]
    other = compile_file(str(src), CompileOptions(profile="cs_6_0", target="echo"), host=host)
    assert not other.ok and "__capable__" in other.diagnostics[0].message   # no macro for another target
    assert capable.raised == ["main"]                                        # nor its raise pass
    src.write_text(src.read_text().replace(" + __capable__", ""))
    other = compile_file(str(src), CompileOptions(profile="cs_6_0", target="echo"), host=host)
    assert other.ok and "global uniform pc" in other.binary.decode()         # an ordinary cbuffer there
    # still the push constant block of the Vulkan view, not a descriptor there (issue 22)
    assert [p["name"] for p in other.manifest["push_constants"]] == ["pc"]
    assert "vulkan" not in next(r for r in other.manifest["resources"] if r["name"] == "pc")


def test_in_process_plugin_receives_the_ir_module(tmp_path):
    host = PluginHost(load_entry_points=False)
    host.register(EchoBackend(), name="echo")
    src = tmp_path / "cs.hlsl"
    src.write_text(CS)
    # -O0: the module as sema and the shared passes make it (from -O1 calls are inlined: below)
    result = compile_file(str(src), CompileOptions(profile="cs_6_0", target="echo", opt_level=0), host=host)
    assert result.ok, [d.message for d in result.diagnostics]
    text = result.binary.decode()
    assert "fn src.main(in id: uint3) -> void" in text
    inlined = compile_file(str(src), CompileOptions(profile="cs_6_0", target="echo"), host=host).binary.decode()
    assert "fn src.main" not in inlined and "call " not in inlined
    # the core names system values by their HLSL semantic; a BuiltIn is a backend's own decision
    assert "input in.SV_DispatchThreadID: uint3 (SV_DispatchThreadID, system value)" in text
    assert result.manifest["backend"] == {"echo": True}
    assert result.manifest["resources"][0]["vulkan"] == {"set": 0, "binding": 0, "descriptor_type": "storage_buffer",
                                                         "count": 1, "stride": 4}


class _Order:
    """Answers its own name for both hooks (a non-firstresult one and a firstresult one)."""

    def __init__(self, name, calls, answer=True, **opts):
        self.name, self.calls, self.answer = name, calls, answer

        def register():
            self.calls.append(name)
            return [BackendInfo(name=name, extension=".x")]

        def compile_(target):              # asks for one of the three arguments only, as pluggy allows
            self.calls.append(name)
            return BackendResult(binary=name.encode()) if answer else None
        self.shaderbuild_register_backends = hookimpl(**opts)(register)
        self.shaderbuild_compile = hookimpl(**opts)(compile_)


def test_hooks_are_called_in_pluggys_order_without_importing_it():
    """Our host and a pluggy PluginManager over the same plugins call implementations in the same
    order (tryfirst/trylast, last registered first) and give the same answers."""
    specs = [("a", {}), ("b", {"trylast": True}), ("c", {"tryfirst": True}), ("d", {}),
             ("e", {"trylast": True}), ("f", {"tryfirst": True}), ("g", {})]
    for answering in ({"a", "b", "c", "d", "e", "f", "g"}, {"d", "b"}, set()):
        ours, theirs = [], []
        host = PluginHost(load_entry_points=False)
        plugins = []
        for name, opts in specs:
            plugins.append(_Order(name, ours, name in answering, **opts))
            host.register(plugins[-1], name=name)
        first = host.call("shaderbuild_compile", module=None, target="x", options=None)
        every = host.call("shaderbuild_register_backends")
        order = list(ours)
        for p in plugins:
            p.calls = theirs
        pm_first = host.pm.hook.shaderbuild_compile(module=None, target="x", options=None)
        pm_every = host.pm.hook.shaderbuild_register_backends()
        assert (first and first.binary) == (pm_first and pm_first.binary)
        assert [[i.name for i in infos] for infos in every] == [[i.name for i in infos] for infos in pm_every]
        assert order == theirs
    # pluggy's insertion rules: tryfirst ones and plain ones last registered first, then trylast ones (each
    # inserted at the front, so called in registration order)
    assert order[:7] == ["f", "c", "g", "d", "a", "b", "e"]


def test_hookimpl_asking_for_an_unknown_argument_is_refused():
    class Bad:
        @hookimpl
        def shaderbuild_compile(self, module, target, options, colour):
            return None
    host = PluginHost(load_entry_points=False)
    with pytest.raises(Exception, match="colour"):
        host.register(Bad(), name="bad")
    assert host.backends() == {}


def test_a_hook_wrapper_runs_through_pluggy():
    seen = []

    class Wrapper:
        @hookimpl(wrapper=True)
        def shaderbuild_compile(self, target):
            seen.append(("before", target))
            result = yield
            seen.append(("after", result.binary))
            return result
    host = PluginHost(load_entry_points=False)
    host.register(EchoBackend(), name="echo")
    host.register(Wrapper(), name="wrapper")
    host.register(_Order("z", [], True), name="z")
    res = host.call("shaderbuild_compile", module=None, target="z", options=None)
    assert res.binary == b"z" and seen == [("before", "z"), ("after", b"z")]


class LazyCapableBackend(CapableBackend):
    """The same backend giving a function for its capabilities: called only by a compile for its target."""

    def __init__(self):
        super().__init__()
        self.built = 0

    def _capabilities(self):
        from shaderbuild.capabilities import Capabilities
        self.built += 1
        return Capabilities(predefined_macros=(("__capable__", "7"),), raise_passes=(self._raise,))

    @hookimpl
    def shaderbuild_register_backends(self):
        return [BackendInfo(name="capable", extension=".txt", capabilities=self._capabilities)]


def test_capabilities_given_as_a_function_are_built_for_their_target_only(tmp_path):
    lazy = LazyCapableBackend()
    host = PluginHost(load_entry_points=False)
    host.register(lazy, name="capable")
    host.register(EchoBackend(), name="echo")
    src = tmp_path / "cs.hlsl"
    src.write_text("RWStructuredBuffer<uint> Out : register(u0);\n"
                   "[numthreads(1, 1, 1)] void main() { Out[0] = 1; }\n")
    other = compile_file(str(src), CompileOptions(profile="cs_6_0", target="echo"), host=host)
    assert other.ok and lazy.built == 0 and lazy.raised == []
    src.write_text(src.read_text().replace("= 1;", "= __capable__;"))
    mine = compile_file(str(src), CompileOptions(profile="cs_6_0", target="capable"), host=host)
    assert mine.ok, [d.message for d in mine.diagnostics]
    assert lazy.built >= 1 and lazy.raised == ["main"]
