"""Discovers backends through entry points and reports those that fail to load."""

from __future__ import annotations

from ..records import ValueRecord
from . import discovery, hookspecs
from .hookspecs import BackendInfo, pluggy

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


class PluginHost:
    """Owns the pluggy PluginManager; one per process (see get_host)."""

    def __init__(self, load_entry_points: bool = True) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.failed: list[FailedPlugin] = []
        self._dists: dict[str, tuple[str, str]] = {}
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
                plugin = ep.load()
                self.pm.register(plugin, name=ep.name)
            except Exception as exc:  # noqa: BLE001 - any import failure is reported, not raised
                self.failed.append(FailedPlugin(ep.name, dist, f"{type(exc).__name__}: {exc}"))
                continue
            self._dists[ep.name] = (dist, version)

    def register(self, plugin: object, name: str) -> None:
        """Register an in-process plugin (tests, embedding applications)."""
        self.pm.register(plugin, name=name)
        self._dists.setdefault(name, ("(in-process)", ""))

    def backends(self) -> dict[str, LoadedBackend]:
        out: dict[str, LoadedBackend] = {}
        for impl in self.pm.hook.shaderbuild_register_backends.get_hookimpls():
            dist, version = self._dists.get(impl.plugin_name, ("?", "?"))
            for info in impl.function() or []:
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
