"""PassPipeline: PyPTO's list of passes run with property verification (docs/architecture.md, the pass manager).

`run` takes the verification level from the current PassContext (else `PYPTO_VERIFY_LEVEL`, else
`basic`) and runs the passes in the one run loop (runner.py) with PyPTO's checks: the structural
properties on the input, then after each pass the properties it produced that PyPTO verifies and that
were not verified since; at `roundtrip`, print -> parse -> equality after each pass.
"""

from __future__ import annotations

from typing import Any

from pypto_core.passes.context import PassContext
from pypto_core.passes.instruments.assemble import assemble
from pypto_core.passes.runner import run_pipeline
from pypto_core.passes.verification_level import level_from_env


class PassPipeline:
    def __init__(self) -> None:
        self._passes: list[Any] = []

    def add_pass(self, p: Any) -> None:
        self._passes.append(p)

    def get_passes(self) -> list[Any]:
        return list(self._passes)

    def get_pass_names(self) -> list[str]:
        return [p.get_name() for p in self._passes]

    def run(self, program: Any) -> Any:
        ctx = PassContext.current()
        level = ctx.get_verification_level() if ctx is not None else level_from_env()
        assembly = assemble(level, pypto_pipeline=True)
        if not assembly.context and ctx is not None:  # the run uses the context as it is
            return run_pipeline(self._passes, program, assembly.checks)
        with (ctx or PassContext()).extended(assembly.context, level):
            return run_pipeline(self._passes, program, assembly.checks)
