"""`pypto new-plugin NAME --kind op|pass|backend`: the scaffold's tests pass out of the box (docs/plugins.md, new-plugin).

Each kind is scaffolded into tmp_path and its tests run in a fresh interpreter (the current one) with the
scaffold directory on sys.path; the scaffold's pyproject.toml has pypto's pytest plugin register the plugin
in process. One test installs a scaffold into a new virtual environment (`pip install --no-deps
--no-build-isolation -e`, no network) and runs its tests there, with the plugin loaded from its entry point.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from pypto_core.cli import main
from pypto_core.cli_commands.new_plugin import KINDS, scaffold

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

RUN_TESTS = """
import sys
sys.path.insert(0, sys.argv[1])
import pytest
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[1]]))
"""


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST") and k != "PYPTO_DISABLE_PLUGINS"}


def _run_scaffold_tests(python: str, package: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-c", RUN_TESTS, str(package)], cwd=str(package), capture_output=True,
                          text=True, env=_env(), timeout=600)


@pytest.mark.parametrize("kind", KINDS)
def test_the_scaffolded_plugin_passes_its_own_tests(tmp_path, kind):
    package = scaffold(f"my-{kind}", kind, tmp_path)
    done = _run_scaffold_tests(sys.executable, package)
    assert done.returncode == 0, done.stdout + done.stderr
    counts = {"op": 5, "pass": 5, "backend": 2}
    assert f"{counts[kind]} passed" in done.stdout
    assert "warning" not in done.stdout.lower() and "warning" not in done.stderr.lower()


@pytest.mark.parametrize("kind", KINDS)
def test_the_scaffold_declares_its_entry_point_and_uses_only_the_public_api(tmp_path, kind):
    package = scaffold("acme-ext", kind, tmp_path)
    assert sorted(str(p.relative_to(package)) for p in package.rglob("*") if p.is_file()) == [
        "README.md", "acme_ext/__init__.py", "acme_ext/plugin.py", "pyproject.toml", "setup.py",
        "tests/test_acme_ext.py"]
    project = tomllib.loads((package / "pyproject.toml").read_text())
    assert project["project"]["name"] == "acme-ext"
    assert project["project"]["entry-points"]["pypto.plugins"] == {"acme_ext": "acme_ext.plugin"}
    assert project["tool"]["pytest"]["ini_options"]["pypto_plugins"] == ["acme_ext = acme_ext.plugin"]
    for source in (package / "acme_ext" / "plugin.py", package / "tests" / "test_acme_ext.py"):
        imported = set()
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom):
                imported.add(node.module or "")
            elif isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
        assert not [m for m in imported if m.startswith("pypto_core")], source
    plugin_source = (package / "acme_ext" / "plugin.py").read_text()
    assert "from pypto.plugin import" in plugin_source and "PYPTO_PLUGIN_API = (2, 0)" in plugin_source
    assert "`pypto new-plugin acme-ext --kind " + kind + "`" in (package / "README.md").read_text()


def test_the_command_writes_the_package_and_says_how_to_use_it(tmp_path, capsys):
    assert main(["new-plugin", "widgets", "--kind", "pass", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert f"wrote the pass plugin 'widgets' to {tmp_path / 'widgets'}" in out
    assert "python -m pytest -q" in out and "pip install -e ." in out
    # The test runner's install comes before the first use of it: pypto's own install does not bring pytest.
    assert out.index("pip install 'pytest>=7.4'") < out.index("python -m pytest -q")
    assert (tmp_path / "widgets" / "widgets" / "plugin.py").is_file()


def test_the_command_refuses_to_overwrite_and_rejects_bad_names(tmp_path, capsys):
    assert main(["new-plugin", "widgets", "--kind", "op", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["new-plugin", "widgets", "--kind", "op", "--dir", str(tmp_path)]) == 2
    assert "already exists and is not an empty directory" in capsys.readouterr().err
    assert main(["new-plugin", "9lives", "--kind", "op", "--dir", str(tmp_path)]) == 2
    assert "'9lives' is not a plugin name" in capsys.readouterr().err
    assert main(["new-plugin", "pypto", "--kind", "op", "--dir", str(tmp_path)]) == 2
    assert "which is taken" in capsys.readouterr().err
    assert main(["new-plugin", "x", "--kind", "frontend"]) == 2
    assert "invalid choice: 'frontend'" in capsys.readouterr().err


def _pip_install_editable(python: Path, package: Path) -> subprocess.CompletedProcess[str]:
    """`pip install --no-deps --no-build-isolation -e PACKAGE`, without network. A setuptools that cannot
    build editable wheels (before 70.1 it needs the `wheel` package, which a fresh venv lacks) gets the
    legacy editable install instead, `setup.py develop` (the scaffold's setup.py shim is for that)."""
    base = [str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
            "--disable-pip-version-check", "-q", "-e", str(package)]
    done = subprocess.run(base, capture_output=True, text=True, env=_env(), timeout=600)
    if done.returncode != 0 and "bdist_wheel" in done.stdout + done.stderr:
        done = subprocess.run([str(python), "setup.py", "-q", "develop", "--no-deps"], cwd=str(package),
                              capture_output=True, text=True, env=_env(), timeout=600)
    return done


def test_a_scaffold_installed_into_a_fresh_virtual_environment_passes_its_tests(tmp_path):
    """Slow (~20 s): a real venv, a real editable install, the plugin loaded from its entry point."""
    env_dir = tmp_path / "venv"
    try:
        venv.EnvBuilder(system_site_packages=True, with_pip=True).create(env_dir)
    except Exception as exc:  # e.g. no ensurepip in this Python build
        pytest.skip(f"cannot create a virtual environment with pip here ({type(exc).__name__}: {exc})")
    python = env_dir / ("Scripts" if os.name == "nt" else "bin") / "python"
    package = scaffold("venv-ext", "op", tmp_path / "src")
    installed = _pip_install_editable(python, package)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    probe = subprocess.run([str(python), "-c", "from pypto_core.plugins.host import plugin_host; "
                            "r = plugin_host().record('venv_ext'); print(r.distribution, sorted(r.registered))"],
                           cwd=str(tmp_path), capture_output=True, text=True, env=_env(), timeout=300)
    assert probe.stdout.strip() == "venv-ext 0.1.0 ['builders', 'dsl', 'ops', 'semantics']", probe.stdout + probe.stderr
    done = subprocess.run([str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=str(package),
                          capture_output=True, text=True, env=_env(), timeout=600)
    assert done.returncode == 0 and "5 passed" in done.stdout, done.stdout + done.stderr
