"""Programs the program generator (tests/fuzz) wrote, through ConvertTensorToTileOps: a boundary under
lane-steered control flow and a tile used across regions are invalid and are located ValueErrors (not a changed
result, not an internal assertion); an operand already lowered to a tile is promoted like a tensor one."""

from __future__ import annotations

import pytest

from tests.fuzz.oracle import check_text

HEADER = "import pypto.language as pl\n\n"

# A pl.aic_gather (to the cube) inside a loop of a NONE region strided by the lane index.
LANE_STEERED_GATHER = HEADER + '''
@pl.program
class Gen23:
    @pl.function
    def main(self, x11: pl.Tensor[[64, 64], pl.FP32], out12: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for aiv10 in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            for i13 in pl.range(aiv10, 4, 2):
                s14 = pl.slice(x11, [16, 64], [i13 * 16, 0])
                out12 = pl.assemble(out12, pl.aic_gather(pl.abs(pl.add(s14, s14))), [i13 * 16, 0])
        return out12
'''

# A tile loaded in one pl.split_aiv region and used in another (two kernels).
TILE_ACROSS_REGIONS = HEADER + '''
@pl.program
class Gen6:
    @pl.function
    def main(self, x4: pl.Tensor[[64, 32], pl.FP32], out5: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        for aiv3 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            t6 = pl.load(x4, [0, aiv3 * 16], [64, 16])
        for aiv3 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
            out5 = pl.store(pl.tile.abs(pl.tile.adds(t6, -1.5)), [0, aiv3 * 16], out5)
        return out5
'''

# The task-parallel NONE region without a boundary inside the lane-steered loop still compiles.
LANE_STEERED_VECTOR = HEADER + '''
@pl.program
class Ok:
    @pl.function
    def main(self, x11: pl.Tensor[[64, 64], pl.FP32], out12: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for aiv10 in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            for i13 in pl.range(aiv10, 4, 2):
                s14 = pl.slice(x11, [16, 64], [i13 * 16, 0])
                out12 = pl.assemble(out12, pl.abs(pl.add(s14, s14)), [i13 * 16, 0])
        return out12
'''


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize(("src", "words", "line"), [
    (LANE_STEERED_GATHER, ("tensor.aic_gather hands a value to the cube", "lane index", "'aiv10'",
                           "move the boundary out"), 11),
    # t6 is computed per lane in the first region and read by the second: outlining reports it where it is
    # made.
    (TILE_ACROSS_REGIONS, ("'t6' is computed per lane in the pl.split_aiv(", "region"), 9),
])
def test_invalid_programs_are_located_value_errors(src: str, words: tuple[str, ...], line: int, backend: str) -> None:
    outcome = check_text(src, backend)
    assert outcome.finding is None, outcome.finding
    assert outcome.status in ("pipeline-rejected", "input-rejected"), outcome
    for w in words:
        assert w in outcome.detail, outcome.detail
    assert f"fuzz_input.py:{line}:" in outcome.detail, outcome.detail


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_lane_steered_vector_work_without_a_boundary_compiles(backend: str) -> None:
    outcome = check_text(LANE_STEERED_VECTOR, backend)
    assert outcome.finding is None, outcome.finding
    assert outcome.status == "compiled", outcome


PROMOTED_TILE_OPERAND = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.DTYPE], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v = pl.neg(x)
            w = pl.add(v, 2.0)
            out = pl.assemble(out, w, [0, 0])
        return out
'''


@pytest.mark.parametrize("dtype", ["BF16", "FP16"])
@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_an_operand_already_lowered_to_a_tile_is_promoted_too(dtype: str, backend: str):
    # tensor.adds of a BF16 value and 2.0 is FP32; its operand computed earlier in the kernel is a tile by
    # then and must be cast too, or the FP32 store rejects a BF16 tile.
    outcome = check_text(PROMOTED_TILE_OPERAND.replace("DTYPE", dtype), backend)
    assert outcome.finding is None and outcome.status == "compiled", outcome
