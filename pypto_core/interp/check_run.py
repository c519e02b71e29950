"""The check-run instrument: run the program on the reference machine before and after every pass,
on the same inputs, and fail naming the pass, the output and the first differing index
(`verify = "check-run"` in pypto.toml, `--verify check-run`; docs/architecture.md, the reference machine).

Each program is executed once: the outputs after a pass are the reference for the next one.
Inputs are made from the entry function of the first program seen (inputs.make_inputs) unless
given; the entry is the same function, by name, in every later program.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pypto_core.interp.errors import CheckRunError, MachineError, PassCheckRunError
from pypto_core.interp.inputs import make_inputs
from pypto_core.interp.machine import Machine
from pypto_core.interp.outputs import compare_outputs, run_program
from pypto_core.interp.shape import CoreGroupShape
from pypto_core.interp.tolerance import Tolerance, reordered_accumulation_tolerances
from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.naming import describe_pass, pass_class_name, pass_label, pass_origin


class CheckRunInstrument(PassInstrument):
    name = "CheckRunInstrument"
    timing_label = "check-run (the machine)"

    def __init__(self, inputs: Mapping[str, Any] | None = None, seed: int = 0, entry: str | None = None,
                 shape: CoreGroupShape | None = None) -> None:
        self.inputs = dict(inputs) if inputs is not None else None
        self.seed = seed
        self.entry = entry
        self.shape = shape
        self._program: Any = None  # the program the reference outputs belong to
        self._outputs: dict[str, Any] | None = None
        self.runs = 0  # programs executed, for tests and timing

    def before_pass(self, p: Any, program: Any) -> None:
        if self._program is program:
            return
        try:
            self._outputs = self._run(program, f"given to {pass_label(p)}")
        except MachineError as exc:
            # the program as given is at fault here, not the pass: named as before, by class
            raise CheckRunError(f"check-run: the program given to pass '{pass_class_name(p)}' cannot be run on the "
                                f"reference machine: {exc}") from exc
        self._program = program

    def after_pass(self, p: Any, program: Any) -> None:
        if program is self._program:
            return  # unchanged
        name = pass_label(p)
        try:
            actual = self._run(program, f"after {name}")
        except MachineError as exc:
            raise PassCheckRunError(f"check-run: after pass {describe_pass(p)} the program no longer runs on the "
                                    f"reference machine: {exc}", name, pass_origin(p)[0]) from exc
        assert self._outputs is not None
        overrides = accumulation_tolerances(self._program) if getattr(p, "reorders_accumulation", False) else None
        for check in compare_outputs(self._outputs, actual, overrides):
            c = check.comparison
            if not c.ok:
                raise PassCheckRunError(f"check-run: pass {describe_pass(p)} changed what the program computes: output "
                                        f"'{check.label}': {c.describe()}", name, pass_origin(p)[0], output=check.label,
                                        index=c.first_index)
        self._program, self._outputs = program, actual

    def _run(self, program: Any, which: str = "") -> dict[str, Any]:
        from pypto_core.passes.context import PassContext

        ctx = PassContext.current()
        if ctx is not None and which:
            ctx.report(f"check-run: running the program {which} on the machine")
        if self.entry is None:
            self.entry = Machine(program, shape=self.shape).default_entry().name
        entry = Machine(program, shape=self.shape).entry_function(self.entry)
        if self.inputs is None:
            self.inputs = make_inputs(entry, self.seed)
        self.runs += 1
        # An Out buffer a pass added to the entry is allocated by run_program and compared as the result it backs.
        return run_program(program, self.inputs, self.entry, self.shape)


def accumulation_tolerances(program: Any) -> dict[str, Tolerance]:
    """The FP32 tolerance after a pass reordered the accumulations of `program` (tolerance.py): a product is a
    call whose result the registry places in Acc; with two or more products, one may feed another through a
    result narrowed to an operand dtype, so the narrower operand dtypes count."""
    from pypto_core.analysis.walk import op_calls
    from pypto_core.interp.dtypes import np_dtype
    from pypto_core.ir.enums import MemorySpace
    from pypto_core.ir.types import TileType
    from pypto_core.ops.registry import opdef_of

    products = [c for c in op_calls(program) if (d := opdef_of(c)) is not None and d.output_memory is not None
                and d.output_memory.fixed is MemorySpace.Acc]
    narrowed = []
    if len(products) >= 2:
        narrowed = [np_dtype(a.type.dtype) for c in products for a in c.args
                    if isinstance(a.type, TileType) and a.type.dtype.is_float() and a.type.dtype.get_bit() < 32]
    return reordered_accumulation_tolerances(narrowed)


def make_check_run_instrument(inputs: Mapping[str, Any] | None = None, seed: int = 0,
                              entry: str | None = None) -> CheckRunInstrument:
    return CheckRunInstrument(inputs=inputs, seed=seed, entry=entry)
