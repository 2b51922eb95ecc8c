"""Discovers backends through entry points, reports those that fail to load, and calls their hooks.

Hooks are called the way pluggy calls them (implementations in reverse registration order,
`tryfirst`/`trylast` honoured, each given the arguments it names, `firstresult` hooks stopping
at the first non-None answer), without importing pluggy: pluggy pulls in `inspect`, `ast`,
`dis` and `tokenize`, ~6 ms of every cold `shaderbuild compile`.  A real pluggy
PluginManager over the same plugins is built on first use of `PluginHost.pm`, and every call
goes through it when a plugin declares a hook wrapper (which only pluggy runs).
"""

from __future__ import annotations

import sys

from ..records import ValueRecord
from . import discovery, hookspecs
from .hookspecs import IMPL_ATTR, SPEC_ATTR, BackendInfo

ENTRY_POINT_GROUP = "shaderbuild"


class LoadedBackend(ValueRecord):
    info: BackendInfo
    plugin_name: str
    distribution: str
    dist_version: str


class FailedPlugin(ValueRecord):
    name: str
    distribution: str
    error: str


class PluginValidationError(Exception):
    """A hook implementation asks for an argument its specification does not pass (as pluggy's)."""


class HookImpl(ValueRecord):
    hook: str
    plugin_name: str
    function: object
    argnames: tuple[str, ...]
    opts: dict


def _argnames(func: object) -> tuple[str, ...] | None:
    """The required positional parameters of a function or bound method (pluggy's `varnames`)."""
    bound = hasattr(func, "__self__") and hasattr(func, "__func__")
    code = getattr(getattr(func, "__func__", func), "__code__", None)
    if code is None:
        return None
    names = code.co_varnames[:code.co_argcount]
    defaults = getattr(getattr(func, "__func__", func), "__defaults__", None) or ()
    if defaults:
        names = names[:-len(defaults)]
    return tuple(names[1:] if bound else names)


def _specs() -> dict[str, tuple[tuple[str, ...], dict]]:
    out = {}
    for name, value in vars(hookspecs).items():
        opts = getattr(value, SPEC_ATTR, None)
        if isinstance(opts, dict):
            code = value.__code__
            out[name] = (code.co_varnames[:code.co_argcount], opts)
    return out


def _static_attr(plugin: object, name: str) -> object:
    """`name` on `plugin` as stored, so a property is not run (pluggy looks up with getattr_static)."""
    if isinstance(plugin, type(sys)):         # a module (not `types.ModuleType`: issue 23)
        return vars(plugin).get(name)
    if not isinstance(plugin, type) and name in getattr(plugin, "__dict__", {}):
        return vars(plugin)[name]
    for klass in (plugin if isinstance(plugin, type) else type(plugin)).__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


