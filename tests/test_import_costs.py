"""Commands pay for what they use (docs/architecture.md, performance): `pypto --version` and `--help` import
no plugin and no numpy, `pypto compile` of a small program imports neither numpy nor the reference machine,
and an op family's numpy semantics load the first time an evaluate is asked for. Nothing here measures time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, OpDef
from pypto_core.ops.registry import DuplicateRegistrationError, OpRegistry
from pypto_core.ops.semantics_module import Semantics, SemanticsModuleError
from pypto_core.plugins import hookimpl
from pypto_core.plugins.host import PluginLoadWarning, register_in_process_plugin, reload_plugins

ROOT = Path(__file__).resolve().parents[1]
# Modules only execution, tracing or rich output need.
EXECUTION_ONLY = ("numpy", "ml_dtypes", "greenlet", "rich", "pypto_core.interp.machine", "pypto_core.interp.dtypes",
                  "pypto_plugins.ops_tile.semantics.binary", "pypto_plugins.ops_comm.semantics")

# Runs the command line in a fresh interpreter and reports which watched modules it imported.
_PROBE = textwrap.dedent("""
    import contextlib, io, json, sys
    from pypto_core.cli import main
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(sys.argv[1:])
    watched = [m for m in sys.modules if m in WATCHED or m.startswith(("pypto_plugins.", "pypto_core.plugins.host"))]
    print(json.dumps({"code": code, "stdout": out.getvalue(), "imported": sorted(watched)}))
""")


def probe(*argv: str, cwd: Path = ROOT) -> dict:
    code = f"WATCHED = {EXECUTION_ONLY!r}\n{_PROBE}"
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=300, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_version_imports_no_plugin_no_registry_and_no_numpy():
    found = probe("--version")
    assert found["code"] == 0 and found["stdout"].startswith("pypto ")
    assert "  ops_tile (pypto " in found["stdout"]  # listed from the entry-point metadata
    assert found["imported"] == []


def test_version_marks_a_plugin_blocked_on_the_command_line_without_loading_it():
    found = probe("-p", "no:pass_ssa", "--version")
    assert "  pass_ssa (pypto " in found["stdout"] and found["stdout"].count(": blocked") == 1
    assert found["imported"] == []


def test_help_imports_no_plugin_and_no_numpy():
    found = probe("--help")
    assert found["code"] == 0 and "compile" in found["stdout"]
    assert found["imported"] == []


def test_compiling_a_small_program_imports_neither_numpy_nor_the_machine(tmp_path):
    program = tmp_path / "small.py"
    program.write_text((ROOT / "examples" / "basic.py").read_text())
    found = probe("compile", str(program), cwd=tmp_path)
    assert found["code"] == 0 and "@pl.program" in found["stdout"]
    assert not [m for m in found["imported"] if m in EXECUTION_ONLY]
    assert "pypto_plugins.ops_tile.families.binary" in found["imported"]  # the ops are registered


def test_the_first_evaluate_asked_for_loads_the_numpy_semantics():
    code = textwrap.dedent("""
        import sys
        from pypto_core.ops.registry import get_opdef
        add = get_opdef("tile.add")
        before = "numpy" in sys.modules
        evaluate = add.evaluate
        print(before, evaluate is not None, "numpy" in sys.modules, get_opdef("pld.system.notify").evaluate is not None)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "True", "True"]


# -- deferred semantics in the registry ------------------------------------------------------------------
def _same(args, kwargs):
    return args[0].type


def _semantics_module(monkeypatch, name: str, table: object | None) -> None:
    module = types.ModuleType(name)
    if table is not None:
        module.semantics = table
    monkeypatch.setitem(sys.modules, name, module)


def _registry_with(op_names: tuple[str, ...], module: str) -> OpRegistry:
    registry = OpRegistry()
    for name in op_names:
        registry.register_op(OpDef(name, _same, args=(ArgSpec("x"),)), "demo_plugin")
    registry.defer_semantics(module, "demo_plugin", op_names=op_names)
    return registry


def _double(ctx, call, args, kwargs):
    return args[0] * 2


