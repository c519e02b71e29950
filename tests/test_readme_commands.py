"""Everything the README tells a user to type works.

* every `pypto ...` command of the README's shell blocks runs, as a subprocess, in a fresh directory holding
  the README's example files (`examples/`), and exits 0;
* every concrete `pypto ...` command quoted inline in the prose (`Try \\`pypto run ...\\``) runs the same way
  (in-process, for speed); a quote that is a synopsis with placeholders (`pypto compile FILE`) or that names a
  command without a program (`pypto compile` reads ...) is not a command line. One quoted command needs a file
  the README itself says only a failing compile writes (`pypto reduce pypto-reproducer.py`): no example in the
  README fails, so it cannot be run and is listed, with that reason, in UNRUNNABLE;
* every pipeline string quoted inline (`lower_auto_vector_split{synthesize_regions=true}`, `--pipeline '...'`)
  resolves against the registered passes and their options;
* every ```toml block is validated: a `pypto.toml` block with the config loader
  (`parse_config_text` + `resolve_config`), and again with each commented-out assignment uncommented (it is
  an alternative to the other keys of its table: `# passes = [...]` instead of `preset = ...`), with the
  README's own example plugin (its ```python block `# toyext_plugin/plugin.py`) loaded under the
  entry-point name its ```toml pyproject fragment declares; that fragment is checked to use the entry-point
  group pypto reads.

Lines of the shell blocks that are not `pypto` commands (`pip install -e .`, `python -m pytest`) set up the
environment this test already runs in, or would run this test suite recursively: they are not run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from pypto_core.cli import main
from pypto_core.config import CliOverrides, LoadedConfig, PyptoConfig, parse_config_text, resolve_config
from pypto_core.plugins.host import ENTRY_POINT_GROUP, reload_plugins

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
SHELL_LANGS = {"sh", "bash", "shell", "console"}
# Quoted commands that cannot run here, and why.
UNRUNNABLE = {
    "pypto reduce pypto-reproducer.py": "needs the reproducer a failing `pypto compile` writes; no README example fails",
}


def fenced_blocks(text: str) -> list[tuple[str, str, int]]:
    """(language, body, line of the opening fence) of every fenced block."""
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
            for m in re.finditer(r"^```(\w*)[^\n]*\n(.*?)^```", text, flags=re.S | re.M)]


def prose(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def inline_spans(text: str) -> list[str]:
    """Inline code spans of the prose, whitespace normalised (a span may continue on the next line)."""
    return [" ".join(m.group(1).split()) for m in re.finditer(r"`([^`]+)`", prose(text))]


def shell_commands(text: str) -> list[str]:
    """The `pypto ...` commands of the shell blocks (`a && pypto b` gives `pypto b`)."""
    out = []
    for lang, body, _ in fenced_blocks(text):
        if lang not in SHELL_LANGS:
            continue
        for raw in body.replace("\\\n", " ").splitlines():
            line = raw.strip()
            line = line[2:] if line.startswith("$ ") else line
            line = re.sub(r"\s+#\s.*$", "", line)  # a trailing shell comment
            if not line or line.startswith("#"):
                continue
            for segment in re.split(r"\s*(?:&&|;|\|\|)\s*", line):
                if segment.startswith("pypto ") or segment == "pypto":
                    out.append(segment)
    return out


def _is_placeholder(token: str) -> bool:
    return bool(re.fullmatch(r"[A-Z][A-Z_]*", token)) or "..." in token or "|" in token


def inline_commands(text: str) -> tuple[list[str], list[str]]:
    """(commands to run, quotes that are not command lines) among the inline `pypto ...` spans."""
    run, not_commands = [], []
    for span in inline_spans(text):
        if not span.startswith("pypto "):
            continue
        argv = shlex.split(span)[1:]
        positional = [a for a in argv[1:] if not a.startswith("-")]
        if any(_is_placeholder(a) for a in argv) or (argv[0] in ("compile", "run", "reduce") and not positional):
            not_commands.append(span)
        elif span not in run:
            run.append(span)
    return run, not_commands


def pipeline_strings(text: str) -> list[str]:
    """Pipeline strings quoted inline: `--pipeline 'S'`, `--pipeline S` and bare `name{key=value}`."""
    out = []
    for span in inline_spans(text):
        for m in re.finditer(r"--pipeline\s+(?:'([^']*)'|\"([^\"]*)\"|(\S+))", span):
            spec = next(g for g in m.groups() if g is not None)
            if not _is_placeholder(spec):
                out.append(spec)
        if re.fullmatch(r"[a-z_][\w,]*\{[^{}]*\}[\w,{}=]*", span) and "..." not in span:  # not the syntax
            out.append(span)
    return list(dict.fromkeys(out))


TEXT = README.read_text(encoding="utf-8")
SHELL = shell_commands(TEXT)
INLINE, NOT_COMMANDS = inline_commands(TEXT)


@pytest.fixture
def example_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh directory with the README's example files, as cwd; no pypto.toml."""
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def clean_host() -> Iterator[None]:
    reload_plugins(disabled=[], extra=[])
    try:
        yield
    finally:
        reload_plugins(disabled=[], extra=[])


def test_the_readme_has_commands_to_run():
    assert "pypto compile examples/basic.py" in SHELL
    assert INLINE, "no inline pypto command found"


