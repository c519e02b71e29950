"""docs/reference/ is what `pypto docs` writes from the registries, and every pass of pypto has its page.

When this fails after a change to a plugin, run `pypto docs` and commit the regenerated files.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
PAGES = ("backends.md", "ops.md", "passes.md", "properties.md")


def _pypto(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """The pypto command in a fresh interpreter: only the installed plugins, none a test registered in process."""
    env = {k: v for k, v in os.environ.items() if k != "PYPTO_DISABLE_PLUGINS"}
    env["COLUMNS"] = "200"
    return subprocess.run([sys.executable, "-m", "pypto_core.cli", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


def test_committed_reference_is_up_to_date() -> None:
    result = _pypto("docs", "--check", "--out", str(REFERENCE))
    assert result.returncode == 0, ("docs/reference/ is stale; run `pypto docs` to regenerate it:\n"
                                    + result.stdout + result.stderr)


def test_docs_writes_the_pages_and_check_names_stale_ones(tmp_path: Path) -> None:
    out = tmp_path / "ref"
    written = _pypto("docs", "--out", str(out))
    assert written.returncode == 0, written.stderr
    assert sorted(p.name for p in out.iterdir()) == sorted(PAGES)
    for name in PAGES:  # the same content as the committed pages, wherever they are written
        assert (out / name).read_text(encoding="utf-8") == (REFERENCE / name).read_text(encoding="utf-8"), name
    assert _pypto("docs", "--check", "--out", str(out)).returncode == 0

    (out / "ops.md").write_text("stale\n", encoding="utf-8")
    (out / "backends.md").unlink()
    check = _pypto("docs", "--check", "--out", str(out))
    assert check.returncode == 1
    assert "ops.md" in check.stderr and "backends.md" in check.stderr
    assert "passes.md" not in check.stderr
    assert (out / "ops.md").read_text(encoding="utf-8") == "stale\n"  # --check writes nothing


def test_output_is_deterministic(tmp_path: Path) -> None:
    from pypto_core.cli_commands.docs import render_all

    first, second = render_all(tmp_path), render_all(tmp_path)
    assert first == second
    assert all(" at 0x" not in text for text in first.values())  # no object addresses


def test_every_pass_of_pypto_has_a_guide_page() -> None:
    from pypto_core.passes.registry import PASSES
    from pypto_core.plugins.host import ensure_plugins_loaded, plugin_host

    ensure_plugins_loaded()
    host = plugin_host()
    missing = [factory for factory in PASSES.names()
               if (PASSES.owner(factory) == "<core>" or host.distribution_of(PASSES.owner(factory)).startswith("pypto "))
               and not (ROOT / "docs" / "passes" / f"{factory}.md").is_file()]
    assert not missing, f"passes without a page in docs/passes/: {missing}"


def test_readme_links_into_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in ("docs/architecture.md", "docs/dsl.md", "docs/plugins.md", "docs/passes/", "docs/reference/"):
        assert f"({target}" in readme, target
    for page in ("architecture.md", "dsl.md", "plugins.md", "limits.md", "README.md"):
        assert (ROOT / "docs" / page).is_file(), page


def test_links_between_pages_resolve() -> None:
    import re

    broken = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken


def test_a_third_party_plugin_does_not_make_the_reference_stale(tmp_path: Path, capsys) -> None:
    import types

    from pypto_core.cli import main
    from pypto_core.plugins.host import register_in_process_plugin, reload_plugins

    module = types.ModuleType("docs_extra")
    exec("from pypto.plugin import ArgSpec, OpDef, hookimpl\n\n@hookimpl\ndef pypto_register_ops(registry):\n"
         "    registry.register_op(OpDef('docsextra.twice', lambda a, k: a[0].type, args=(ArgSpec('x'),)))\n",
         module.__dict__)
    register_in_process_plugin("docs_extra", module)
    try:
        assert main(["docs", "--check", "--out", str(REFERENCE)]) == 0
        err = capsys.readouterr().err
        assert "left out: docs_extra (<registered in process>) (--all-plugins includes them)" in err
        assert main(["docs", "--all-plugins", "--out", str(tmp_path)]) == 0
        assert "docsextra.twice" in (tmp_path / "ops.md").read_text(encoding="utf-8")
        assert "docsextra.twice" not in (REFERENCE / "ops.md").read_text(encoding="utf-8")
    finally:
        reload_plugins(disabled=[], extra=[])
