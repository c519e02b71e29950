"""The machine's input rules (docs/limits.md, the reference machine): too-large shapes are user errors before allocation, INT4 scalars fit,
user names ending in `_` survive pass renaming, and a lone Function is a program of one."""

from __future__ import annotations

import numpy as np
import pytest

from pypto import passes
from pypto_core.interp import make_inputs, run_program
from pypto_core.interp.errors import MachineError
from pypto_core.interp.inputs import base_name
from pypto_core.ir.function import Program, as_program
from pypto_core.language.api import parse


def function(text: str):
    """A one-function program (built here, not at module level: tests/tile scans module strings for programs)."""
    return parse("import pypto.language as pl\n" + "@pl.function\n" + text)


def test_a_shape_too_large_names_the_parameter_and_the_bytes(monkeypatch):
    f = function("def f(x: pl.Tensor[[100000, 100000], pl.FP32]) -> pl.Tensor[[100000, 100000], pl.FP32]:\n"
                     "    return x\n")
    with pytest.raises(MachineError, match=r"parameter 'x' of f: a \[100000, 100000\] array of float32 needs "
                                           r"40,000,000,000 bytes"):
        make_inputs(f)
    monkeypatch.setenv("PYPTO_MACHINE_MAX_BYTES", "100")
    small = function("def f(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:\n    return x\n")
    with pytest.raises(MachineError, match="limit of 100 bytes"):
        make_inputs(small)


def test_int4_scalars_are_drawn_in_range():
    f = function("def f(x: pl.Scalar[pl.INT4]) -> pl.Scalar[pl.INT4]:\n    return x\n")
    values = [int(make_inputs(f, seed=s)["x"]) for s in range(64)]
    assert all(1 <= v <= 7 for v in values)


@pytest.mark.parametrize(("name", "base"), [("x___ssa_v0", "x_"), ("x__ssa_v0", "x"), ("out__ssa_v1_lane", "out"),
                                            ("a__iter_v2", "a"), ("x_", "x_"), ("y__store", "y")])
def test_base_names(name, base):
    assert base_name(name) == base


def test_a_parameter_ending_in_underscore_keeps_its_outputs_after_ssa():
    f = function("def f(x_: pl.Tensor[[16, 64], pl.FP32], x: pl.Tensor[[16, 64], pl.FP32]) -> "
                     "pl.Tensor[[16, 64], pl.FP32]:\n    y = pl.sub(x_, x)\n    return y\n")
    after = passes.convert_to_ssa()(f)
    a, b = np.ones((16, 64), np.float32), np.full((16, 64), 3.0, np.float32)
    np.testing.assert_array_equal(run_program(after, {"x_": a, "x": b})["return"], a - b)


def test_a_lone_function_is_a_program_of_one_for_passes():
    f = function("def f(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:\n    return x\n")
    out = passes.convert_to_ssa()(f)
    assert isinstance(out, Program) and [g.name for g in out.functions.values()] == ["f"]
    assert as_program(out) is out
    with pytest.raises(TypeError, match="expected a Program or a Function"):
        as_program(3)  # type: ignore[arg-type]


def test_a_write_used_as_a_statement_updates_its_tile():
    program = parse("import pypto.language as pl\n" + "@pl.program\nclass P:\n"
                    "    @pl.function(type=pl.FunctionType.InCore)\n"
                    "    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) "
                    "-> pl.Tensor[[16, 64], pl.FP32]:\n"
                    "        t = pl.load(x, [0, 0], [16, 64])\n"
                    "        pl.write(t, [0, 3], 5.0)\n"
                    "        out = pl.store(t, [0, 0], out)\n"
                    "        return out\n")
    x = np.ones((16, 64), np.float32)
    got = run_program(program, {"x": x, "out": np.zeros((16, 64), np.float32)})["out"]
    want = x.copy()
    want[0, 3] = 5.0
    np.testing.assert_array_equal(got, want)
    after = passes.convert_to_ssa()(program)
    np.testing.assert_array_equal(run_program(after, {"x": x, "out": np.zeros((16, 64), np.float32)})["out"], want)


def test_an_allocation_by_an_op_is_bounded_too(monkeypatch):
    monkeypatch.setenv("PYPTO_MACHINE_MAX_BYTES", "1000")
    f = function("def f(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:\n"
                 "    y = pl.full([64, 64], pl.FP32, 1.0)\n    return y\n")
    with pytest.raises(MachineError, match=r"tensor.full: a \[64, 64\] array of float32 needs 16,384 bytes"):
        run_program(f, {"x": np.zeros((16, 64), np.float32)})


_HUGE_LOOP = """
import pypto.language as pl

@pl.function
def main(n: pl.Scalar[pl.INDEX], m: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    v = n
    for i in pl.range(m):
        for j in pl.range(m):
            v = v + j
    return v
"""


def test_a_run_past_the_iteration_bound_is_a_located_error_before_the_loop_runs(monkeypatch):
    # Unbounded, pl.range(2147483648) would make check-run hang. One run may make
    # MAX_ITERATIONS loop iterations, nested ones included.
    program = parse(_HUGE_LOOP)
    with pytest.raises(MachineError, match=r"past 1,000,000 loop iterations .* PYPTO_MACHINE_MAX_ITERATIONS") as info:
        run_program(program, {"n": 0, "m": 2_000_000})  # the outer loop alone is refused at once
    assert info.value.span.begin_line == 7
    with pytest.raises(MachineError, match="past 1,000,000 loop iterations") as info:
        run_program(program, {"n": 0, "m": 1001})  # 1001 + 1001 * 1001 iterations: an inner loop passes it
    assert info.value.span.begin_line == 8
    assert int(run_program(program, {"n": 0, "m": 100})["return"]) == 100 * 4950
    monkeypatch.setenv("PYPTO_MACHINE_MAX_ITERATIONS", "50")
    with pytest.raises(MachineError, match="past 50 loop iterations"):
        run_program(program, {"n": 0, "m": 10})
