"""The plugin host: discovers `pypto.plugins` entry points and lets each plugin register.

Plugins load one at a time. A plugin that fails to import, raises while registering, implements a
misspelled hook (or a hook-named function without `@hookimpl`), or registers a name another plugin
owns is reported (entry-point name and distribution, and for a clash the other owner); everything it
registered is rolled back and every other plugin still loads. Block plugins with `-p no:NAME`,
`PYPTO_DISABLE_PLUGINS=a,b` or `[plugins] disable = [...]` in pypto.toml; a name in
PYPTO_DISABLE_PLUGINS that no plugin has is an error naming the known plugins.

A plugin module may declare the plugin API it was written against, `PYPTO_PLUGIN_API = (2, 0)`: the
major version must be this pypto's and the minor at most this pypto's (`PLUGIN_API_VERSION`), else the
plugin fails to load with both versions named. A failure is reported as a `PluginLoadWarning` located
in the plugin (never at pypto's own source) and shown as `pypto: warning: ...`; a later lookup of a
name nothing provides says which failed or blocked plugin might have provided it
(`unavailable_provider_note`).
"""

from __future__ import annotations

import difflib
import inspect
import os
import sys
import threading
import traceback
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pluggy

from pypto_core.collector import collector_paused
from pypto_core.errors import UserError
from pypto_core.plugins import hookspecs
from pypto_core.plugins.hookspecs import PLUGIN_API_VERSION
from pypto_core.plugins.installed import DISABLE_ENV, OWN_DISTRIBUTION, plugin_entry_points
from pypto_core.plugins.installed import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP  # tests read it here
from pypto_core.plugins.registrar import Registrar, clear_plugin_registrations, rollback_owner

IN_PROCESS_DISTRIBUTION = "<registered in process>"


class PluginLoadWarning(UserWarning):
    """A plugin could not be loaded; the others were."""


class PluginSelectionError(UserError):
    """PYPTO_DISABLE_PLUGINS names a plugin that does not exist."""


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
    attempted: dict[str, list[str]] = field(default_factory=dict)  # registered before it failed (rolled back)
    location: tuple[str, int] | None = None  # where in the plugin it failed, when known

    def describe(self) -> str:
        return f"plugin '{self.name}' ({self.distribution}) failed to {self.stage}: {self.message}"


@dataclass
class BlockedPlugin:
    name: str
    distribution: str
    reason: str = "blocked"  # how it was blocked, for messages


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

    def load_all(self, disabled: Iterable[str] = (), extra: Sequence[tuple[str, ModuleType]] = (),
                 from_env: Iterable[str] = ()) -> None:
        """Load every discovered plugin but the `disabled` ones (and the `from_env` ones, which must exist)."""
        env_blocked = [d.strip() for d in from_env if d.strip()]
        blocked = {d.strip() for d in disabled if d.strip()} | set(env_blocked)
        candidates = _discover() + [_Candidate(n, IN_PROCESS_DISTRIBUTION, (lambda m=m: m)) for n, m in extra]
        _check_env_names(env_blocked, [c.name for c in candidates])
        for cand in candidates:
            self.known_names.append(cand.name)
            if cand.name in blocked:
                reason = (f"blocked by {DISABLE_ENV}" if cand.name in env_blocked
                          else f"blocked (-p no:{cand.name} or [plugins] disable)")
                self.blocked.append(BlockedPlugin(cand.name, cand.distribution, reason))
                continue
            self._load_one(cand)
        for failure in self.failures:
            _warn_failure(failure)

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
            where = _plugin_location(exc, None)
            self._fail(cand, "import", _one_line(exc) + _at(where), location=where)
            return
        problem = _api_mismatch(module)
        unmarked = _unmarked_hooks(module)
        if problem or unmarked:
            where = _module_location(module)
            if not problem:
                where = _function_location(getattr(module, unmarked[1])) or where
            self._fail(cand, "validate", problem or unmarked[0], location=where)
            return
        try:
            self.pm.register(module, name=cand.name)
            self.pm.check_pending()
        except pluggy.PluginValidationError as exc:
            self._unregister(module)
            self._fail(cand, "validate", _explain_validation(exc), location=_module_location(module))
            return
        except ValueError as exc:  # pluggy: the same module registered under two entry-point names
            self._fail(cand, "register", _one_line(exc), location=_module_location(module))
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
            where = _plugin_location(exc, module)
            self._fail(cand, "register", f"{_one_line(exc)}{_at(where)}", attempted=record.registered,
                       location=where or _module_location(module))
            return
        self.loaded.append(record)
        _PROVIDED[cand.name] = {kind: list(names) for kind, names in record.registered.items()}

    def _fail(self, cand: _Candidate, stage: str, message: str, attempted: dict[str, list[str]] | None = None,
              location: tuple[str, int] | None = None) -> None:
        self.failures.append(PluginFailure(cand.name, cand.distribution, stage, message,
                                           {k: list(v) for k, v in (attempted or {}).items()}, location))

    def unavailable(self, kind: str, name: str) -> list[tuple[str, str, bool]]:
        """(plugin, why it is unavailable, known to provide it) for each failed or blocked plugin that
        provides or might provide the `kind` (`ops`, `dsl`, `passes`, ...) named `name`.

        A plugin is known to provide the name when it registered it before failing, or when it did in an
        earlier load in this process; a plugin whose earlier load registered other things only is left
        out, and when one is known to provide the name, only those are named."""
        found: list[tuple[str, str, bool]] = []
        entries = [(f.name, f.distribution, f"failed to {f.stage}: {f.message}", f.attempted)
                   for f in self.failures]
        entries += [(b.name, b.distribution, f"is {b.reason}", {}) for b in self.blocked]
        for plugin, distribution, why, attempted in entries:
            earlier = _PROVIDED.get(plugin)
            sure = name in attempted.get(kind, []) or (earlier is not None and name in earlier.get(kind, []))
            if not sure and earlier is not None:
                continue
            found.append((f"'{plugin}' ({distribution})", why, sure))
        return [f for f in found if f[2]] or found

    def _unregister(self, module: ModuleType) -> None:
        if self.pm.is_registered(module):
            self.pm.unregister(module)


