"""DSL examples of outlining (docs/passes/outline_incore_scopes.md), the AIV split
(docs/passes/lower_auto_vector_split.md) and the lanes' dispatch (docs/passes/split_vector_kernel.md), in the
parseable spelling (`pl.Tensor[...]` for `Tensor[...]`, `pl.add(x, 1.0)` for `x + 1` on tensors,
`type=pl.FunctionType.InCore` for `scope_type=InCore`, parameter annotations where a sketch would elide them).
Each must parse and survive print -> parse."""

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.language.roundtrip import assert_roundtrip, missing_ops

T64 = "pl.Tensor[[64], pl.FP32]"

EXAMPLES = {
    # outlining, before: an Opaque function with one InCore scope
    "outline_before": f"""
        import pypto.language as pl

        @pl.program
        class Before:
            @pl.function  # Opaque function
            def main(self, x: {T64}) -> {T64}:
                y = pl.add(x, 1.0)

                with pl.at(level=pl.Level.CORE_GROUP):  # InCore scope
                    tile = pl.load(y, [0], [64])
                    tile_sq = pl.mul(tile, tile)
                    result_tile = pl.add(tile_sq, 1.0)
                    result = pl.store(result_tile, [0], x)

                z = pl.add(result, 2.0)
                return z
    """,
    # outlining, after: the outlined form, written callee-last (hence the annotation)
    "outline_after": f"""
        import pypto.language as pl

        @pl.program
        class After:
            @pl.function(type=pl.FunctionType.Orchestration)  # promoted from Opaque
            def main(self, x: {T64}) -> {T64}:
                y = pl.add(x, 1.0)

                # Scope replaced with call + assignments
                result: {T64} = self.main_incore_0(y, x)  # Call outlined function

                z = pl.add(result, 2.0)
                return z

            @pl.function(type=pl.FunctionType.InCore)  # Outlined InCore function
            def main_incore_0(self, y: {T64}, x: pl.Out[{T64}]) -> {T64}:
                # Scope body moved here
                tile = pl.load(y, [0], [64])
                tile_sq = pl.mul(tile, tile)
                result_tile = pl.add(tile_sq, 1.0)
                result = pl.store(result_tile, [0], x)
                return x  # store target: returns the param, not `result`
    """,
    # outlining: a scope with two values used after it
    "outline_multiple_outputs": f"""
        @pl.function
        def main(a: {T64}, b: {T64}, out: pl.Out[{T64}]) -> {T64}:
            with pl.at(level=pl.Level.CORE_GROUP):
                a_tile = pl.load(a, [0], [64])
                b_tile = pl.load(b, [0], [64])
                c_tile = pl.add(a_tile, b_tile)
                out_a = pl.store(c_tile, [0], out)
                out_b = pl.mul(c_tile, 2.0)
            # Both out_a and out_b used after scope
            x = pl.add(out_a, out_a)
            return x
    """,
    # outlining: a store target written inside a loop, before and after (carried) outlining
    "outline_store_in_loop_before": """
        @pl.function
        def k(a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
            for i in pl.range(4):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(a, [i * 64, 0], [64, 128])
                    pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
            return out
    """,
    "outline_store_in_loop_after": """
        import pypto.language as pl

        @pl.program
        class Loop:
            @pl.function(type=pl.FunctionType.InCore)
            def k_incore_0(self, a__ssa_v0: pl.Tensor[[256, 128], pl.FP32], i__idx_v0: pl.Scalar[pl.INDEX],
                           out__ssa_v0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                t__ssa_v0 = pl.load(a__ssa_v0, [i__idx_v0 * 64, 0], [64, 128])
                out__store = pl.store(pl.mul(t__ssa_v0, 2.0), [i__idx_v0 * 64, 0], out__ssa_v0)
                return out__ssa_v0

            @pl.function(type=pl.FunctionType.Orchestration)
            def k(self, a__ssa_v0: pl.Tensor[[256, 128], pl.FP32],
                  out__ssa_v0: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
                for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):
                    out__ssa_v1 = self.k_incore_0(a__ssa_v0, i__idx_v0, out__iter_v1)
                    out__rv_v1 = pl.yield_(out__ssa_v1)
                return out__rv_v1
    """,
    # outlining: a named scope next to a region, the split attrs table
    "outline_named_scope_with_slots": """
        @pl.function
        def main(a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused_add", optimizations=[pl.cross_core_slot(slot_num=4)]):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    t = pl.load(a, [aiv_id * 64, 0], [64, 64])
                    out = pl.store(pl.add(t, 1.0), [aiv_id * 64, 0], out)
            return out
    """,
    # split: a per-lane scattered gather feeding the cube (with subscript assignment)
    "split_sparse_kv": """
        @pl.function
        def main(idx: pl.Tensor[[128], pl.INT32], pool: pl.Tensor[[4096, 512], pl.BF16],
                 q: pl.Tensor[[16, 128], pl.BF16], out: pl.Out[pl.Tensor[[16, 512], pl.FP32]]) -> pl.Tensor[[16, 512], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="sparse_kv",
                       allow_early_resolve=True):                           # see the ring note below
                for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    ub = pl.tile.full([64, 512], dtype=pl.BF16, value=0.0)  # per-lane HALF extent
                    for k in pl.range(64):
                        src = pl.cast(pl.tensor.read(idx, [aiv * 64 + k]), pl.INDEX)
                        ub = pl.gather_row(ub, pool, [k, 0], [src, 0], [1, 512])   # lane-derived src_offset
                    kv = pl.aic_gather(ub)                                  # V2C -> [128, 512] in Mat
                qt = pl.load(q, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
                res = pl.matmul(pl.move(qt, target_memory=pl.Mem.Left), pl.move(kv, target_memory=pl.Mem.Right))
                out = pl.store(res, [0, 0], out)
            return out
    """,
    # split: a hand-written scope inside an InCore function (the parser adds no wrapper there)
    "split_scope_in_incore_function": """
        @pl.function(type=pl.FunctionType.InCore)   # pass 8 会跳过该函数
        def f(self, a: pl.Tensor[[128, 128], pl.FP32],
              c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):                   # 不会被提取
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                    base = aiv_id * 64
                    c = pl.store(pl.exp(pl.load(a, [base, 0], [64, 128])), [base, 0], c)
            return c
    """,
    # split: LowerAutoVectorSplit before / after on a mixed kernel
    "split_lavs_before": """
        @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN})
        def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat],
                       out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
            popped: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
            y: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec] = pl.add(popped, popped)
            return pl.store(y, [0, 0], out_0)
    """,
    "split_lavs_after": """
        @pl.function(type=pl.FunctionType.InCore,
                     attrs={"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
            subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
            popped: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(qk, split=1)  # C->V, 半
            y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec] = pl.add(popped, popped)
            return pl.store(y, [0 + subblock_idx * 64, 0], out_0)
    """,
    # split: an even split of a ragged box (13 valid rows of 16)
    "split_ragged_even_split": """
        @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        def split_auto(qk: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[13, 128])],
                       out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
            aiv_id: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
            # 16 行 box 里有 13 行有效，UP_DOWN。lane 0 取第 0-6 行，lane 1 取第 7-12 行。
            popped: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec,
                            pl.TileView(valid_shape=[pl.min(pl.max(13, aiv_id * 7) - aiv_id * 7, 7), 128])
                           ] = pl.tile.aiv_shard(qk, split=1, lane_stride=7)
            out_store = pl.tile.store(popped, [0 + aiv_id * 7, 0], out_0)
            return out_store
    """,
    # split: a vector -> cube boundary keeps the full size
    "split_gather_full_size": """
        @pl.function(type=pl.FunctionType.InCore, attrs={"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        def k(v: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec]) -> pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat]:
            gathered_mat: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat] = pl.tile.aic_gather(v, split=1)
            gathered:     pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat] = pl.tile.move(gathered_mat,
                                                                                  target_memory=pl.Mem.Mat)
            return gathered
    """,
    # dispatch: an AIV half of a split pair
    "dispatch_split_aiv_tagging": """
        @pl.function(type=pl.FunctionType.AIV,
                     attrs={"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        def main_aiv(self, out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]):
            subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
            z_vec: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=1)
            return pl.store(z_vec, [0 + subblock_idx * 8, 0], out_0)
    """,
    # dispatch: dual AIV dispatch, before and after (lane 1 replays with empty tiles)
    "dispatch_dual_before": """
        @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
        def main_aiv(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
                     out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
            slot_buf = pl.reserve_buffer(name="v2c_slot_buffer", size=4096, base=0x1000)
            pl.aiv_initialize_pipe(dir_mask=2, slot_size=512, v2c_consumer_buf=slot_buf)
            a_tile = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
            b_tile = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
            summed = pl.add(a_tile, b_tile)
            pl.tpush_to_aic(summed, split=0)
            return out
    """,
    "dispatch_dual_after": """
        @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
        def main_aiv(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
                     out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
            subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
            slot_buf = pl.reserve_buffer(name="v2c_slot_buffer", size=4096, base=0x1000)
            pl.aiv_initialize_pipe(dir_mask=2, slot_size=512, v2c_consumer_buf=slot_buf)
            if subblock_idx == 0:
                a_tile = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
                b_tile = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
                summed = pl.add(a_tile, b_tile)
                pl.tpush_to_aic(summed, split=0)
            else:
                a_tile: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = \\
                    pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                b_tile: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = \\
                    pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                summed: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = \\
                    pl.add(a_tile, b_tile)
                pl.tpush_to_aic(summed, split=0)        # 握手仍触发
            return out
    """,
}