@pytest.mark.parametrize("command", SHELL)
def test_a_shell_block_command_runs(command: str, example_dir: Path):
    exe = shutil.which("pypto")
    argv = [exe] if exe else [sys.executable, "-m", "pypto_core.cli"]
    env = {k: v for k, v in os.environ.items() if k not in ("PYPTO_DISABLE_PLUGINS",)}
    done = subprocess.run(argv + shlex.split(command)[1:], cwd=example_dir, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, f"`{command}` exited {done.returncode}:\n{done.stderr}"


@pytest.mark.parametrize("command", [c for c in INLINE if c not in UNRUNNABLE])
def test_an_inline_command_runs(command: str, example_dir: Path, clean_host: None, capsys):
    code = main(shlex.split(command)[1:])
    err = capsys.readouterr().err
    assert code == 0, f"`{command}` exited {code}:\n{err}"


def test_only_the_listed_inline_commands_are_not_run():
    assert set(UNRUNNABLE) <= set(INLINE), "an UNRUNNABLE entry is no longer in the README"
    for quote in NOT_COMMANDS:  # synopses and mentions of a command, never a runnable line
        argv = shlex.split(quote)[1:]
        assert any(_is_placeholder(a) for a in argv) or len([a for a in argv if not a.startswith("-")]) == 1, quote


@pytest.mark.parametrize("spec", pipeline_strings(TEXT))
def test_an_inline_pipeline_string_resolves(spec: str, clean_host: None):
    resolved = resolve_config(LoadedConfig(PyptoConfig(), "<README>"), CliOverrides(pipeline=spec))
    assert resolved.passes or not spec.strip()  # `--pipeline ''` runs no pass


def test_the_pipeline_strings_include_the_option_examples():
    specs = pipeline_strings(TEXT)
    assert any("{" in s for s in specs), specs


# -- ```toml blocks ------------------------------------------------------------------------------------------
def toml_blocks() -> list[tuple[str, int]]:
    return [(body, line) for lang, body, line in fenced_blocks(TEXT) if lang == "toml"]


def is_pyproject(body: str) -> bool:
    return bool(re.search(r"^\[project[.\]]", body, flags=re.M))


def readme_plugin() -> tuple[str, types.ModuleType]:
    """The README's example plugin, under the entry-point name its pyproject fragment declares."""
    (code,) = [body for lang, body, _ in fenced_blocks(TEXT) if lang == "python" and body.startswith("# ")
               and "/plugin.py" in body.splitlines()[0]]
    module_path = code.splitlines()[0][2:].strip().removesuffix(".py").replace("/", ".")
    ((name, target),) = [(n, t) for body, _ in toml_blocks() if is_pyproject(body)
                         for n, t in tomllib.loads(body)["project"]["entry-points"][ENTRY_POINT_GROUP].items()]
    assert target.split(":")[0] == module_path, "the entry point names another module than the plugin's file"
    module = types.ModuleType(module_path)
    exec(compile(code, f"README.md:{module_path}", "exec"), module.__dict__)
    return name, module


def variants(body: str) -> list[tuple[str, str]]:
    """(description, text): the block, then the block with each commented-out assignment uncommented in place
    of the other keys of its table."""
    lines = body.splitlines()
    out = [("as written", body)]
    table_of: list[int] = []  # the index of each line's table header (-1: the root table)
    current = -1
    for i, line in enumerate(lines):
        if re.match(r"^\s*\[", line):
            current = i
        table_of.append(current)
    for i, line in enumerate(lines):
        if not re.match(r"^#\s*[A-Za-z_][\w.-]*\s*=", line):
            continue
        changed = []
        for j, other in enumerate(lines):
            if j == i:
                changed.append(re.sub(r"^#\s*", "", other))
            elif table_of[j] == table_of[i] and re.match(r"^\s*[A-Za-z_][\w.-]*\s*=", other) and j != table_of[i]:
                changed.append("# " + other)
            else:
                changed.append(other)
        out.append((f"line {i + 1} uncommented", "\n".join(changed) + "\n"))
    return out


def test_the_pyproject_fragment_uses_pyptos_entry_point_group():
    fragments = [body for body, _ in toml_blocks() if is_pyproject(body)]
    assert fragments
    for body in fragments:
        groups = tomllib.loads(body)["project"]["entry-points"]
        assert ENTRY_POINT_GROUP in groups, f"the README's entry point group is not {ENTRY_POINT_GROUP!r}"


CONFIG_BLOCKS = [(body, line) for body, line in toml_blocks() if not is_pyproject(body)]


@pytest.mark.parametrize("body,line", CONFIG_BLOCKS, ids=[f"README.md:{line}" for _, line in CONFIG_BLOCKS])
def test_a_config_block_is_accepted_by_the_loader(body: str, line: int, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch, clean_host: None):
    monkeypatch.chdir(tmp_path)
    name, module = readme_plugin()
    for what, text in variants(body):
        reload_plugins(disabled=[], extra=[(name, module)])
        loaded = parse_config_text(text, f"README.md:{line} ({what})")
        resolved = resolve_config(loaded)
        assert resolved.passes, what


def test_the_first_config_block_has_alternatives_to_check():
    body, _ = CONFIG_BLOCKS[0]
    assert len(variants(body)) >= 3  # `# passes = [...]` and the commented pass option