def test_a_deferred_table_registers_under_its_plugin_on_first_load(monkeypatch):
    table = Semantics()
    table("demo.a", "demo.b")(_double)
    _semantics_module(monkeypatch, "demo_semantics_ok", table)
    registry = _registry_with(("demo.a", "demo.b", "demo.none"), "demo_semantics_ok")
    assert registry.ops["demo.a"].__dict__.get("_evaluate") is None  # nothing loaded at registration
    registry.load_deferred_semantics()
    assert registry.ops["demo.a"].evaluate is _double and registry.ops["demo.b"].evaluate is _double
    assert registry.ops["demo.none"].evaluate is None  # the module gives it none: the machine cannot run it
    assert registry.semantics_places["demo.a"].owner == "demo_plugin"
    assert registry.semantics_places["demo.a"].site.endswith(f"test_import_costs.py:{_double.__code__.co_firstlineno}")
    assert registry.deferred_semantics == []


def test_a_semantics_module_that_fails_to_import_names_the_plugin_and_the_module():
    registry = _registry_with(("demo.a",), "demo_semantics_missing_module")
    with pytest.raises(SemanticsModuleError, match="plugin 'demo_plugin': its semantics module "
                                                   "'demo_semantics_missing_module' failed to import"):
        registry.load_deferred_semantics()


def test_a_semantics_module_without_a_table_is_an_error_naming_the_fix(monkeypatch):
    _semantics_module(monkeypatch, "demo_semantics_no_table", None)
    registry = _registry_with(("demo.a",), "demo_semantics_no_table")
    with pytest.raises(SemanticsModuleError, match=r"defines no `semantics = Semantics\(\)` table"):
        registry.load_deferred_semantics()


def test_a_second_semantics_for_an_op_a_deferred_module_covers_is_a_clash_at_registration(monkeypatch):
    table = Semantics()
    table.of("demo.a", _double)
    _semantics_module(monkeypatch, "demo_semantics_clash", table)
    registry = _registry_with(("demo.a",), "demo_semantics_clash")
    with pytest.raises(DuplicateRegistrationError, match="semantics of op 'demo.a' is registered by both "
                                                         "'demo_plugin' and 'other_plugin'"):
        registry.register_semantics("demo.a", _double, "other_plugin")


def test_unregistering_a_plugin_drops_its_deferred_modules():
    registry = _registry_with(("demo.a",), "demo_semantics_dropped")
    registry.unregister_owner("demo_plugin")
    assert registry.deferred_semantics == []
    registry = _registry_with(("demo.a",), "demo_semantics_cleared")
    registry.clear()
    assert registry.deferred_semantics == []


@pytest.fixture
def restore_plugins():
    yield
    reload_plugins(disabled=[], extra=[])


def test_a_family_with_a_semantics_module_defers_it_until_the_machine_asks(monkeypatch, restore_plugins):
    table = Semantics()
    table("demo.lazy")(_double)
    _semantics_module(monkeypatch, "demo_semantics_family", table)
    family = OpFamily("lazy_demo", semantics="demo_semantics_family")
    family.op(OpDef("demo.lazy", _same, args=(ArgSpec("x"),)), dsl="demo.lazy")
    plugin = types.ModuleType("lazy_demo_plugin")

    @hookimpl
    def pypto_register_ops(registry):
        registry.register_family(family)

    plugin.pypto_register_ops = pypto_register_ops
    host = register_in_process_plugin("lazy_demo", plugin)
    assert not host.failures
    from pypto_core.ops.registry import op_registry

    assert any(d.module == "demo_semantics_family" for d in op_registry().deferred_semantics)
    assert op_registry().ops["demo.lazy"].evaluate is _double  # reading it loads every deferred module
    assert op_registry().semantics_places["demo.lazy"].owner == "lazy_demo"
    assert op_registry().deferred_semantics == []


def test_a_plugin_giving_a_bundled_deferred_op_a_second_semantics_fails_to_load(restore_plugins):
    family = OpFamily("clash_with_deferred")

    @family.semantics("tile.exp")
    def _exp_again(ctx, call, args, kwargs):
        return args[0]

    plugin = types.ModuleType("clash_plugin")

    @hookimpl
    def pypto_register_ops(registry):
        registry.register_family(family)

    plugin.pypto_register_ops = pypto_register_ops
    with pytest.warns(PluginLoadWarning):
        host = register_in_process_plugin("clash_with_deferred", plugin)
    failure = next(f for f in host.failures if f.name == "clash_with_deferred")
    assert "semantics of op 'tile.exp' is registered by both 'ops_tile' and 'clash_with_deferred'" in failure.message
    assert "first at plugins/ops_tile/semantics/unary.py:" in failure.message
