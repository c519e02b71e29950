"""A batched product past Mat through the default pipeline (docs/passes/auto_tile_matmul_l0.md, M/N grids into
an N-D target): FlattenTileNdTo2D re-loads each batch's operands and stores each batch's product through a
`[1, M, N]` partition; AutoTileMatmulL0 then grids each product and stores every L0 tile into the 3-D target
with its own `[1, m, n]` partition. Every L0 and Mat tile fits, and the outputs are numpy's."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.analysis.memory import tile_bytes
from pypto_core.analysis.walk import statements
from pypto_core.backend.registry import get_backend
from pypto_core.interp import make_inputs, run_program, shape_from_backend
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TileType

from .helpers import MATMUL_ATOL, MATMUL_RTOL
from .test_tensor_level_matmul_pipeline import default_pipeline

SOURCE = '''
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[2, 128, 256], pl.BF16], b: pl.Tensor[[2, 512, 256], pl.BF16]) -> pl.Tensor[[2, 128, 512], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32, b_trans=True)
        return c
'''


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_batched_b_trans_product_past_mat_is_gridded_and_stored_per_tile_into_the_3d_result(backend):
    before = pl.parse(SOURCE)
    after = default_pipeline(backend).run(before)
    be = get_backend(backend)
    tiles = [s.var.type for f in after.functions.values() for s in statements(f.body)
             if isinstance(s, S.AssignStmt) and isinstance(s.var.type, TileType)]
    spaces = {MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc}
    for t in tiles:
        if t.memory_space in spaces:
            assert tile_bytes(t, be) <= be.capacity(t.memory_space), t
    stores = [line for line in ir.python_print(after).splitlines() if "pl.tile.store(" in line]
    assert stores and all(line.rstrip(")").endswith("]") and ", [1, " in line for line in stores), stores
    inputs = make_inputs(next(f for f in before.functions.values() if f.name == "main"), seed=1)
    got = np.asarray(run_program(after, inputs, "main", shape_from_backend(backend))["return"], dtype=np.float64)
    a, b = (np.asarray(inputs[k], dtype=np.float64) for k in ("a", "b"))
    np.testing.assert_allclose(got, np.einsum("bmk,bnk->bmn", a, b), rtol=MATMUL_RTOL, atol=MATMUL_ATOL)
