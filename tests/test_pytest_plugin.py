"""pypto's pytest plugin (`pypto.pytest_plugin`, entry point pytest11): its fixtures, the backend marker,
the `pypto_plugins` ini option, and that it changes nothing for tests that do not ask for it."""

from __future__ import annotations

import importlib.metadata as md
import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pypto.pytest_plugin as plugin
from pypto import backend
from pypto_core.backend.selection import selected_backend_name

from .test_pipeline_toys import support
from .test_pipeline_toys.support import TOY_SOURCE

toy_plugin = support.toy_plugin  # shared fixture
clean_backend = support.clean_backend  # shared fixture

CHANGED = TOY_SOURCE.replace("pl.add(y, 2.0)", "pl.add(y, 3.0)")


def test_the_plugin_is_registered_with_pytest(pytestconfig):
    entry = [ep for ep in md.entry_points(group="pytest11") if ep.name == "pypto"]
    assert [ep.value for ep in entry] == ["pypto.pytest_plugin"]
    assert pytestconfig.pluginmanager.has_plugin("pypto")
    assert any(line.startswith("pypto_backend(name)") for line in pytestconfig.getini("markers"))


def test_it_has_no_autouse_fixture():
    fixtures = [getattr(obj, "_fixture_function_marker", None) or getattr(obj, "_pytestfixturefunction", None)
                for _, obj in inspect.getmembers(plugin)]
    markers = [f for f in fixtures if f is not None]
    assert len(markers) == 6
    assert not any(getattr(m, "autouse", False) for m in markers)


# -- running a pass -----------------------------------------------------------------------------------------
def test_run_pass_runs_a_registered_pass_with_options(toy_plugin, pypto_run_pass):
    after = pypto_run_pass("toy_mark", TOY_SOURCE, label="seen")
    assert after.get_function("main").attrs.get("toy_mark") == "seen"


def test_run_pass_verifies_the_properties_a_pass_claims(toy_plugin, pypto_run_pass):
    with pytest.raises(Exception, match="ToyMarked"):
        pypto_run_pass("toy_liar", TOY_SOURCE)


@pytest.mark.unverified
def test_unverified_drops_the_checks(toy_plugin, pypto_run_pass):
    pypto_run_pass("toy_liar", TOY_SOURCE)


def test_run_pass_checks_the_round_trip(toy_plugin, pypto_run_pass, monkeypatch):
    from pypto_core.passes.instruments import roundtrip

    def broken(pass_name: str, program: object) -> None:
        raise RuntimeError(f"[RoundtripInstrument] Structural equality failed after pass '{pass_name}'")

    monkeypatch.setattr(roundtrip, "check_roundtrip", broken)
    with pytest.raises(RuntimeError, match="Structural equality failed after pass"):
        pypto_run_pass("toy_mark", TOY_SOURCE)
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "basic")  # as tests/acceptance/conftest.py: no round trip
    pypto_run_pass("toy_mark", TOY_SOURCE)


def test_make_pass_accepts_instances_classes_and_names(toy_plugin):
    from pypto_core.passes.registry import PASSES

    cls = PASSES.require("toy_mark")
    assert isinstance(plugin.make_pass("toy_mark"), cls)
    assert isinstance(plugin.make_pass(cls), cls)
    instance = cls()
    assert plugin.make_pass(instance) is instance
    with pytest.raises(TypeError, match="a Pass instance, a Pass class or a registered pass name"):
        plugin.make_pass(3)
    with pytest.raises(ValueError, match="unknown pass 'toy_mak'; did you mean 'toy_mark'"):
        plugin.make_pass("toy_mak")


def test_a_pipeline_string_may_name_presets_and_options(toy_plugin):
    names = [p.factory_name for p in plugin.pipeline_passes("outline,toy_mark{label='x'}")]
    assert names == ["convert_to_ssa", "outline_incore_scopes", "toy_mark"]


# -- structural equality with a diff --------------------------------------------------------------------------
def test_assert_equal_passes_for_equal_programs(pypto_assert_equal):
    pypto_assert_equal(TOY_SOURCE, support.toy_program())


def test_assert_equal_shows_a_diff_of_the_printed_programs(pypto_assert_equal):
    with pytest.raises(AssertionError) as caught:
        pypto_assert_equal(TOY_SOURCE, CHANGED)
    text = str(caught.value)
    assert text.startswith("the programs differ (Structural equality failed at ")
    assert "--- expected\n+++ actual\n" in text
    assert "-        z: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 2.0)\n" in text
    assert "+        z: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(y, 3.0)\n" in text


