"""Plugin-host rough edges: a misspelled PYPTO_DISABLE_PLUGINS entry, how a failed plugin
is shown, and unknown names that a failed or blocked plugin might have provided."""

from __future__ import annotations

import os
import subprocess
import sys
import types
import warnings
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import passes
from pypto_core.cli import main
from pypto_core.ops.registry import get_opdef
from pypto_core.plugins.host import (
    PluginLoadWarning,
    PluginSelectionError,
    register_in_process_plugin,
    reload_plugins,
)

from .test_pipeline_toys import support
from .test_pipeline_toys.support import TOYEXT_PLUGIN, TOYEXT_PROGRAM, make_distribution

clean_plugins = support.clean_plugins  # shared fixture
REPO = Path(__file__).resolve().parents[1]

RAISING = '''
from pypto.plugin import Pass, hookimpl


class HalfDone(Pass):
    name = "HalfDone"
    factory_name = "half_done"


@hookimpl
def pypto_register_passes(registry):
    registry.register_pass(HalfDone)
    raise RuntimeError("second pass is not ready")
'''


def _module(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


# -- PYPTO_DISABLE_PLUGINS -------------------------------------------------------------------------------------
def test_a_misspelled_disabled_plugin_in_the_environment_is_an_error(clean_plugins, monkeypatch):
    monkeypatch.setenv("PYPTO_DISABLE_PLUGINS", "backend_ascend95")
    with pytest.raises(PluginSelectionError) as caught:
        reload_plugins(disabled=[], extra=[])
    message = str(caught.value)
    assert message.startswith("PYPTO_DISABLE_PLUGINS: no plugin named 'backend_ascend95'; "
                              "did you mean 'backend_ascend950'? (known plugins: ")
    assert "backend_ascend910b, backend_ascend950, ops_comm, ops_tile" in message


def test_a_misspelled_disabled_plugin_fails_the_command_like_p_no(clean_plugins, monkeypatch, capsys):
    monkeypatch.setenv("PYPTO_DISABLE_PLUGINS", "pass_sssa")
    from pypto_core.plugins import host as host_module

    monkeypatch.setattr(host_module, "_HOST", None)
    assert main(["list", "passes"]) == 1
    err = capsys.readouterr().err
    assert "pypto: error: PYPTO_DISABLE_PLUGINS: no plugin named 'pass_sssa'; did you mean 'pass_ssa'?" in err
    assert "known plugins:" in err


def test_a_correct_environment_name_still_blocks(clean_plugins, monkeypatch):
    monkeypatch.setenv("PYPTO_DISABLE_PLUGINS", " backend_ascend950 , ")
    host = reload_plugins(disabled=[], extra=[])
    assert [(b.name, b.reason) for b in host.blocked] == [("backend_ascend950", "blocked by PYPTO_DISABLE_PLUGINS")]


# -- how a failed plugin is shown ----------------------------------------------------------------------------
def test_the_warning_is_located_in_the_plugin_not_in_pypto(tmp_path, clean_plugins):
    site = tmp_path / "site"
    make_distribution(site, "brokenhook", {"raising": "brokenhook_pkg.plugin"}, {"brokenhook_pkg.plugin": RAISING})
    sys.path.insert(0, str(site))
    try:
        with pytest.warns(PluginLoadWarning) as warned:
            reload_plugins(disabled=[], extra=[])
    finally:
        sys.path.remove(str(site))
        for name in [n for n in sys.modules if n.startswith("brokenhook_pkg")]:
            del sys.modules[name]
    (record,) = [w for w in warned if "raising" in str(w.message)]
    assert record.filename.endswith("brokenhook_pkg/plugin.py") and record.lineno == 13
    assert "pypto_core" not in record.filename


def _run(code: str, env_extra: dict[str, str] | None = None, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update(env_extra or {})
    return subprocess.run([sys.executable, *args, "-c", code], capture_output=True, text=True, env=env,
                          cwd=str(REPO), timeout=300)


def test_a_failed_plugin_is_a_pypto_diagnostic_on_the_command_line(tmp_path):
    site = tmp_path / "site"
    make_distribution(site, "brokenhook", {"raising": "brokenhook_pkg.plugin"}, {"brokenhook_pkg.plugin": RAISING})
    env = {"PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")])}
    done = _run("import sys; from pypto_core.cli import main; sys.exit(main(['list', 'passes']))", env)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [f"pypto: warning: plugin 'raising' (brokenhook 0.1) failed to register: RuntimeError: second "
                     f"pass is not ready (at {site / 'brokenhook_pkg' / 'plugin.py'}:13)"]
    assert "half_done" not in done.stdout


def test_python_users_see_the_same_diagnostic():
    done = _run(f"""
import types
from pypto_core.plugins.host import register_in_process_plugin
module = types.ModuleType("raising_mod")
exec({RAISING!r}, module.__dict__)
register_in_process_plugin("raising", module)
""")
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines() == [
        "pypto: warning: plugin 'raising' (<registered in process>) failed to register: RuntimeError: second pass "
        "is not ready"]


