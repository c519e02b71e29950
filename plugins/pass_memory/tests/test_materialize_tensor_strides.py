"""MaterializeTensorStrides (docs/passes/materialize_tensor_strides.md): the reference's E1 - E3 signatures, the
NZ error, idempotence, the TensorViewCanonical verifier, and the program run before and after."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

from .memref_helpers import printed, run_pass

SRC = '''
import pypto.language as pl
M = pl.dynamic("M")

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[2, 4, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)], c: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(stride=[16, 1], layout=pl.TensorLayout.ND)], d: pl.Tensor[[4, 8], pl.FP32], e: pl.Tensor[[3, M, 16], pl.FP32, pl.TensorView(layout=pl.TensorLayout.DN)], v: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(valid_shape=[2, 8], layout=pl.TensorLayout.ND)], out: pl.Out[pl.Tensor[[4, 8], pl.FP32]]) -> pl.Tensor[[4, 8], pl.FP32]:
        t: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(d, [0, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        o: pl.Tensor[[4, 8], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return o
'''

STRICT = passes.IRPropertySet([passes.IRProperty.TensorViewCanonical])


def signature(program: ir.Program) -> str:
    return next(line.strip() for line in printed(program).splitlines() if line.strip().startswith("def k("))


def test_e1_e2_implicit_views_get_their_packed_strides_explicit_and_bare_ones_stay():
    before = pl.parse(SRC)
    assert "pl.TensorView(stride=[], layout=pl.TensorLayout.DN)" in signature(before)
    assert PropertyVerifierRegistry.verify(STRICT, before)  # strict: the empty strides are findings
    after = run_pass("materialize_tensor_strides", before)
    sig = signature(after)
    assert "a: pl.Tensor[[2, 4, 8], pl.FP32, pl.TensorView(stride=[32, 1, 4], layout=pl.TensorLayout.DN)]" in sig
    assert "c: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(stride=[16, 1], layout=pl.TensorLayout.ND)]" in sig
    assert "d: pl.Tensor[[4, 8], pl.FP32]" in sig
    assert ("e: pl.Tensor[[3, M, 16], pl.FP32, pl.TensorView(stride=[M * pl.const(16, pl.INDEX), 1, M], "
            "layout=pl.TensorLayout.DN)]") in sig
    assert ("v: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(valid_shape=[2, 8], stride=[8, 1], "
            "layout=pl.TensorLayout.ND)]") in sig
    assert not PropertyVerifierRegistry.verify(STRICT, after)
    again = run_pass("materialize_tensor_strides", after)
    assert again is after  # idempotent: nothing left to do


def test_a_rank_two_dn_view_and_uses_of_a_retyped_variable():
    after = run_pass("materialize_tensor_strides", pl.parse('''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4, 8], pl.FP32, pl.TensorView(stride=[], layout=pl.TensorLayout.DN)], out: pl.Out[pl.Tensor[[8, 4], pl.FP32]]) -> pl.Tensor[[8, 4], pl.FP32]:
        t: pl.Tile[[8, 4], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [8, 4], [8, 4], target_memory=pl.Mem.Vec)
        o: pl.Tensor[[8, 4], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return o
'''))
    func = after.get_function("k")
    a = func.params[0]
    assert [s.value for s in a.type.tensor_view.stride] == [1, 4]
    load = ir.flatten_to_stmts(func.body)[0].value
    assert load.args[0] is a  # the use follows the retyped parameter


def test_e3_nz_on_a_tensor_is_refused_with_its_location():
    program = pl.parse('''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP16, pl.TensorView(stride=[16, 1], layout=pl.TensorLayout.NZ)], out: pl.Out[pl.Tensor[[16, 16], pl.FP16]]) -> pl.Tensor[[16, 16], pl.FP16]:
        t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        o: pl.Tensor[[16, 16], pl.FP16] = pl.tile.store(t, [0, 0], out)
        return o
''')
    with pytest.raises(ValueError, match=r"MaterializeTensorStrides: NZ layout is tile-only and not allowed on a "
                                         r"tensor type\. Annotate the tensor as pl\.ND or pl\.DN, and produce NZ on a "
                                         r"Tile instead\.\n  --> <string>:\d+:\d+"):
        run_pass("materialize_tensor_strides", program, check=False)


def test_pass_identity():
    p = passes.materialize_tensor_strides()
    assert p.get_name() == "MaterializeTensorStrides"
    required = {"SSAForm", "NormalizedStmtStructure", "SplitIncoreOrch", "IncoreTileOps", "TileOps2D",
                "TileMemoryInferred"}
    assert {str(x) for x in p.get_required_properties()} == required
    assert {str(x) for x in p.get_produced_properties()} == required | {"TensorViewCanonical"}
