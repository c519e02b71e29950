"""PyPTO's SSAForm rule for parameters (docs/passes/run_verifier.md, the core properties' rules): a
parameter is in scope but is not a definition, so `out_0 = pl.store(t, [0], out_0)` (the AssignStmt's var is the parameter itself, as
both parsers build it) is SSA, and the passes that require SSAForm take such a kernel as it is, with
verification on, and the result runs on the reference machine."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

KERNEL = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32], out_0: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(x, [0], [64])
        out_0 = pl.store(t, [0], out_0)
        return out_0

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64], pl.FP32], out_0: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        out_0 = self.k(x, out_0)
        return out_0
'''

MIXED = '''import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
          out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        tb = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        la = pl.move(ta, target_memory=pl.Mem.Left)
        rb = pl.move(tb, target_memory=pl.Mem.Right)
        c = pl.matmul(la, rb)
        v = pl.move(c, target_memory=pl.Mem.Vec)
        w = pl.exp(v)
        out_0 = pl.store(w, [0, 0], out_0)
        return out_0

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
             out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        out_0 = self.k(a, b, out_0)
        return out_0
'''

SCOPE = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
             out_0: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> pl.Tensor[[32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            ta = pl.load(a, [0, 0], [32, 16], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            c = pl.matmul(pl.move(ta, target_memory=pl.Mem.Left), pl.move(tb, target_memory=pl.Mem.Right))
            w = pl.exp(pl.move(c, target_memory=pl.Mem.Vec))
            out_0 = pl.store(w, [0, 0], out_0)
        return out_0
'''

SPLIT_CHAIN = ("infer_tile_memory_space", "lower_auto_vector_split", "expand_mixed_kernel", "split_vector_kernel")


def ssa_errors(program: object) -> list[str]:
    return [d.message for d in passes.PropertyVerifierRegistry.verify(["SSAForm"], program)]


def verified(names: tuple[str, ...], program: ir.Program, backend: str = "Ascend910B") -> ir.Program:
    """The passes called one by one under VerificationInstrument(BEFORE_AND_AFTER) (no ConvertToSSA)."""
    instrument = passes.VerificationInstrument(passes.VerificationMode.BEFORE_AND_AFTER)
    with passes.PassContext([instrument], backend=backend):
        for name in names:
            program = getattr(passes, name)()(program)
    return program


def test_one_assignment_to_a_parameter_is_ssa_and_infer_tile_memory_space_keeps_it():
    program = pl.parse(KERNEL)
    assert ssa_errors(program) == []
    after = verified(("infer_tile_memory_space",), program)
    assert "out_0: pl.Tensor[[64], pl.FP32] = pl.tile.store(t, [0], out_0)" in ir.python_print(after)
    same_results(program, after)


def test_a_second_assignment_to_the_parameter_is_the_error():
    twice = KERNEL.replace("        out_0 = pl.store(t, [0], out_0)\n",
                           "        out_0 = pl.store(t, [0], out_0)\n        out_0 = pl.store(t, [0], out_0)\n", 1)
    (diag,) = passes.PropertyVerifierRegistry.verify(["SSAForm"], pl.parse(twice, "k.py"))
    assert diag.message == "Variable 'out_0' is assigned more than once (2 times), violating SSA form (in function 'k')"
    assert (diag.rule_name, diag.error_code, diag.span.begin_line) == ("SSAForm", 1, 9)


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_mixed_kernel_rebinding_its_out_parameter_goes_through_the_split_chain_and_runs(backend):
    program = pl.parse(MIXED)
    after = verified(("normalize_stmt_structure", *SPLIT_CHAIN), program, backend)
    assert {f.func_type.name for f in after.functions.values()} >= {"AIC", "AIV", "Group"}
    same_results(program, after)


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_scope_rebinding_an_out_parameter_is_outlined_and_split_without_convert_to_ssa(backend):
    program = pl.parse(SCOPE)
    after = verified(("normalize_stmt_structure", "outline_incore_scopes", "convert_tensor_to_tile_ops",
                      "flatten_tile_nd_to_2d", *SPLIT_CHAIN), program, backend)
    same_results(program, after)