class PluginHost:
    """The registered plugins and their hook implementations; one per process (see get_host)."""

    def __init__(self, load_entry_points: bool = True) -> None:
        self.failed: list[FailedPlugin] = []
        self._dists: dict[str, tuple[str, str]] = {}
        self._plugins: list[tuple[str, object]] = []
        self._impls: dict[str, list[HookImpl]] = {}     # hook -> implementations, in pluggy's get_hookimpls order
        self._specs = _specs()
        self._pm = None
        self._wrapped = False                           # a plugin declares a hook wrapper: calls go through pluggy
        if load_entry_points:
            self._load_entry_points()

    def _load_entry_points(self) -> None:
        # Each entry point is loaded on its own so one broken plugin cannot take
        # the others down (pluggy's load_setuptools_entrypoints stops at the first).
        seen: set[str] = set()
        for ep in sorted(discovery.entry_points(ENTRY_POINT_GROUP), key=lambda e: e.name):
            if ep.name in seen:
                continue
            seen.add(ep.name)
            dist, version = ep.dist_name, ep.dist_version
            try:
                self._register(ep.load(), ep.name)
            except Exception as exc:  # noqa: BLE001 - any import failure is reported, not raised
                self.failed.append(FailedPlugin(ep.name, dist, f"{type(exc).__name__}: {exc}"))
                continue
            self._dists[ep.name] = (dist, version)

    def _register(self, plugin: object, name: str) -> None:
        if any(n == name or p is plugin for n, p in self._plugins):
            raise ValueError(f"Plugin name already registered: {name}={plugin}")
        found: list[HookImpl] = []
        for attr in dir(plugin):
            raw = _static_attr(plugin, attr)
            opts = getattr(raw, IMPL_ATTR, None) or getattr(getattr(raw, "__func__", None), IMPL_ATTR, None)
            if not isinstance(opts, dict):
                continue
            function = getattr(plugin, attr)
            hook = opts.get("specname") or attr
            argnames = _argnames(function) or ()
            spec = self._specs.get(hook)
            if spec is not None and set(argnames) - set(spec[0]):
                raise PluginValidationError(f"Plugin {name!r} for hook {hook!r}: argument(s) "
                                            f"{sorted(set(argnames) - set(spec[0]))} are not in the hookspec")
            found.append(HookImpl(hook, name, function, argnames, opts))
        self._plugins.append((name, plugin))
        for impl in found:
            self._add(impl.hook, impl)
        if self._pm is not None:
            self._pm.register(plugin, name=name)

    def _add(self, hook: str, impl: HookImpl) -> None:
        """Insert as pluggy does: trylast first, then plain ones, then tryfirst (wrappers apart)."""
        impls = self._impls.setdefault(hook, [])
        if impl.opts.get("wrapper") or impl.opts.get("hookwrapper"):
            self._wrapped = True
            return
        if impl.opts.get("trylast"):
            impls.insert(0, impl)
        elif impl.opts.get("tryfirst"):
            impls.append(impl)
        else:
            i = len(impls)
            while i > 0 and impls[i - 1].opts.get("tryfirst"):
                i -= 1
            impls.insert(i, impl)

    def register(self, plugin: object, name: str) -> None:
        """Register an in-process plugin (tests, embedding applications)."""
        self._register(plugin, name)
        self._dists.setdefault(name, ("(in-process)", ""))

    @property
    def pm(self):
        """A pluggy PluginManager holding the same plugins, built on first use."""
        if self._pm is None:
            from .lazy import import_pluggy

            pluggy = import_pluggy()
            pm = pluggy.PluginManager(hookspecs.PROJECT)
            pm.add_hookspecs(hookspecs)
            for name, plugin in self._plugins:
                pm.register(plugin, name=name)
            self._pm = pm
        return self._pm

    def call(self, hook: str, **kwargs: object) -> object:
        """Call every implementation of `hook`, last registered first; a `firstresult` hook returns
        the first non-None answer (or None), any other the list of non-None answers."""
        if self._wrapped:
            return getattr(self.pm.hook, hook)(**kwargs)
        first = self._specs[hook][1].get("firstresult", False)
        results = []
        for impl in reversed(self._impls.get(hook, ())):
            res = impl.function(*[kwargs[a] for a in impl.argnames])    # type: ignore[operator]
            if res is not None:
                if first:
                    return res
                results.append(res)
        return None if first else results

    def backends(self) -> dict[str, LoadedBackend]:
        out: dict[str, LoadedBackend] = {}
        for impl in self._impls.get("shaderbuild_register_backends", ()):
            dist, version = self._dists.get(impl.plugin_name, ("?", "?"))
            for info in impl.function() or []:    # type: ignore[operator]
                out.setdefault(info.name, LoadedBackend(info, impl.plugin_name, dist, version))
        return dict(sorted(out.items()))

    def backend_versions(self) -> dict[str, str]:
        """name -> version string, for cache keys."""
        return {name: f"{b.distribution}=={b.dist_version}/{b.info.version}" for name, b in self.backends().items()}


_HOST: PluginHost | None = None


def get_host() -> PluginHost:
    global _HOST
    if _HOST is None:
        _HOST = PluginHost()
    return _HOST
