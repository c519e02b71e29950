"""Program texts the test suite itself holds, as extra starting texts of the campaign (`--suite-share`).

The generator (strategies.py) writes no hand-made AIC / AIV / Group functions or explicit cross-core pipes; the
suite's tests do (tests/interp, plugins/*/tests, ...). Every string constant of a test module that holds a whole
`@pl.program` text (and imports pypto.language) is a seed: the campaign mutates it like a generated program.
The fuzz package's own modules are left out (their reproducers are already findings).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

_MAX_CHARS = 6000  # a seed the mutators can still shrink in a few seconds


@cache
def suite_program_texts(root: str = ".") -> tuple[str, ...]:
    base = Path(root)
    paths = sorted(base.glob("tests/**/*.py")) + sorted(base.glob("plugins/*/tests/*.py"))
    out: list[str] = []
    for path in paths:
        if "fuzz" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "@pl.program" in node.value \
                    and "import pypto.language" in node.value and len(node.value) <= _MAX_CHARS:
                out.append(node.value)
    return tuple(dict.fromkeys(out))