def _discover() -> list[_Candidate]:
    return [_Candidate(ep.name, dist, ep.load) for ep, dist in plugin_entry_points()]


def discovered_plugin_names() -> list[str]:
    """Names of every installed plugin and in-process plugin, loaded or not."""
    return sorted({c.name for c in _discover()} | {n for n, _ in _EXTRA})


def third_party_plugins() -> list[tuple[str, str]]:
    """(name, distribution) of every discovered or in-process plugin that does not ship with pypto."""
    found = [(c.name, c.distribution) for c in _discover() if not c.distribution.startswith(f"{OWN_DISTRIBUTION} ")]
    found += [(n, IN_PROCESS_DISTRIBUTION) for n, _ in _EXTRA]
    return sorted(set(found))


def _check_env_names(names: Sequence[str], known: Sequence[str]) -> None:
    """A misspelled PYPTO_DISABLE_PLUGINS entry is an error, like a misspelled `-p no:NAME`."""
    unknown = [n for n in names if n not in known]
    if not unknown:
        return
    name = unknown[0]
    hint = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
    raise PluginSelectionError(f"{DISABLE_ENV}: no plugin named '{name}'{suggestion} "
                               f"(known plugins: {', '.join(sorted(set(known))) or 'none'})")


def _api_mismatch(module: ModuleType) -> str:
    """The plugin's `PYPTO_PLUGIN_API` is not one this pypto serves (or is malformed)."""
    declared = getattr(module, "PYPTO_PLUGIN_API", None)
    if declared is None:
        return ""
    ours = ".".join(map(str, PLUGIN_API_VERSION))
    if (not isinstance(declared, (tuple, list)) or len(declared) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in declared)):
        return (f"declares PYPTO_PLUGIN_API = {declared!r}; it must be a (major, minor) tuple of ints, "
                f"e.g. {PLUGIN_API_VERSION!r} for this pypto's plugin API {ours}")
    major, minor = declared
    if major != PLUGIN_API_VERSION[0] or minor > PLUGIN_API_VERSION[1]:
        need = "the same major version" if major != PLUGIN_API_VERSION[0] else f"a minor version <= {PLUGIN_API_VERSION[1]}"
        return (f"needs plugin API {major}.{minor} (PYPTO_PLUGIN_API = {tuple(declared)!r}), but this pypto "
                f"provides plugin API {ours}; a plugin must declare {need} (update pypto or the plugin)")
    return ""


def _at(location: tuple[str, int] | None) -> str:
    return f" (at {location[0]}:{location[1]})" if location else ""


def _module_location(module: ModuleType) -> tuple[str, int] | None:
    path = getattr(module, "__file__", None)
    return (path, 1) if path else None


def _install_display() -> None:
    """Show a PluginLoadWarning as a pypto diagnostic (`pypto: warning: ...`) instead of Python's
    `file:line: PluginLoadWarning: ...` plus a source line. Warnings being recorded (pytest.warns,
    catch_warnings(record=True)) are untouched: recording bypasses `showwarning`."""
    previous = warnings.showwarning
    if getattr(previous, "_pypto_display", False):
        return

    def showwarning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                    file: Any = None, line: str | None = None) -> None:
        impl = getattr(warnings, "_showwarnmsg_impl", None)
        recording = getattr(impl, "__name__", "_showwarnmsg_impl") != "_showwarnmsg_impl"
        if isinstance(category, type) and issubclass(category, PluginLoadWarning) and not recording:
            stream = file if file is not None else sys.stderr
            if stream is None:
                return
            try:
                stream.write(f"pypto: warning: {message}\n")
            except OSError:
                pass
            return
        previous(message, category, filename, lineno, file, line)

    showwarning._pypto_display = True  # type: ignore[attr-defined]
    warnings.showwarning = showwarning


