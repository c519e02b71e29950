"""CtrlFlowTransform and Simplify in PyPTO's order among today's passes, every step checked on the reference
machine (check-run) with the print -> parse round trip: kernels with break / continue compile and run."""

from __future__ import annotations

import pytest

from pypto import passes
from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
from pypto_core.passes.manager import PassManager
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry
from pypto_plugins.pass_canonicalize.tests.helpers import program

PYPTO_ORDER = ["ctrl_flow_transform", "convert_to_ssa", "simplify", "normalize_stmt_structure",
               "outline_incore_scopes", "convert_tensor_to_tile_ops", "flatten_tile_nd_to_2d",
               "infer_tile_memory_space", "lower_auto_vector_split", "expand_mixed_kernel", "split_vector_kernel"]

KERNEL_LOOP = '''
@pl.program
class Rows:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
          n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            if i == 1:
                continue
            if i > n:
                break
            t = pl.load(a, [i * 64, 0], [64, 128])
            out = pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
        return out

    @pl.function
    def main(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
             n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
        out = self.k(a, out, n)
        return out
'''

CARRIED_LOOP = '''
@pl.program
class Carried:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
          n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i, (o,) in pl.range(4, init_values=(out,)):
            if i == n:
                continue
            t = pl.load(a, [i * 64, 0], [64, 128])
            o2 = pl.store(pl.add(t, 1.0), [i * 64, 0], o)
            if i + 2 > n:
                break
            r = pl.yield_(o2)
        return r

    @pl.function
    def main(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
             n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
        out = self.k(a, out, n)
        return out
'''

WHILE_LOOP = '''
@pl.program
class Whiles:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
          n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
        TILE: pl.Scalar[pl.INDEX] = 64
        j = 0
        while j < 4:
            j = j + 1
            if j == 2:
                continue
            if j * 2 > n + 3:
                break
            t = pl.load(a, [(j - 1) * TILE + 0, 0], [TILE, 128])
            out = pl.store(pl.mul(t, 3.0), [(j - 1) * TILE, 0], out)
        return out

    @pl.function
    def main(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
             n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[256, 128], pl.FP32]:
        out = self.k(a, out, n)
        return out
'''


def _passes(names: list[str]) -> list:
    return [getattr(passes, name)() for name in names]


@pytest.mark.unverified
@pytest.mark.parametrize("src", [KERNEL_LOOP, CARRIED_LOOP, WHILE_LOOP], ids=["implicit", "carried", "while"])
def test_kernel_loops_with_break_and_continue_compile_and_run_in_pypto_order(src: str):
    manager = PassManager(_passes(PYPTO_ORDER), backend="Ascend910B", verify="check-run",
                          instruments=[make_roundtrip_instrument()])
    compiled = manager.run(program(src))  # raises when a step computes something else
    assert not PropertyVerifierRegistry.verify(["StructuredCtrlFlow"], compiled)


@pytest.mark.unverified
def test_without_ctrl_flow_transform_convert_to_ssa_still_refuses_the_loop():
    manager = PassManager(_passes(PYPTO_ORDER[1:]), backend="Ascend910B", verify="basic")
    with pytest.raises(ValueError, match="also contains break/continue"):
        manager.run(program(KERNEL_LOOP))
