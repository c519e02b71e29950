"""The plugin host: a separately packaged plugin, broken plugins, blocked plugins, rollback."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.cli import main
from pypto_core.ops.registry import op_registry
from pypto_core.passes.registry import PASSES
from pypto_core.plugins.host import PluginLoadWarning, plugin_host, register_in_process_plugin, reload_plugins

from .test_pipeline_toys import support
from .test_pipeline_toys.support import TOYEXT_PLUGIN, TOYEXT_PROGRAM, make_distribution

clean_plugins = support.clean_plugins  # shared fixture


@pytest.fixture
def site(tmp_path: Path, clean_plugins) -> Iterator[Path]:
    """A directory on sys.path for distributions. Afterwards it leaves sys.path, its modules are
    forgotten and the plugins are reloaded without it (in that order, so nothing is re-imported)."""
    directory = tmp_path / "site"
    directory.mkdir()
    sys.path.insert(0, str(directory))
    importlib.invalidate_caches()
    try:
        yield directory
    finally:
        sys.path.remove(str(directory))
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", "") or "").startswith(str(directory)):
                del sys.modules[name]
        importlib.invalidate_caches()
        reload_plugins(disabled=[], extra=[])


def install_toyext(site: Path) -> None:
    make_distribution(site, "toyext", {"toyext": "toyext_plugin.plugin"}, {"toyext_plugin.plugin": TOYEXT_PLUGIN})


# -- a third-party distribution ---------------------------------------------------------------------
def test_a_separately_packaged_plugin_is_discovered_with_its_distribution(site):
    install_toyext(site)
    host = reload_plugins(disabled=[], extra=[])
    record = host.record("toyext")
    assert record is not None and record.distribution == "toyext 0.1"
    assert record.registered == {"ops": ["toyext.twice"], "dsl": ["toyext.twice"], "passes": ["toyext_expand"]}
    assert op_registry().op_owners["toyext.twice"] == "toyext"
    assert PASSES.owner("toyext_expand") == "toyext"


def test_the_third_party_op_and_pass_work_from_python(site):
    install_toyext(site)
    reload_plugins(disabled=[], extra=[])
    program = pl.parse(TOYEXT_PROGRAM)
    assert "pl.toyext.twice(x)" in ir.python_print(program)
    after = passes.toyext_expand(factor=3.0)(program)
    assert "pl.tensor.muls(x, 3.0)" in ir.python_print(after)


def test_the_third_party_plugin_is_used_from_pypto_toml(site, tmp_path, monkeypatch, capsys):
    install_toyext(site)
    reload_plugins(disabled=[], extra=[])
    work = tmp_path / "work"
    work.mkdir()
    (work / "prog.py").write_text(TOYEXT_PROGRAM)
    (work / "pypto.toml").write_text('[pipeline]\npasses = ["convert_to_ssa", "toyext_expand"]\n'
                                     "[passes.toyext_expand]\nfactor = 4.0\n")
    monkeypatch.chdir(work)
    assert main(["compile", "prog.py"]) == 0
    out = capsys.readouterr().out
    assert "y__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.muls(x__ssa_v0, 4.0)" in out
    assert "toyext" not in out


def test_the_third_party_plugin_is_listed(site, capsys):
    install_toyext(site)
    reload_plugins(disabled=[], extra=[])
    assert main(["list", "plugins"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "toyext " in line)
    assert "toyext 0.1" in row and "loaded" in row and "ops: toyext.twice" in row
    assert main(["list", "passes"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "toyext_expand" in line)
    assert "ExpandTwice" in row and "toyext 0.1" in row and "factor: float = 2.0" in row


# -- broken plugins ---------------------------------------------------------------------------------------
BROKEN = {
    "import_error": ("brokenimport", "import no_such_module_anywhere\n"),
    "raising_hook": ("brokenhook", """
from pypto_core.plugins import hookimpl
from pypto_core.passes.pass_base import Pass

class HalfDone(Pass):
    name = "HalfDone"
    factory_name = "half_done"

@hookimpl
def pypto_register_passes(registry):
    registry.register_pass(HalfDone)
    raise RuntimeError("second pass is not ready")
"""),
    "duplicate": ("brokendup", """
from pypto_core.plugins import hookimpl
from pypto_core.ops.opdef import ArgSpec, OpDef

@hookimpl
def pypto_register_ops(registry):
    registry.register_op(OpDef("brokendup.fine", lambda a, k: a[0].type, args=(ArgSpec("x"),)))
    registry.register_op(OpDef("tile.add", lambda a, k: a[0].type, args=(ArgSpec("x"),)))
"""),
    "misspelled": ("brokenspell", """
from pypto_core.plugins import hookimpl

@hookimpl
def pypto_register_pases(registry):
    pass
"""),
    "unmarked": ("brokenmark", """
def pypto_register_passes(registry):
    pass