NEEDS = ("tile.get_subblock_idx", "tile.aiv_shard", "tile.aic_gather", "tile.gather_row", "tile.matmul",
         "tensor.read", "system.reserve_buffer", "system.aiv_initialize_pipe", "tile.tpush_to_aic",
         "tile.tpop_from_aic", "gather_row", "reserve_buffer", "aiv_initialize_pipe")


@pytest.mark.skipif(bool(missing_ops(*NEEDS)), reason=f"ops not registered yet: {missing_ops(*NEEDS)}")
@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_roundtrips(name):
    assert_roundtrip(textwrap.dedent(EXAMPLES[name]))


@pytest.mark.skipif(bool(missing_ops(*NEEDS)), reason=f"ops not registered yet: {missing_ops(*NEEDS)}")
def test_lane_one_replay_takes_the_names_again():
    # The else-branch re-binds names the then-branch introduced, with another type
    # (docs/passes/split_vector_kernel.md).
    f = pl.parse(textwrap.dedent(EXAMPLES["dispatch_dual_after"]))
    branch = [s for s in ir.flatten_to_stmts(f.body) if isinstance(s, ir.IfStmt)][0]
    then_a = ir.flatten_to_stmts(branch.then_body)[0].var
    else_a = ir.flatten_to_stmts(branch.else_body)[0].var
    assert then_a is not else_a and else_a.type.tile_view is not None
    text = ir.python_print(f)
    assert "        a_tile_1: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = " in text
