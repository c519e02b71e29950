"""The plugin host: discovers `pypto.plugins` entry points and lets each plugin register.

Plugins load one at a time. A plugin that fails to import, raises while registering, implements a
misspelled hook, or registers a name another plugin owns is reported (entry-point name and
distribution, and for a clash the other owner); everything it registered is rolled back and every
other plugin still loads. Block plugins with `-p no:NAME`, `PYPTO_DISABLE_PLUGINS=a,b` or
`[plugins] disable = [...]` in pypto.toml.
"""

from __future__ import annotations

import difflib
import importlib.metadata as md
import os
import threading
import traceback
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pluggy

from pypto_core.plugins import hookspecs
from pypto_core.plugins.registrar import Registrar, clear_plugin_registrations, rollback_owner

ENTRY_POINT_GROUP = "pypto.plugins"
DISABLE_ENV = "PYPTO_DISABLE_PLUGINS"


class PluginLoadWarning(UserWarning):
    """A plugin could not be loaded; the others were."""


@dataclass
class PluginRecord:
    name: str
    distribution: str
    module: ModuleType | None = None
    registered: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class PluginFailure:
    name: str
    distribution: str
    stage: str  # import | validate | register
    message: str

    def describe(self) -> str:
        return f"plugin '{self.name}' ({self.distribution}) failed to {self.stage}: {self.message}"


@dataclass
class _Candidate:
    name: str
    distribution: str
    load: Any  # () -> module


class PluginHost:
    def __init__(self) -> None:
        self.pm = pluggy.PluginManager("pypto")
        self.pm.add_hookspecs(hookspecs)
        self.loaded: list[PluginRecord] = []
        self.failures: list[PluginFailure] = []
        self.blocked: list[str] = []

    def load_all(self, disabled: Iterable[str] = (), extra: Sequence[tuple[str, ModuleType]] = ()) -> None:
        blocked = {d.strip() for d in disabled if d.strip()}
        candidates = _discover() + [_Candidate(n, "<registered in process>", (lambda m=m: m)) for n, m in extra]
        for cand in candidates:
            if cand.name in blocked:
                self.blocked.append(cand.name)
                continue
            self._load_one(cand)
        for failure in self.failures:
            warnings.warn(failure.describe(), PluginLoadWarning, stacklevel=3)

    def _load_one(self, cand: _Candidate) -> None:
        try:
            module = cand.load()
        except Exception as exc:  # a broken plugin must not take the others down
            self.failures.append(PluginFailure(cand.name, cand.distribution, "import", _one_line(exc)))
            return
        try:
            self.pm.register(module, name=cand.name)
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            self._unregister(module)
            self.failures.append(PluginFailure(cand.name, cand.distribution, "validate", _explain_validation(exc)))
            return
        except ValueError as exc:  # pluggy: the same plugin name registered twice
            self.failures.append(PluginFailure(cand.name, cand.distribution, "register", _one_line(exc)))
            return
        record = PluginRecord(cand.name, cand.distribution, module)
        registrar = Registrar(owner=cand.name, record=record.registered)
        try:
            for hook_name in hookspecs.HOOK_NAMES:
                for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                    if impl.plugin is module:
                        impl.function(**{arg: registrar for arg in impl.argnames})
        except Exception as exc:
            rollback_owner(cand.name)
            self._unregister(module)
            where = _plugin_frame(exc, module)
            self.failures.append(PluginFailure(cand.name, cand.distribution, "register",
                                               f"{_one_line(exc)}{where}"))
            return
        self.loaded.append(record)

    def _unregister(self, module: ModuleType) -> None:
        if self.pm.is_registered(module):
            self.pm.unregister(module)


def _discover() -> list[_Candidate]:
    seen: set[tuple[str, str]] = set()
    out: list[_Candidate] = []
    for ep in md.entry_points(group=ENTRY_POINT_GROUP):
        key = (ep.name, ep.value)
        if key in seen:
            continue
        seen.add(key)
        dist = getattr(ep, "dist", None)
        dist_name = f"{dist.metadata['Name']} {dist.version}" if dist is not None else "<unknown distribution>"
        out.append(_Candidate(ep.name, dist_name, ep.load))
    out.sort(key=lambda c: c.name)
    return out


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, ValueError) else text


def _plugin_frame(exc: BaseException, module: ModuleType) -> str:
    """` (at file:line)` of the deepest frame inside the plugin's package, to point the author at it."""
    package = (module.__name__ or "").split(".")[0]
    location = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if package and f"/{package}/" in frame.filename.replace(os.sep, "/"):
            location = f" (at {frame.filename}:{frame.lineno})"
    return location


def _explain_validation(exc: pluggy.PluginValidationError) -> str:
    text = str(exc)
    for word in text.replace("'", " ").replace('"', " ").split():
        if word.startswith("pypto_") and word not in hookspecs.HOOK_NAMES:
            hint = difflib.get_close_matches(word, hookspecs.HOOK_NAMES, n=1)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
            return f"implements unknown hook '{word}'{suggestion}"
    return text


_LOCK = threading.RLock()
_HOST: PluginHost | None = None
_EXTRA: list[tuple[str, ModuleType]] = []
_DISABLED_OVERRIDE: list[str] | None = None


def disabled_from_env() -> list[str]:
    return [p for p in os.environ.get(DISABLE_ENV, "").split(",") if p.strip()]


def ensure_plugins_loaded() -> PluginHost:
    global _HOST
    if _HOST is not None:
        return _HOST
    with _LOCK:
        if _HOST is None:
            host = PluginHost()
            _HOST = host  # set first: registration hooks may look things up
            disabled = disabled_from_env() + list(_DISABLED_OVERRIDE or [])
            host.load_all(disabled, _EXTRA)
    return _HOST


def reload_plugins(disabled: Iterable[str] | None = None, extra: Sequence[tuple[str, ModuleType]] | None = None) -> PluginHost:
    """Forget every plugin registration and load again (CLI `-p no:NAME`, config, tests)."""
    global _HOST, _DISABLED_OVERRIDE
    with _LOCK:
        _DISABLED_OVERRIDE = list(disabled) if disabled is not None else None
        if extra is not None:
            _EXTRA[:] = list(extra)
        clear_plugin_registrations()
        _HOST = None
        return ensure_plugins_loaded()


def register_in_process_plugin(name: str, module: ModuleType) -> PluginHost:
    """Load a plugin module that is not installed (tests, notebooks), then reload everything."""
    with _LOCK:
        _EXTRA.append((name, module))
        return reload_plugins(_DISABLED_OVERRIDE)


def plugin_host() -> PluginHost:
    return ensure_plugins_loaded()
