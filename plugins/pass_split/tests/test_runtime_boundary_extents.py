"""Runtime valid extents across the cube -> vector boundary (docs/passes/lower_auto_vector_split.md, lane extents).

Rows valid to a runtime `n` under UP_DOWN: the shard moves the whole lane box and the consumers carry each lane's
extent, so the data of lane 1 sits at half the box whatever `n` is. Under LEFT_RIGHT the rows are not split and
both lanes share the extent. With split code 0 nothing is cut and any valid region crosses.
"""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.config import parse_config_text, resolve_config
from pypto_core.interp import run_program
from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
from pypto_core.passes.manager import PassManager
from pypto_plugins.ops_tile.families import NAMESPACES

TILE = NAMESPACES["tile"]


def build(mode: pl.SplitMode, cols: int):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore, attrs={"split": mode})
        def k(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, cols], pl.FP16], n: pl.Scalar[pl.INDEX],
              out: pl.Out[pl.Tensor[[16, cols], pl.FP32]]) -> pl.Tensor[[16, cols], pl.FP32]:
            al = pl.move(pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            br = pl.move(pl.load(b, [0, 0], [64, cols], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            acc = pl.tile.set_validshape(pl.matmul(al, br), n, cols)
            v = pl.move(acc, target_memory=pl.Mem.Vec)
            w = pl.mul(pl.add(v, 1.0), 2.0)
            out = pl.store(w, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, cols], pl.FP16], n: pl.Scalar[pl.INDEX],
                 out: pl.Out[pl.Tensor[[16, cols], pl.FP32]]) -> pl.Tensor[[16, cols], pl.FP32]:
            out = self.k(a, b, n, out)
            return out
    return P


def default_pipeline() -> PassManager:
    resolved = resolve_config(parse_config_text('[pipeline]\npasses = ["default"]\n', "<test>"))
    return PassManager(resolved.passes, backend=resolved.backend, verify="check-run",
                       instruments=[make_roundtrip_instrument()])


@pytest.mark.parametrize("mode", [pl.SplitMode.UP_DOWN, pl.SplitMode.LEFT_RIGHT])
def test_runtime_rows_cross_the_boundary(mode: pl.SplitMode):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((16, 64)).astype(np.float16)
    b = rng.standard_normal((64, 128)).astype(np.float16)
    program = build(mode, 128)
    compiled = default_pipeline().run(program)
    for n in (16, 13, 12, 9, 8, 5, 1):  # n = 0 would be an empty store in the source program
        want = ((a.astype(np.float32) @ b.astype(np.float32) + 1) * 2).astype(np.float32)
        want[n:] = 0
        for label, prog in (("as written", program), ("compiled", compiled)):
            got = run_program(prog, {"a": a, "b": b, "n": n, "out": np.zeros((16, 128), np.float32)})["out"]
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3, err_msg=f"{label}, n = {n}")



def build_direct_store(mode: pl.SplitMode):
    """The shard stored with no vector op between: the store is its first consumer."""
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore, attrs={"split": mode})
        def k(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16], n: pl.Scalar[pl.INDEX],
              out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
            al = pl.move(pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            br = pl.move(pl.load(b, [0, 0], [64, 128], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            acc = pl.tile.set_validshape(pl.matmul(al, br), n, 128)
            v = pl.move(acc, target_memory=pl.Mem.Vec)
            out = pl.store(v, [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[16, 64], pl.FP16], b: pl.Tensor[[64, 128], pl.FP16], n: pl.Scalar[pl.INDEX],
                 out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
            out = self.k(a, b, n, out)
            return out
    return P


@pytest.mark.parametrize("mode", [pl.SplitMode.UP_DOWN, pl.SplitMode.LEFT_RIGHT])
def test_runtime_rows_stored_straight_from_the_shard_store_only_the_valid_rows(mode: pl.SplitMode):
    # With the store as the shard's first consumer, something must still carry the lane's extent, or each lane
    # stores its whole box (all 16 rows written for n = 5).
    rng = np.random.default_rng(2)
    a = rng.standard_normal((16, 64)).astype(np.float16)
    b = rng.standard_normal((64, 128)).astype(np.float16)
    program = build_direct_store(mode)
    compiled = default_pipeline().run(program)
    for n in (16, 13, 9, 8, 5, 1):
        want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float32)
        want[n:] = 7.0
        for label, prog in (("as written", program), ("compiled", compiled)):
            got = run_program(prog, {"a": a, "b": b, "n": n, "out": np.full((16, 128), 7.0, np.float32)})["out"]
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3, err_msg=f"{label}, n = {n}")


def test_the_shard_of_runtime_rows_is_the_whole_lane_box():
    n = ir.Var("n", ir.ScalarType(pl.INDEX))
    acc = ir.Var("acc", ir.TileType([16, 128], pl.FP32, tile_view=ir.TileView(valid_shape=[n, 128]),
                                    memory_space=pl.Mem.Acc))
    shard = TILE["aiv_shard"](acc, split=1)
    assert [d.value for d in shard.type.valid_shape] == [8, 128]
    static = ir.Var("acc", ir.TileType([16, 128], pl.FP32, tile_view=ir.TileView(valid_shape=[13, 128]),
                                       memory_space=pl.Mem.Acc))
    assert [d.value for d in TILE["aiv_shard"](static, split=1).type.valid_shape] == [7, 128]


def test_split_code_zero_carries_any_valid_region():
    n = ir.Var("n", ir.ScalarType(pl.INDEX))
    acc = ir.Var("acc", ir.TileType([16, 128], pl.FP32, tile_view=ir.TileView(valid_shape=[16, n]),
                                    memory_space=pl.Mem.Acc))
    assert ir.structural_equal(TILE["aiv_shard"](acc, split=0).type.valid_shape[1], n)
    TILE["tpush_to_aiv"](acc, split=0)  # accepted: nothing is cut
    with pytest.raises(ValueError, match="runtime valid column extent"):
        TILE["aiv_shard"](acc, split=1)
