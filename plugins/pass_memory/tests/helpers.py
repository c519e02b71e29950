"""Shared steps of the memory-pass tests: programs in the post-InitMemRef form, running a pass on a backend,
reading addresses, and executing by address on the reference machine (docs/memory_planning.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import pypto.language as pl
from pypto import ir, passes
from pypto_core.backend.registry import get_backend
from pypto_core.interp.inputs import copy_inputs, make_inputs
from pypto_core.interp.machine import Machine
from pypto_core.interp.outputs import collect_outputs, compare_outputs
from pypto_core.passes.instruments.assemble import pass_test_instruments

BACKENDS = ("Ascend910B", "Ascend950")
HEADER = "import pypto.language as pl\n\n@pl.program\nclass P:\n"


def program(*functions: str) -> ir.Program:
    """A program from function texts written at class-body indentation (4 spaces)."""
    return pl.parse(HEADER + "\n".join(functions))


def run_pass(make: Callable[[], Any], before: ir.Program, backend: str = "Ascend910B", **context: Any) -> ir.Program:
    """The pass on `before` under verification + round trip, on `backend` (and planner options)."""
    with passes.PassContext(pass_test_instruments(), backend=backend, **context):
        return make()(before)


def memref(prog: ir.Program, var: str, func: str = "k") -> Any:
    """The MemRef of the variable named `var` (its last binding) in `func`."""
    found = None
    f = prog.get_function(func)
    for v in list(f.params) + _defined(f):
        if v.name_hint == var:
            found = v
    assert found is not None, f"no variable {var} in {func}"
    return found.type.memref


def _defined(f: Any) -> list:
    from pypto_plugins.pass_memory.memrefs import bound_vars

    return bound_vars(f)


def address(prog: ir.Program, var: str, func: str = "k") -> int:
    return memref(prog, var, func).byte_offset_.value


def base(prog: ir.Program, var: str, func: str = "k") -> str:
    return memref(prog, var, func).name_hint


def run_by_address(prog: ir.Program, backend: str, entry: str = "k", seed: int = 0,
                   addresses: bool = True, **given: Any) -> dict[str, Any]:
    """The outputs of `entry` run on the machine (by address unless `addresses=False`); `given` inputs replace
    generated ones (a scalar flag)."""
    machine = Machine(prog, backend=get_backend(backend), addresses=addresses)
    func = machine.entry_function(entry)
    inputs = {**make_inputs(func, seed=seed), **given}
    args = copy_inputs(inputs)
    returned = machine.run(func.name, args)
    return collect_outputs(func, args, returned)


def assert_same_outputs(before: ir.Program, after: ir.Program, backend: str, entry: str = "k", **given: Any) -> None:
    """`after`, executed by address, computes what `before` computes (also by address) on `backend`; both agree
    with the value-semantics run of `before`."""
    expected = run_by_address(before, backend, entry, addresses=False, **given)
    for which, prog in (("before", before), ("after", after)):
        checks = compare_outputs(expected, run_by_address(prog, backend, entry, **given))
        assert checks
        bad = [f"{c.label}: {c.comparison.describe()}" for c in checks if not c.comparison.ok]
        assert not bad, f"{which} the pass, by address on {backend}: " + "; ".join(bad)


def outputs_differ(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return any(not np.array_equal(np.asarray(a[k]), np.asarray(b[k]), equal_nan=True) for k in a)


def body_lines(prog: ir.Program, func: str = "k") -> list[str]:
    return [line.strip() for line in ir.python_print(prog.get_function(func)).splitlines()
            if line.strip() and not line.strip().startswith(("def ", "@", "return"))]
