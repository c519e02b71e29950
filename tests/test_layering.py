"""The layering (docs/architecture.md): the core imports neither the `pypto` facade nor a plugin, and runs
on its own; plugins import only the core, the facade's plugin API and themselves."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import statement of a file (strings holding code do not count)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def _sources(directory: Path) -> list[Path]:
    return sorted(p for p in directory.rglob("*.py") if "tests" not in p.relative_to(directory).parts)


def test_no_core_module_imports_the_facade_or_a_plugin():
    bad = [f"{path.relative_to(ROOT)}:{line}: import {module}"
           for path in _sources(ROOT / "pypto_core") for line, module in _imports(path)
           if module.split(".")[0] in ("pypto", "pypto_plugins")]
    assert bad == []


@pytest.mark.parametrize("plugin", sorted(p.name for p in (ROOT / "plugins").iterdir()
                                          if (p / "plugin.py").is_file()))
def test_a_plugin_imports_no_other_plugin(plugin):
    own = f"pypto_plugins.{plugin}"
    bad = [f"{path.relative_to(ROOT)}:{line}: import {module}"
           for path in _sources(ROOT / "plugins" / plugin) for line, module in _imports(path)
           if module.split(".")[0] == "pypto_plugins" and not (module == own or module.startswith(own + "."))]
    assert bad == []


def test_the_core_parses_compiles_and_runs_without_the_facade():
    script = """
import sys
import pypto_core.language.pl as pl
from pypto_core.config import build_pass_manager, load_config, resolve_config
from pypto_core.interp import compare_outputs, make_inputs, run_program

program = pl.parse(open(sys.argv[1]).read(), filename=sys.argv[1])
compiled = build_pass_manager(resolve_config(load_config(search_dir="/nonexistent"))).run(program)
entry = program.get_function("main")
inputs = make_inputs(entry, seed=0)
checks = compare_outputs(run_program(program, inputs), run_program(compiled, inputs))
assert checks and all(c.comparison.ok for c in checks)
print(sorted(m for m in sys.modules if m == "pypto" or m.startswith("pypto.")))
"""
    done = subprocess.run([sys.executable, "-c", script, str(ROOT / "examples" / "mixed_matmul_bias.py")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("module", ["pypto_core.language.api", "pypto_core.language.pl",
                                    "pypto_core.language.parser.program_parser", "pypto_core.cli", "pypto"])
def test_each_entry_module_imports_first_in_a_fresh_interpreter(module):
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_text_path_reads_the_dsl_imports_without_importing_pypto():
    script = '''
import sys
import pypto_core.language.pl as pl
text = """
import pypto
import pypto.language as pl
from pypto import DataType
from pypto.language import FP32

N = 16

@pl.function
def f(x: pl.Tensor[[N], FP32]) -> pl.Tensor[[N], DataType.FP32]:
    y = pypto.language.add(x, x)
    return y
"""
func = pl.parse(text)
assert func.name == "f"
print(sorted(m for m in sys.modules if m == "pypto" or m.startswith("pypto.")))
'''
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
