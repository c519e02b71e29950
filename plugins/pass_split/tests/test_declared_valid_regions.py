"""A cube -> vector boundary whose result declares a valid region narrower than its source's (a mutation of the
test programs, `annotated-valid-shape-narrower-than-the-op`).

The annotation is the program's meaning (docs/dsl.md: it may add information; elements outside a tile's valid
region are poison), so the reference machine poisons the columns / rows the move's result does not declare
valid. An aiv_shard re-deriving the source's valid region would compute real values there. Rule: the shard
carries the boundary result's declared valid region, localised to the lane on the split axis
(docs/passes/lower_auto_vector_split.md, lane extents); the balanced lane partition is chosen from that
declared extent too. Checked structurally and by running the program before and after.
"""

from __future__ import annotations

import pytest

from .helpers import expect, lavs
from .pipeline_checks import compile_and_compare

KERNEL = '''
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[SRC])], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.MODE})
        popped: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[POPPED])] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        y: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[RESULT])] = pl.tile.add(popped, popped)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [0, 0], out_0)
        return out_store
'''


def kernel(mode: str, src: str, popped: str, result: str) -> str:
    return (KERNEL.replace("MODE", mode).replace("SRC", src).replace("POPPED", popped)
            .replace("RESULT", result))


def test_a_narrower_column_region_of_the_popped_tile_is_kept_on_both_lanes():
    after = lavs(kernel("UP_DOWN", "127, 128", "127, 100", "127, 128"))
    lane_rows = ("pl.min(pl.max(pl.const(127, pl.INDEX), sb * pl.const(64, pl.INDEX)) - sb * pl.const(64, pl.INDEX), "
                 "pl.const(64, pl.INDEX))")
    expect(after, f'''
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[127, 128])], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({{"split": pl.SplitMode.UP_DOWN, "split_aiv": True}})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        popped: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[{lane_rows}, 100])] = pl.tile.aiv_shard(qk, split=1)
        y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[{lane_rows}, 128])] = pl.tile.add(popped, popped)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [0 + sb * 64, 0], out_0)
        return out_store
''')


@pytest.mark.parametrize("mode, src, popped, result", [
    ("UP_DOWN", "127, 128", "127, 100", "127, 128"),  # narrower off the split axis, widened again
    ("UP_DOWN", "127, 128", "100, 128", "127, 128"),  # narrower on the split axis (both lanes hold rows)
    ("UP_DOWN", "127, 128", "60, 128", "127, 128"),  # narrower on the split axis than one lane's box
    ("UP_DOWN", "128, 128", "128, 100", "128, 100"),  # a full source, a ragged popped tile
    ("UP_DOWN", "127, 128", "127, 128", "127, 100"),  # the consumer's result is the narrower one
    ("LEFT_RIGHT", "128, 128", "128, 70", "128, 128"),  # narrower on the LEFT_RIGHT split axis
    ("LEFT_RIGHT", "128, 128", "90, 128", "128, 128"),  # narrower off the LEFT_RIGHT split axis
    # A full source whose popped tile declares lane 0 one more row than lane 1 (64 / 63): pushed with the
    # source's even code, lane 1 would read from row 63, not 64, so the transfer's split code comes from the
    # lanes' declared extents.
    ("UP_DOWN", "128, 128", "127, 128", "127, 128"),
    ("UP_DOWN", "128, 128", "65, 128", "65, 128"),  # balanced by lane_stride: 33 / 32
    ("UP_DOWN", "128, 128", "63, 128", "63, 128"),  # lane 1 holds nothing
    ("LEFT_RIGHT", "128, 128", "128, 127", "128, 127"),
])
def test_the_declared_region_computes_the_same_through_the_default_pipeline(mode: str, src: str, popped: str,
                                                                             result: str):
    text = "import pypto.language as pl\n" + kernel(mode, src, popped, result)
    compile_and_compare(text, "Ascend950")


@pytest.mark.parametrize("popped", ["127, 100", "100, 128", "60, 128"])
def test_lower_auto_vector_split_alone_keeps_what_the_program_computes(popped: str):
    lavs(kernel("UP_DOWN", "127, 128", popped, "127, 128"))


# The popped tile's annotation (with layouts, so that it is kept as written) declares the whole box of a
# 127-row source valid. An annotation wider than the source adds no valid rows: the lanes hold 64 and 63 (odd
# code); taken as 64 and 64, lane 1 would read rows [65, 129) of the pushed tile.
WIDER_THAN_THE_SOURCE = "import pypto.language as pl\n\n@pl.program\n" + '''class Before:

    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[127, 128])], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({'split': pl.SplitMode.UP_DOWN})
        popped__ssa_v0: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[128, 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        y: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[127, 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(popped__ssa_v0, popped__ssa_v0)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [0, 0], out_0)
        return out_store
'''


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("popped", ["128, 128", ""])
def test_an_annotation_wider_than_the_source_adds_no_valid_rows(backend: str, popped: str):
    text = WIDER_THAN_THE_SOURCE.replace("valid_shape=[128, 128], blayout", f"valid_shape=[{popped}], blayout")
    # the split chain alone: with a 128 KiB pipe ring the lanes' [64, 128] FP32 tiles overflow Ascend910B's Vec
    compile_and_compare(text, backend, preset="kernels")


def test_the_pipe_ring_and_the_lane_tiles_overflow_ascend910b_s_vec():
    with pytest.raises(ValueError, match=r"Vec buffer usage \(196608 bytes\) exceeds platform limit \(188416 bytes\)"
                                         r".*reserved by system.reserve_buffer.*cross-core pipe ring"):
        compile_and_compare(WIDER_THAN_THE_SOURCE, "Ascend910B")
