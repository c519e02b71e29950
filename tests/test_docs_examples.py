"""The runnable examples of docs/dsl.md parse, run on the reference machine, and compile to the same results.

A block fenced as ```python runnable [pipeline=NAME] [dims=M=48,N=16] is a whole program: it is parsed with
`pypto_core.language.api.parse` (never executed), run with random inputs, and, with `pipeline=`, compiled
through that preset and run again on the same inputs; the outputs must agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

DSL_GUIDE = Path(__file__).resolve().parent.parent / "docs" / "dsl.md"
_FENCE = re.compile(r"^```python runnable(?P<info>[^\n]*)\n(?P<code>.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Example:
    line: int
    code: str
    pipeline: str | None
    dims: dict[str, int]

    @property
    def id(self) -> str:
        return f"dsl.md:{self.line}"


def _examples() -> list[Example]:
    text = DSL_GUIDE.read_text(encoding="utf-8")
    found = []
    for m in _FENCE.finditer(text):
        options = dict(opt.split("=", 1) for opt in m.group("info").split() if "=" in opt)
        dims = {}
        if "dims" in options:
            for item in options["dims"].split(","):
                name, value = item.split("=")
                dims[name] = int(value)
        found.append(Example(text.count("\n", 0, m.start()) + 1, m.group("code"), options.get("pipeline"), dims))
    return found


EXAMPLES = _examples()


def test_the_guide_has_runnable_examples() -> None:
    assert len(EXAMPLES) >= 10, [e.id for e in EXAMPLES]


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example_parses_and_runs(example: Example) -> None:
    from pypto_core.interp import Machine, compare_outputs, make_inputs, run_program
    from pypto_core.ir.function import Function, Program
    from pypto_core.language.api import parse

    parsed = parse(example.code, example.id)
    program = parsed if isinstance(parsed, Program) else Program([parsed], parsed.name)
    entry = Machine(program).entry_function(None)
    assert isinstance(entry, Function)
    inputs = make_inputs(entry, seed=0, dims=example.dims)
    before = run_program(program, inputs)
    assert before, f"{example.id}: the program has no outputs"
    if example.pipeline is None:
        return
    from pypto import passes
    from pypto_core.passes.manager import PassManager
    from pypto_core.passes.registry import PIPELINES

    pipeline = [getattr(passes, name)() for name in PIPELINES.require(example.pipeline)]
    compiled = PassManager(pipeline, verify="basic").run(program)
    after = run_program(compiled, inputs)
    bad = [c for c in compare_outputs(before, after) if not c.comparison.ok]
    assert not bad, f"{example.id}: compiled program differs: {bad}"
