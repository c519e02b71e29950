"""ConvertTensorToTileOps, phase 2a (docs/passes/convert_tensor_to_tile_ops.md, new outputs): a Spmd or Group wrapper
whose kernel gained Out parameters takes them as its own (same names and types, Out) and forwards them to its first
call of that kernel; its callers allocate them. Every program runs before and after the pass."""

from __future__ import annotations

import pytest

from .ctto_forms import body, converted, lines

WRAPPED = '''
@pl.program
class W:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.add(x, 1.0)
        return y
    @pl.function(type=pl.FunctionType.WRAPPER)
    def w(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        CALLS
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = self.w(x)
        return y
'''


def signature(program, name: str) -> str:  # type: ignore[no-untyped-def]
    from pypto import ir

    return ir.python_print(program.get_function(name), format=False).splitlines()[1]


@pytest.mark.parametrize("wrapper", ["Spmd", "Group"])
def test_a_wrapper_takes_its_kernels_new_output_and_forwards_it(wrapper: str) -> None:
    src = WRAPPED.replace("WRAPPER", wrapper).replace("CALLS", "y = self.k(x)\n        return y")
    program = converted(src)
    assert signature(program, "w").endswith(
        "ret0__out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:"), signature(program, "w")
    assert lines(program, "w") == ["y__ssa_v0: pl.Tensor[[16, 64], pl.FP32] = k(x__ssa_v0, ret0__out)",
                                   "return y__ssa_v0"]
    assert body(program, "main").splitlines()[:2] == [
        "ret0__out: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32, "
        "layout=pl.TensorLayout.ND)",
        "y__ssa_v0: pl.Tensor[[16, 64], pl.FP32] = w(x__ssa_v0, ret0__out)"]


def test_a_second_kernel_call_in_the_wrapper_allocates_its_own_output() -> None:
    src = WRAPPED.replace("WRAPPER", "Spmd").replace(
        "CALLS", "y = self.k(x)\n        z = self.k(y)\n        return z")
    program = converted(src)
    text = body(program, "w")
    assert "= k(x__ssa_v0, ret0__out)" in text, text
    assert "ret0__out_1: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create(" in text, text
    assert "= k(y__ssa_v0, ret0__out_1)" in text, text
