"""The plugin host: discovers `pypto.plugins` entry points and lets each plugin register.

Plugins load one at a time. A plugin that fails to import, raises while registering, implements a
misspelled hook (or a hook-named function without `@hookimpl`), or registers a name another plugin
owns is reported (entry-point name and distribution, and for a clash the other owner); everything it
registered is rolled back and every other plugin still loads. Block plugins with `-p no:NAME`,
`PYPTO_DISABLE_PLUGINS=a,b` or `[plugins] disable = [...]` in pypto.toml.
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
IN_PROCESS_DISTRIBUTION = "<registered in process>"
OWN_DISTRIBUTION = "pypto"


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
class BlockedPlugin:
    name: str
    distribution: str


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
        self.blocked: list[BlockedPlugin] = []
        self.known_names: list[str] = []  # every discovered plugin, blocked or not

    def load_all(self, disabled: Iterable[str] = (), extra: Sequence[tuple[str, ModuleType]] = ()) -> None:
        blocked = {d.strip() for d in disabled if d.strip()}
        candidates = _discover() + [_Candidate(n, IN_PROCESS_DISTRIBUTION, (lambda m=m: m)) for n, m in extra]
        for cand in candidates:
            self.known_names.append(cand.name)
            if cand.name in blocked:
                self.blocked.append(BlockedPlugin(cand.name, cand.distribution))
                continue
            self._load_one(cand)
        for failure in self.failures:
            warnings.warn(failure.describe(), PluginLoadWarning, stacklevel=3)

    def record(self, name: str) -> PluginRecord | None:
        return next((r for r in self.loaded if r.name == name), None)

    def distribution_of(self, owner: str) -> str:
        """The distribution a registration came from (`<core>` entries come with pypto itself)."""
        if owner == "<core>":
            return "pypto (core)"
        rec = self.record(owner)
        return rec.distribution if rec is not None else "<unknown distribution>"

    def _load_one(self, cand: _Candidate) -> None:
        previous = self.record(cand.name)
        if previous is not None:
            self._fail(cand, "register", f"another plugin named '{cand.name}' ({previous.distribution}) "
                                         "is already loaded")
            return
        try:
            module = cand.load()
        except Exception as exc:  # a broken plugin must not take the others down
            self._fail(cand, "import", _one_line(exc) + _plugin_frame(exc, None))
            return
        problem = _unmarked_hooks(module)
        if problem:
            self._fail(cand, "validate", problem)
            return
        try:
            self.pm.register(module, name=cand.name)
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            self._unregister(module)
            self._fail(cand, "validate", _explain_validation(exc))
            return
        except ValueError as exc:  # pluggy: the same module registered under two entry-point names
            self._fail(cand, "register", _one_line(exc))
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
            self._fail(cand, "register", f"{_one_line(exc)}{_plugin_frame(exc, module)}")
            return
        self.loaded.append(record)

    def _fail(self, cand: _Candidate, stage: str, message: str) -> None:
        self.failures.append(PluginFailure(cand.name, cand.distribution, stage, message))

    def _unregister(self, module: ModuleType) -> None:
        if self.pm.is_registered(module):
            self.pm.unregister(module)


def _discover() -> list[_Candidate]:
    seen: set[tuple[str, str]] = set()
    out: list[_Candidate] = []
    for ep in md.entry_points(group=ENTRY_POINT_GROUP):
        key = (ep.name, ep.value)
        if key in seen:  # the same distribution visible twice on sys.path
            continue
        seen.add(key)
        dist = getattr(ep, "dist", None)
        dist_name = f"{dist.metadata['Name']} {dist.version}" if dist is not None else "<unknown distribution>"
        out.append(_Candidate(ep.name, dist_name, ep.load))
    # pypto's own plugins first: a third-party plugin that registers a bundled name is the one
    # reported as the clash, whatever the alphabet says.
    out.sort(key=lambda c: (not c.distribution.startswith(f"{OWN_DISTRIBUTION} "), c.name))
    return out


def discovered_plugin_names() -> list[str]:
    """Names of every installed plugin and in-process plugin, loaded or not."""
    return sorted({c.name for c in _discover()} | {n for n, _ in _EXTRA})


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, ValueError) else text


def _plugin_frame(exc: BaseException, module: ModuleType | None) -> str:
    """` (at file:line)` of the deepest frame in the plugin's package (or outside pypto's own code)."""
    package = (module.__name__ or "").split(".")[0] if module is not None else ""
    location = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        path = frame.filename.replace(os.sep, "/")
        if package and f"/{package}/" in path:
            location = f" (at {frame.filename}:{frame.lineno})"
        elif not package and "importlib" not in path and "/pypto_core/" not in path:
            location = f" (at {frame.filename}:{frame.lineno})"
    return location


def _unmarked_hooks(module: ModuleType) -> str:
    """A function named like a hook but without `@hookimpl` would be silently ignored by pluggy."""
    for name in hookspecs.HOOK_NAMES:
        fn = getattr(module, name, None)
        if callable(fn) and not hasattr(fn, "pypto_impl"):
            return f"defines '{name}' without the @hookimpl marker (from pypto_core.plugins import hookimpl)"
    return ""


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
_LOADING: PluginHost | None = None  # the host being filled, visible only to the loading thread
_EXTRA: list[tuple[str, ModuleType]] = []
_DISABLED_OVERRIDE: list[str] | None = None


def disabled_from_env() -> list[str]:
    return [p.strip() for p in os.environ.get(DISABLE_ENV, "").split(",") if p.strip()]


def ensure_plugins_loaded() -> PluginHost:
    global _HOST, _LOADING
    host = _HOST
    if host is not None:
        return host
    with _LOCK:  # other threads wait here until loading is complete
        if _HOST is not None:
            return _HOST
        if _LOADING is not None:  # a plugin hook looking something up while it registers
            return _LOADING
        from pypto_core.passes.core_registrations import register_core

        register_core()
        host = _LOADING = PluginHost()
        try:
            host.load_all(disabled_from_env() + list(_DISABLED_OVERRIDE or []), _EXTRA)
        finally:
            _LOADING = None
        _HOST = host
    return host


def reload_plugins(disabled: Iterable[str] | None = None, extra: Sequence[tuple[str, ModuleType]] | None = None) -> PluginHost:
    """Forget every plugin registration and load again (CLI `-p no:NAME`, config, tests).

    `disabled=None` keeps no override (only PYPTO_DISABLE_PLUGINS applies); `extra=None` keeps the
    in-process plugins registered so far, `extra=[]` drops them.
    """
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
        _EXTRA[:] = [(n, m) for n, m in _EXTRA if n != name]
        _EXTRA.append((name, module))
        return reload_plugins(_DISABLED_OVERRIDE)


def current_disabled() -> list[str]:
    """The plugins blocked by the last reload (besides PYPTO_DISABLE_PLUGINS)."""
    return list(_DISABLED_OVERRIDE or [])


def plugin_host() -> PluginHost:
    return ensure_plugins_loaded()