# -- the reference machine --------------------------------------------------------------------------------------
def test_same_results_accepts_an_equivalent_program(pypto_same_results):
    pypto_same_results(TOY_SOURCE, TOY_SOURCE.replace("pl.add(x, 1.0)", "pl.sub(x, -1.0)"))


def test_same_results_reports_a_changed_result(pypto_same_results):
    with pytest.raises(AssertionError, match="main computes something else after the pipeline: return"):
        pypto_same_results(TOY_SOURCE, CHANGED)


def test_check_pipeline_compiles_and_compares(pypto_check_pipeline):
    compiled = pypto_check_pipeline(support.EXAMPLE.read_text(), "default")
    from pypto import ir

    assert "pl.tile.load(" in ir.python_print(compiled)


# -- the backend marker -----------------------------------------------------------------------------------------
def test_without_the_marker_the_fixture_is_the_default_backend(pypto_backend):
    assert pypto_backend.name == "Ascend910B"
    assert selected_backend_name() is None


@pytest.mark.pypto_backend("Ascend950")
def test_the_marker_selects_the_backend(pypto_backend):
    assert pypto_backend.name == "Ascend950"
    assert backend.get_backend_type() is backend.BackendType.Ascend950


@pytest.mark.pypto_backend("ascend950")
def test_the_marker_accepts_any_case_and_reaches_pass_contexts(pypto_verified_context):
    assert pypto_verified_context.backend.name == "Ascend950"


def _pytest(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
                          cwd=str(directory), capture_output=True, text=True, env=env, timeout=300)


def test_the_marker_puts_the_backend_back_and_strict_markers_accept_it(tmp_path):
    (tmp_path / "test_marked.py").write_text('''
import pytest
from pypto import backend


@pytest.mark.pypto_backend("Ascend950")
def test_marked(pypto_backend):
    assert backend.get_backend_type() is backend.BackendType.Ascend950


def test_after():
    assert not backend.is_backend_configured()


@pytest.mark.pypto_backend("NoSuchChip")
def test_unknown(pypto_backend):
    pass


@pytest.mark.pypto_backend()
def test_nameless():
    pass
''')
    done = _pytest(tmp_path, "--strict-markers", "--tb=line")
    assert "2 passed, 2 errors" in done.stdout, done.stdout + done.stderr
    assert "unknown backend 'NoSuchChip' (known: Ascend910B, Ascend950)" in done.stdout
    assert "@pytest.mark.pypto_backend needs a backend name" in done.stdout


def test_the_ini_option_registers_a_plugin_that_is_not_installed(tmp_path):
    (tmp_path / "localext").mkdir()
    (tmp_path / "localext" / "__init__.py").write_text("")
    (tmp_path / "localext" / "plugin.py").write_text(support.TOYEXT_PLUGIN)
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n'
                                             'pypto_plugins = ["localext = localext.plugin"]\n')
    (tmp_path / "test_local.py").write_text(f'''
from pypto_core.plugins.host import plugin_host

PROGRAM = {support.TOYEXT_PROGRAM!r}


def test_registered(pypto_run_pass):
    assert plugin_host().record("localext") is not None
    after = pypto_run_pass("toyext_expand", PROGRAM, factor=3.0)
    assert "pl.tensor.muls(x, 3.0)" in __import__("pypto").ir.python_print(after)
''')
    done = _pytest(tmp_path)
    assert "1 passed" in done.stdout, done.stdout + done.stderr
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\npypto_plugins = ["localext"]\n')
    done = _pytest(tmp_path)
    assert "pypto_plugins: 'localext' is not 'NAME = module'" in done.stderr


def test_the_plugin_changes_nothing_for_a_session_that_does_not_use_it(tmp_path):
    (tmp_path / "test_plain.py").write_text('''
from pypto import backend, passes
from pypto_core.passes.context import PassContext


def test_plain():
    assert not backend.is_backend_configured()
    assert PassContext.current() is None if hasattr(PassContext, "current") else True
''')
    with_plugin = _pytest(tmp_path)
    without = _pytest(tmp_path, "-p", "no:pypto")
    assert "1 passed" in with_plugin.stdout and "1 passed" in without.stdout, with_plugin.stdout + without.stdout