"""),
}


@pytest.fixture
def broken_site(site):
    for kind, (dist, source) in BROKEN.items():
        make_distribution(site, dist, {kind: f"{dist}_pkg.plugin"}, {f"{dist}_pkg.plugin": source})
    install_toyext(site)
    return site


def test_each_broken_plugin_is_named_and_the_others_load(broken_site):
    with pytest.warns(PluginLoadWarning) as warned:
        host = reload_plugins(disabled=[], extra=[])
    failures = {f.name: f for f in host.failures}
    assert set(failures) == set(BROKEN)
    assert {f.name: f.distribution for f in host.failures} == {k: f"{d} 0.1" for k, (d, _) in BROKEN.items()}
    assert failures["import_error"].stage == "import"
    assert "ModuleNotFoundError: No module named 'no_such_module_anywhere'" in failures["import_error"].message
    assert failures["raising_hook"].stage == "register"
    assert "RuntimeError: second pass is not ready (at " in failures["raising_hook"].message
    assert failures["duplicate"].message.startswith("op 'tile.add' is registered by both 'ops_tile' and 'duplicate'")
    assert failures["duplicate"].message.endswith("brokendup_pkg/plugin.py:8)")  # where the plugin did it
    assert failures["misspelled"].message == (
        "implements unknown hook 'pypto_register_pases'; did you mean 'pypto_register_passes'?")
    assert failures["unmarked"].message.startswith("defines 'pypto_register_passes' without the @hookimpl marker")
    loaded = {r.name for r in host.loaded}
    assert {"toyext", "ops_tile", "pass_ssa", "backend_ascend910b"} <= loaded
    assert any("plugin 'duplicate' (brokendup 0.1) failed to register" in str(w.message) for w in warned)


def test_a_failed_plugin_leaves_nothing_registered(broken_site):
    with pytest.warns(PluginLoadWarning):
        reload_plugins(disabled=[], extra=[])
    assert "half_done" not in PASSES
    assert "brokendup.fine" not in op_registry().ops
    assert op_registry().op_owners["tile.add"] == "ops_tile"


def test_failures_are_listed_with_the_plugins(broken_site, capsys):
    with pytest.warns(PluginLoadWarning):
        reload_plugins(disabled=[], extra=[])
        assert main(["list", "plugins"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("│ misspelled"))
    assert "brokenspell 0.1" in row and "FAILED (validate)" in row


# -- blocking -------------------------------------------------------------------------------------------------
def test_blocking_by_name_and_by_environment(site, monkeypatch):
    install_toyext(site)
    host = reload_plugins(disabled=["toyext"], extra=[])
    assert host.record("toyext") is None
    assert [(b.name, b.distribution) for b in host.blocked] == [("toyext", "toyext 0.1")]
    assert "toyext_expand" not in PASSES
    monkeypatch.setenv("PYPTO_DISABLE_PLUGINS", "toyext, backend_ascend950")
    host = reload_plugins(disabled=None, extra=[])
    assert {b.name for b in host.blocked} == {"toyext", "backend_ascend950"}
    assert host.record("backend_ascend910b") is not None


def test_blocking_on_the_command_line(site, capsys):
    install_toyext(site)
    reload_plugins(disabled=[], extra=[])
    assert main(["list", "plugins", "-p", "no:toyext"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "toyext " in line)
    assert "blocked" in row
    assert main(["-p", "no:toyext", "list", "passes"]) == 0
    assert "toyext_expand" not in capsys.readouterr().out


def test_in_process_plugins_replace_one_with_the_same_name(clean_plugins):
    import types

    from pypto_core.plugins import hookimpl

    first = types.ModuleType("first_mod")
    second = types.ModuleType("second_mod")

    @hookimpl
    def pypto_register_pipelines(registry):
        registry.register_pipeline("from_in_process", ["convert_to_ssa"])

    second.pypto_register_pipelines = pypto_register_pipelines  # type: ignore[attr-defined]
    register_in_process_plugin("local", first)
    host = register_in_process_plugin("local", second)
    assert [r.module for r in host.loaded if r.name == "local"] == [second]
    assert plugin_host().record("local").registered == {"pipelines": ["from_in_process"]}


def test_other_threads_wait_until_loading_is_complete(clean_plugins):
    import threading
    import time
    import types

    from pypto_core.passes.registry import PIPELINES
    from pypto_core.plugins import hookimpl

    started = threading.Event()
    slow = types.ModuleType("slow_mod")

    @hookimpl
    def pypto_register_pipelines(registry):
        started.set()
        time.sleep(0.3)
        registry.register_pipeline("slow_preset", ["convert_to_ssa"])

    slow.pypto_register_pipelines = pypto_register_pipelines  # type: ignore[attr-defined]
    seen = []

    def other_thread():
        started.wait(5)
        host = plugin_host()
        seen.append((host.record("slow") is not None, "slow_preset" in PIPELINES))

    thread = threading.Thread(target=other_thread)
    thread.start()
    register_in_process_plugin("slow", slow)
    thread.join(5)
    assert seen == [(True, True)]