def test_other_warnings_keep_their_usual_display():
    done = _run("import warnings, pypto_core.plugins.host; warnings.warn('plain', UserWarning)")
    assert "UserWarning: plain" in done.stderr and "pypto: warning" not in done.stderr


# -- unknown names a failed or blocked plugin might provide ---------------------------------------------------
def test_an_unknown_pass_names_the_failed_plugin_that_registered_it(clean_plugins):
    with pytest.warns(PluginLoadWarning):
        register_in_process_plugin("raising", _module("raising_mod", RAISING))
    with pytest.raises(AttributeError) as caught:
        passes.half_done  # noqa: B018
    assert ("the plugin 'raising' (<registered in process>), which provides it, failed to register: "
            "RuntimeError: second pass is not ready") in str(caught.value)


def test_an_unknown_pl_operation_names_the_blocked_plugin(clean_plugins):
    register_in_process_plugin("toyext", _module("toyext_mod", TOYEXT_PLUGIN))
    reload_plugins(disabled=["toyext"])
    with pytest.raises(Exception, match="Unknown pl.toyext operation: twice") as caught:
        pl.parse(TOYEXT_PROGRAM)
    assert ("hint: the plugin 'toyext' (<registered in process>), which provides it, is blocked "
            "(-p no:toyext or [plugins] disable)") in str(caught.value)
    with pytest.raises(AttributeError, match="which provides it, is blocked"):
        passes.toyext_expand  # noqa: B018
    with pytest.raises(ValueError, match="op 'toyext.twice' is not registered; the plugin 'toyext'"):
        get_opdef("toyext.twice")


def test_an_unknown_pl_operation_names_a_plugin_that_failed_to_import(clean_plugins):
    broken = _module("toyext_mod", "def helper():\n    pass\n")

    def explode() -> types.ModuleType:
        raise ModuleNotFoundError("No module named 'toyext_deps'")

    from pypto_core.plugins import host as host_module

    # A plugin that never imported: nothing says what it would provide, so it "might" provide anything.
    original = host_module._discover
    host_module._discover = lambda: [*original(), host_module._Candidate("toyext_full", "toyext 0.1", explode)]
    try:
        with pytest.warns(PluginLoadWarning):
            reload_plugins(disabled=[], extra=[("unrelated", broken)])
        with pytest.raises(Exception) as caught:
            pl.parse(TOYEXT_PROGRAM)
    finally:
        host_module._discover = original
    assert ("the plugin 'toyext_full' (toyext 0.1), which might provide it, failed to import: ModuleNotFoundError: "
            "No module named 'toyext_deps'") in str(caught.value)


def test_a_plugin_known_to_provide_other_things_is_not_named(clean_plugins):
    reload_plugins(disabled=[], extra=[])  # backend_ascend950 has loaded, so what it provides is known
    reload_plugins(disabled=["backend_ascend950"])
    with pytest.raises(AttributeError) as caught:
        passes.no_such_pass  # noqa: B018
    assert "backend_ascend950" not in str(caught.value)
    with pytest.raises(ValueError, match="unknown backend 'Ascend950'.*the plugin 'backend_ascend950'.*which "
                                         "provides it, is blocked"):
        from pypto_core.backend.selection import resolve_backend_name

        resolve_backend_name("Ascend950")


def test_nothing_is_added_when_every_plugin_loaded(clean_plugins):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reload_plugins(disabled=[], extra=[])
    with pytest.raises(AttributeError) as caught:
        passes.no_such_pass  # noqa: B018
    assert "plugin" not in str(caught.value).split("(known:")[1]


def test_an_unknown_pass_in_a_configuration_names_the_blocked_plugin(clean_plugins):
    from pypto_core.config import ConfigError, parse_config_text, resolve_config

    register_in_process_plugin("toyext", _module("toyext_mod", TOYEXT_PLUGIN))
    text = '[pipeline]\npasses = ["toyext_expand"]\n[plugins]\ndisable = ["toyext"]\n'
    with pytest.raises(ConfigError, match="unknown pass or preset 'toyext_expand'.*the plugin 'toyext'.*is blocked"):
        resolve_config(parse_config_text(text, "pypto.toml"))


def test_load_plugins_loads_once_and_again_only_for_another_blocked_set():
    from pypto_core.plugins.host import load_plugins, reload_plugins

    try:
        first = load_plugins([])
        assert load_plugins([]) is first  # the same set: the loaded host as it is
        blocked = load_plugins(["backend_ascend950"])
        assert blocked is not first and [b.name for b in blocked.blocked] == ["backend_ascend950"]
        assert load_plugins(["backend_ascend950"]) is blocked
    finally:
        reload_plugins(disabled=[], extra=[])


def test_reading_a_registry_in_a_fresh_interpreter_loads_the_plugins_once():
    import subprocess
    import sys

    script = ("from pypto_core.passes.registry import PASSES\n"
              "from pypto_core.plugins import host\n"
              "assert host._HOST is None\n"
              "assert 'convert_to_ssa' in PASSES\n"
              "loaded = host._HOST\n"
              "from pypto_core.ops.registry import op_registry\n"
              "assert 'tile.add' in op_registry().ops and host._HOST is loaded\n"
              "print('ok')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "ok", done.stderr