def _warn_failure(failure: PluginFailure) -> None:
    """Issue the warning located in the plugin (its failing line, else its module, else its name)."""
    filename, lineno = failure.location or (f"<plugin {failure.name}>", 0)
    warnings.warn_explicit(failure.describe(), PluginLoadWarning, filename, lineno,
                           module=f"pypto.plugins.{failure.name}")


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if not isinstance(exc, ValueError) else text


def _plugin_location(exc: BaseException, module: ModuleType | None) -> tuple[str, int] | None:
    """(file, line) of the deepest frame in the plugin's package (or outside pypto's own code)."""
    package = (module.__name__ or "").split(".")[0] if module is not None else ""
    module_file = str(getattr(module, "__file__", "") or "")
    location: tuple[str, int] | None = None
    for frame in traceback.extract_tb(exc.__traceback__):
        path = frame.filename.replace(os.sep, "/")
        if package and (f"/{package}/" in path or frame.filename == module_file):
            location = (frame.filename, frame.lineno or 0)
        elif not package and "importlib" not in path and "/pypto_core/" not in path and "<frozen" not in path:
            location = (frame.filename, frame.lineno or 0)
    return location


def _plugin_frame(exc: BaseException, module: ModuleType | None) -> str:
    """` (at file:line)` of the deepest frame in the plugin's package (or outside pypto's own code)."""
    return _at(_plugin_location(exc, module))


def _unmarked_hooks(module: ModuleType) -> tuple[str, str] | None:
    """(message, hook name) for a function named like a hook but without `@hookimpl`, which pluggy
    would silently ignore."""
    for name in hookspecs.HOOK_NAMES:
        fn = getattr(module, name, None)
        if callable(fn) and not hasattr(fn, "pypto_impl"):
            return f"defines '{name}' without the @hookimpl marker (from pypto.plugin import hookimpl)", name
    return None


def _function_location(fn: Any) -> tuple[str, int] | None:
    try:
        return (inspect.getsourcefile(fn) or "", inspect.getsourcelines(fn)[1])
    except (OSError, TypeError):
        return None


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
# What each plugin registered the last time it loaded in this process (by kind), so a plugin blocked
# or broken later is known to provide those names.
_PROVIDED: dict[str, dict[str, list[str]]] = {}


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

        host = _LOADING = PluginHost()
        try:
            # Loading imports every plugin and fills the registries: objects that live as long as the process,
            # which the cyclic collector would walk again and again while they are made (docs/architecture.md,
            # performance).
            with collector_paused():
                register_core()  # reads registries: they see _LOADING and do not load again
                host.load_all(list(_DISABLED_OVERRIDE or []), _EXTRA, from_env=disabled_from_env())
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


def load_plugins(disabled: Iterable[str] = ()) -> PluginHost:
    """The explicit entry: the plugins, with `disabled` blocked (besides PYPTO_DISABLE_PLUGINS). Loads only when
    nothing is loaded yet or another set is to be blocked; otherwise the loaded host is returned as it is."""
    wanted = list(dict.fromkeys(disabled))
    with _LOCK:
        if _HOST is not None and set(wanted) == set(current_disabled()):
            return _HOST
        return reload_plugins(disabled=wanted)


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


# The registry kinds a plugin records (`PluginRecord.registered` keys) for the names of NamedRegistry kinds.
_KIND_KEYS = {"pass": "passes", "pipeline preset": "pipelines", "preset": "pipelines", "backend": "backends",
              "IR property": "properties", "property": "properties", "op": "ops", "dsl": "dsl",
              "DSL name": "dsl", "builder": "builders", "passes attribute": "passes attributes",
              "testing attribute": "testing attributes"}


def unavailable_provider_note(kind: str, name: str) -> str:
    """`; plugin 'x' (dist), which failed to ..., might provide it` for a name nothing registered, when a
    plugin that failed to load or was blocked might have: appended to unknown-name messages. Empty when
    every plugin loaded (or the host is not loaded yet)."""
    host = _HOST or _LOADING
    if host is None or (not host.failures and not host.blocked):
        return ""
    key = _KIND_KEYS.get(kind, kind)
    found = host.unavailable(key, name)
    if not found:
        return ""
    if len(found) == 1:
        plugin, why, sure = found[0]
        verb = "provides" if sure else "might provide"
        return f"; the plugin {plugin}, which {verb} it, {why}"
    shown = "; ".join(f"{plugin} {why}" for plugin, why, _ in found[:4])
    more = f"; and {len(found) - 4} more (`pypto list plugins`)" if len(found) > 4 else ""
    return f"; plugins that failed to load or are blocked might provide it: {shown}{more}"


_install_display()
