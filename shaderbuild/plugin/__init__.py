"""The pluggy host: hook specifications and backend discovery."""

from .hookspecs import BackendInfo, BackendResult, hookimpl, hookspec
from .manager import PluginHost, get_host

__all__ = ["BackendInfo", "BackendResult", "PluginHost", "get_host", "hookimpl", "hookspec"]
