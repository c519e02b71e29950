"""Control flow on the machine: carried loops, ifs with return vars, both while forms, break /
continue, scopes run in place, calls between functions, scalar arithmetic."""

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import Machine, MachineError, make_inputs, run_program


def run(text: str, **inputs):
    program = pl.parse(text)
    machine = Machine(program)
    return machine.run(inputs=inputs)


def test_for_with_carries_and_yield():
    text = """
import pypto.language as pl

@pl.function
def main(x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
    for i, (acc, s) in pl.range(1, 5, init_values=(x, pl.const(0, pl.INT32))):
        nxt = pl.add(acc, x)
        s2 = s + pl.cast(i, pl.INT32)
        out, total = pl.yield_(nxt, s2)
    res = pl.mul(out, pl.cast(total, pl.FP32))
    return res
"""
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(run(text, x=x), 5 * x * 10)  # 4 adds; total = 1 + 2 + 3 + 4


def test_for_with_zero_iterations_returns_the_initial_values():
    text = """
import pypto.language as pl

@pl.function
def main(x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
    for i, (acc,) in pl.range(n, init_values=(x,)):
        out = pl.yield_(pl.add(acc, x))
    return out
"""
    x = np.ones(8, np.float32)
    np.testing.assert_array_equal(run(text, x=x, n=0), x)
    np.testing.assert_array_equal(run(text, x=x, n=3), 4 * x)


def test_if_with_return_vars_and_scalar_compare():
    text = """
import pypto.language as pl

@pl.function
def main(x: pl.Tensor[[4], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[4], pl.FP32]:
    if n % 2 == 0:
        y = pl.yield_(pl.add(x, 1.0))
    else:
        y = pl.yield_(pl.mul(x, 3.0))
    return y
"""
    x = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(run(text, x=x, n=4), x + 1)
    np.testing.assert_array_equal(run(text, x=x, n=5), x * 3)


def test_while_both_forms_break_and_continue():
    text = """
import pypto.language as pl

@pl.function
def main(n: pl.Scalar[pl.INDEX]) -> tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]]:
    for (k, acc) in pl.while_(init_values=(0, 0)):
        pl.cond(k < n)
        k2 = k + 1
        a2 = acc + k
        kk, aa = pl.yield_(k2, a2)
    m = 0
    while m * m < n:
        m = m + 1
    odd = 0
    for i in pl.range(100):
        if i >= n:
            break
        if i % 2 == 0:
            continue
        odd = odd + i
    return aa, m, odd
"""
    assert run(text, n=10) == (45, 4, 1 + 3 + 5 + 7 + 9)
    assert all(type(v) is np.int64 for v in run(text, n=10))  # INDEX scalars are numpy int64


def test_scopes_run_in_place_and_calls_pass_tensors_by_reference():
    text = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(src: pl.Tensor[[16, 16], pl.FP32], row: pl.Scalar[pl.INDEX], dst: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.load(src, [row, 0], [4, 16])
        dst = pl.store(pl.muls(t, 2.0), [row, 0], dst)
        return dst

    @pl.function
    def main(src: pl.Tensor[[16, 16], pl.FP32], dst: pl.InOut[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        for i in pl.range(0, 16, 8):
            with pl.at(level=pl.Level.CORE_GROUP):
                dst = self.fill(src, i, dst)
        return dst
"""
    program = pl.parse(text)
    inputs = make_inputs(program.get_function("main"), seed=0)
    before = inputs["dst"].copy()
    out = run_program(program, inputs)
    want = before.copy()
    for r in (0, 8):
        want[r:r + 4] = 2 * inputs["src"][r:r + 4]
    np.testing.assert_array_equal(out["dst"], want)  # InOut: untouched rows keep their input values
    np.testing.assert_array_equal(out["return"], want)


def test_split_aiv_region_runs_both_lanes():
    # A split_aiv region (docs/dsl.md, splitting vector work across the two AIV lanes): each lane exponentiates
    # its half of the rows.
    text = """
import pypto.language as pl

@pl.program
class Region:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="half_exp", optimizations=[pl.cross_core_slot(slot_num=4)]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                base = aiv_id * 64
                t = pl.load(a, [base, 0], [64, 64])
                out = pl.store(pl.exp(t), [base, 0], out)
        return out
"""
    program = pl.parse(text)
    inputs = make_inputs(program.get_function("main"), seed=8)
    out = run_program(program, inputs)
    np.testing.assert_allclose(out["out"], np.exp(inputs["a"]), rtol=1e-6)


def test_reading_a_variable_before_it_is_assigned_names_it():
    text = """
import pypto.language as pl

@pl.function
def main(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    if n > 100:
        y = n + 1
    return y
"""
    with pytest.raises(MachineError, match="variable 'y' is read before it is assigned"):
        run(text, n=3)


def test_dynamic_dims_are_bound_from_the_argument_shapes():
    text = """
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class Dyn:
    @pl.function(type=pl.FunctionType.InCore)
    def k(a: pl.Tensor[[M, 32], pl.FP32], out: pl.Out[pl.Tensor[[M, 32], pl.FP32]]) -> pl.Tensor[[M, 32], pl.FP32]:
        for i in pl.range(0, M, 16):
            t = pl.load(a, [i, 0], [16, 32])
            out = pl.store(pl.exp(t), [i, 0], out)
        return out

    @pl.function
    def main(a: pl.Tensor[[M, 32], pl.FP32], out: pl.Out[pl.Tensor[[M, 32], pl.FP32]]) -> pl.Tensor[[M, 32], pl.FP32]:
        r = self.k(a, out)
        return r
"""
    program = pl.parse(text)
    assert make_inputs(program.get_function("main"))["a"].shape == (128, 32)  # the documented default
    a = np.linspace(-1, 1, 48 * 32, dtype=np.float32).reshape(48, 32)
    out = run_program(program, {"a": a, "out": np.zeros_like(a)})
    np.testing.assert_allclose(out["out"], np.exp(a), rtol=1e-6)


@pytest.mark.parametrize("taken", [0, 1])
def test_an_if_without_return_vars_in_a_function_body_ends_its_branch_not_the_function(taken):
    # ExpandMixedKernel leaves `if c: ...; pl.yield_() else: pl.yield_()` in an AIV body; the branch's empty
    # yield is not the function's return, so the statements after the if (a second store) run.
    text = """
import pypto.language as pl

@pl.function(type=pl.FunctionType.InCore)
def main(x: pl.Tensor[[8, 8], pl.FP32], n: pl.Scalar[pl.INDEX], a: pl.Out[pl.Tensor[[8, 8], pl.FP32]],
         b: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> tuple[pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[8, 8], pl.FP32]]:
    t = pl.load(x, [0, 0], [8, 8])
    if n > 0:
        s = pl.store(t, [0, 0], a)
        pl.yield_()
    else:
        pl.yield_()
    s2 = pl.store(pl.neg(t), [0, 0], b)
    return a, b
"""
    x = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = Machine(pl.parse(text)).run(inputs={"x": x, "n": taken, "a": np.zeros_like(x), "b": np.zeros_like(x)})
    first, second = out
    np.testing.assert_array_equal(first, x if taken else np.zeros_like(x))
    np.testing.assert_array_equal(second, -x)
