"""A kernel's results are its own tensors (pypto_core/interp/kernel_results.py; docs/architecture.md, the reference machine): a view an
InCore function returns, or a view leaving a CORE_GROUP scope of an orchestration, reaches the caller as a
copy, as ConvertTensorToTileOps compiles it (a tile stored into a new Out parameter); a parameter returned as
it is stays the caller's tensor."""

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import make_inputs, run_program
from pypto_core.testing import checked_pipeline

# The kernel returns a window of x; the caller overwrites the window, then reads x's window again.
RETURNED_SLICE = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def top(self, x: pl.Tensor[[64, 32], pl.FP32]) -> pl.Tensor[[32, 32], pl.FP32]:
        y = pl.slice(x, [32, 32], [0, 0])
        return y

    @pl.function
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], z: pl.Tensor[[32, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        h = self.top(x)
        w = pl.assemble(h, z, [0, 0])
        h2 = self.top(x)
        out = pl.assemble(out, h2, [0, 0])
        return out
'''

# The same through CORE_GROUP scopes (outlined into such kernels).
SCOPE_SLICE = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], z: pl.Tensor[[32, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            h = pl.slice(x, [32, 32], [32, 0])
        w = pl.assemble(h, z, [0, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            h2 = pl.slice(x, [32, 32], [32, 0])
        out = pl.assemble(out, h2, [0, 0])
        return out
'''

# A reshape view in a tuple beside the Out parameter the kernel wrote.
RESHAPE_AND_OUT = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def top(self, x: pl.Tensor[[16, 32], pl.FP32],
            o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        t = pl.load(x, [0, 0], [16, 32])
        o = pl.store(pl.add(t, t), [0, 0], o)
        r = pl.reshape(x, [32, 16])
        return r, o

    @pl.function
    def main(self, x: pl.Tensor[[16, 32], pl.FP32], z: pl.Tensor[[32, 16], pl.FP32],
             o: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        r, o2 = self.top(x, o)
        w = pl.assemble(r, z, [0, 0])
        o3 = pl.assemble(o2, pl.slice(x, [16, 32], [0, 0]), [0, 0])
        return o3
'''


def _run(text: str) -> tuple[dict, dict]:
    program = pl.parse(text, "kernel_results.py")
    inputs = make_inputs(program.get_function("main"), seed=3)
    return inputs, run_program(program, inputs)


def test_a_caller_writing_into_a_returned_window_leaves_the_kernel_argument_alone():
    inputs, result = _run(RETURNED_SLICE)
    np.testing.assert_array_equal(result["out"], inputs["x"][:32])


def test_a_window_leaving_a_core_group_scope_is_the_scope_kernel_result():
    inputs, result = _run(SCOPE_SLICE)
    np.testing.assert_array_equal(result["out"], inputs["x"][32:])


def test_a_returned_out_parameter_stays_the_callers_tensor_and_a_returned_reshape_is_a_copy():
    inputs, result = _run(RESHAPE_AND_OUT)
    # o3 writes x (unchanged by the write into the reshape) into the Out tensor the kernel returned.
    np.testing.assert_array_equal(result["o"], inputs["x"])
    np.testing.assert_array_equal(result["return"], inputs["x"])


@pytest.mark.parametrize("text", [RETURNED_SLICE, SCOPE_SLICE, RESHAPE_AND_OUT], ids=["call", "scope", "tuple"])
@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_the_default_pipeline_keeps_the_results(text: str, backend: str) -> None:
    # check-run compares the program before and after every pass on the machine.
    checked_pipeline(backend).run(pl.parse(text, "kernel_results.py"))
