"""LowerAutoVectorSplit, AUTO path: lane categories, tuple results, loop carries, if merges, drop_dims,
reshape, the partition of a ragged boundary and the empty-lane guard (docs/passes/lower_auto_vector_split.md)."""

from __future__ import annotations

import pytest

from pypto import ir

from .helpers import function, lavs, ops


def _stmts(program: ir.Program, name: str = "k") -> list:
    return ir.flatten_to_stmts(function(program, name).body)


def _shape(stmt) -> list[int]:
    return [d.value for d in stmt.var.type.shape]


GATHER = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.INT32, pl.Mem.Acc], tbl: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        indices = pl.move(qk, target_memory=pl.Mem.Vec)
        SRC
        tmp = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        picked = pl.tile.gather(src, indices, tmp)
        o = pl.store(picked, [0, 0], out)
        return o
'''


def test_an_index_addressed_table_stays_full_width_but_a_halved_table_is_rejected():
    after = lavs(GATHER.replace("SRC", "src = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)"),
                 run=False)
    picked = _stmts(after)[4]
    assert _shape(picked) == [16, 32], "halving the indices gives each lane its half of the result"
    assert [d.value for d in picked.value.args[0].type.shape] == [32, 32], "the table is read whole"
    with pytest.raises(ValueError, match=r"tile.gather addresses operand 0 \('src', IndexAddressedSource\) with "
                                         r"ABSOLUTE indices, but that operand was halved"):
        lavs(GATHER.replace("SRC", "src = pl.load(tbl, [0, 0], [32, 32])"), run=False)


def test_an_absolutely_indexed_destination_may_not_be_halved():
    with pytest.raises(ValueError, match=r"tile.scatter addresses operand 0 \('dst', AbsoluteIndexedDestination\) "
                                         r"with ABSOLUTE indices"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], d: pl.Tensor[[32, 32], pl.FP32], ix: pl.Tensor[[32, 32], pl.INT32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        src = pl.move(qk, target_memory=pl.Mem.Vec)
        dst = pl.load(d, [0, 0], [32, 32])
        idx = pl.load(ix, [0, 0], [32, 32])
        r = pl.tile.scatter(dst, src, idx)
        o = pl.store(r, [0, 0], out)
        return o
''', run=False)


GATHER_COMPARE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], dst_out: pl.Out[pl.Tensor[[32, 8], pl.INT32]], cnt_out: pl.Out[pl.Tensor[[1, 32], pl.INT32]]) -> pl.Tensor[[32, 8], pl.INT32]:
        pl.func_attr({"split": pl.SplitMode.MODE})
        src = pl.move(qk, target_memory=pl.Mem.Vec)
        tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        dst, cnt = pl.tile.gather_compare(src, 0.5, tmp, cmp_mode=3, out_cols=8)
        o = pl.store(dst, [0, 0], dst_out)
        c = pl.store(cnt, [0, 0], cnt_out)
        return o
'''


def test_a_tuple_result_moves_each_element_on_its_own_axis():
    after = lavs(GATHER_COMPARE.replace("MODE", "UP_DOWN"))
    stmts = _stmts(after)
    pair = next(s for s in stmts if isinstance(s.var.type, ir.TupleType))
    dst_t, cnt_t = pair.var.type.types
    assert [d.value for d in dst_t.shape] == [16, 8] and [d.value for d in cnt_t.shape] == [1, 16]
    stores = [s.value for s in stmts if isinstance(s.value, ir.Call) and s.value.op.name == "tile.store"]
    assert ir.python_print(stores[0].args[1]) == "[0 + subblock_idx * 16, 0]"
    assert ir.python_print(stores[1].args[1]) == "[0, 0 + subblock_idx * 16]", "the count row moves on dim 1"


def test_a_tuple_result_whose_elements_do_not_move_is_rejected():
    with pytest.raises(ValueError, match=r"tile.gather_compare's result element 0 does not halve on exactly one axis"):
        lavs(GATHER_COMPARE.replace("MODE", "LEFT_RIGHT"), run=False)


LOOP = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        INIT
        for i, (acc_it,) in pl.range(3, init_values=(acc0,)):
            BODY
        o = pl.store(acc_rv, [0, 0], out)
        return o
'''


def test_a_loop_carried_accumulator_is_split_with_its_init_and_its_exit():
    after = lavs(LOOP.replace("INIT", "acc0 = pl.tile.full([32, 32], dtype=pl.FP32, value=0.0)").replace(
        "BODY", "acc_next = pl.tile.add(acc_it, p)\n            acc_rv = pl.yield_(acc_next)"))
    stmts = _stmts(after)
    loop = next(s for s in stmts if isinstance(s, ir.ForStmt))
    assert [d.value for d in loop.iter_args[0].type.shape] == [16, 32]
    assert [d.value for d in loop.return_vars[0].type.shape] == [16, 32]
    assert ir.python_print(stmts[-2].value.args[1]) == "[0 + subblock_idx * 16, 0]"


def test_a_full_width_value_yielded_into_a_split_carry_is_rejected():
    with pytest.raises(ValueError, match=r"the loop carries a split 'acc_it\S*' but yields a full-width "):
        lavs(LOOP.replace("INIT", "acc0 = pl.tile.full([32, 32], dtype=pl.FP32, value=0.0)\n"
                                  "        wide = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)")
             .replace("BODY", "acc_rv = pl.yield_(wide)"), run=False)


def test_an_inline_yield_into_a_split_carry_must_be_bound_to_a_name_first():
    with pytest.raises(ValueError, match=r"yields tile.create\(\.\.\.\) written inline into the carry .*bind it to a "
                                         r"name first"):
        lavs(LOOP.replace("INIT", "acc0 = pl.tile.full([32, 32], dtype=pl.FP32, value=0.0)").replace(
            "BODY", "acc_rv = pl.yield_(pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec))"),
            run=False)


IF_MERGE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)
        wide = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        if n > 1:
            a = pl.tile.exp(p)
            r = pl.yield_(a)
        else:
            b = ELSE
            r = pl.yield_(b)
        o = pl.store(r, [0, 0], out)
        return o
'''


def test_an_if_merge_of_two_split_values_is_split():
    after = lavs(IF_MERGE.replace("ELSE", "pl.tile.muls(p, 2.0)"))
    branch = next(s for s in _stmts(after) if isinstance(s, ir.IfStmt))
    assert [d.value for d in branch.return_vars[0].type.shape] == [16, 32]


def test_an_if_merge_of_a_split_and_a_full_width_value_is_rejected():
    with pytest.raises(ValueError, match=r"the branches of this if give 'r' different lane parts"):
        lavs(IF_MERGE.replace("ELSE", "wide"), run=False)


def test_a_slice_of_a_split_tile_spanning_the_split_axis_halves_with_it():
    after = lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        half = pl.tile.slice(p, [32, 32], [0, 32])
        o = pl.store(half, [0, 0], out)
        return o
''')
    half = _stmts(after)[2]
    assert _shape(half) == [16, 32] and ir.python_print(half.value.args[2]) == "[0, 32]"


def test_a_slice_that_cuts_the_split_axis_of_a_split_tile_is_rejected():
    with pytest.raises(ValueError, match=r"a window of a split tile must span the split axis"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        top = pl.tile.slice(p, [16, 64], [16, 0])
        o = pl.store(top, [0, 0], out)
        return o
''', run=False)


def test_a_slice_with_drop_dims_maps_the_split_axis_through_the_dropped_dims():
    after = lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[8, 64], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[1, 64], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.LEFT_RIGHT})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        row = pl.tile.slice(p, [1, 64], [2, 0], drop_dims=[0])
        o = pl.store(row, [0, 0], out)
        return o
''')
    stmts = _stmts(after)
    assert _shape(stmts[2]) == [1, 32], "dim 1 of the source is dim 1 of the padded result"
    assert ir.python_print(stmts[3].value.args[1]) == "[0, 0 + subblock_idx * 32]"


def test_a_reshape_keeps_a_split_axis_that_survives_whole_and_moves_it_for_n1_to_1n():
    after = lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        tmp = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s = pl.tile.row_sum(p, tmp)
        r = pl.tile.reshape(s, [1, 32])
        o = pl.store(r, [0, 0], out)
        return o
''')
    stmts = _stmts(after)
    assert _shape(stmts[4]) == [1, 16]
    assert ir.python_print(stmts[5].value.args[1]) == "[0, 0 + subblock_idx * 16]"


RAGGED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 128], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[VALID, 128])], OTHER out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        BODY
        o = pl.store(y, [0, 0], out)
        return o
'''


def test_a_single_ragged_boundary_is_split_evenly_by_its_valid_rows():
    after = lavs(RAGGED.replace("VALID", "13").replace("OTHER ", "").replace("BODY", "y = pl.tile.exp(p)"))
    stmts = _stmts(after)
    shard = stmts[1].value
    assert shard.op.name == "tile.aiv_shard" and shard.kwargs == {"split": 1, "lane_stride": 7}
    assert ir.python_print(stmts[1].var.type.tile_view.valid_shape[0]) == \
        "pl.min(pl.max(13, subblock_idx * 7) - subblock_idx * 7, 7)"
    assert ir.python_print(stmts[-2].value.args[1]) == "[0 + subblock_idx * 7, 0]"


def test_a_declined_rebalance_still_lowers_with_the_box_partition():
    # Another split-axis tile (the load of x) spans the whole box: no lane_stride, and no complaint here; the
    # unplaceable 8 / 5 extents are ExpandMixedKernel's to report (test_lane_stride_rules.py).
    after = lavs(RAGGED.replace("VALID", "13").replace("OTHER", "x: pl.Tensor[[16, 128], pl.FP32],").replace(
        "BODY", "w = pl.load(x, [0, 0], [16, 128])\n        y = pl.tile.add(p, w)"))
    stmts = _stmts(after)
    assert stmts[1].value.op.name == "tile.aiv_shard" and stmts[1].value.kwargs == {"split": 1}
    assert ir.python_print(stmts[1].var.type.tile_view.valid_shape[0]) == \
        "pl.min(pl.max(13, subblock_idx * 8) - subblock_idx * 8, 8)"
    assert ir.python_print(stmts[2].value.args[1]) == "[0 + subblock_idx * 8, 0]"


def test_a_lane_that_can_be_empty_stores_only_when_it_holds_rows():
    after = lavs(RAGGED.replace("VALID", "5").replace("OTHER ", "").replace(
        "BODY", "w = pl.tile.full([16, 128], dtype=pl.FP32, value=1.0)\n        y = pl.tile.add(p, w)"))
    stmts = _stmts(after)
    guard = stmts[-2]
    assert isinstance(guard, ir.IfStmt)
    assert ir.python_print(guard.condition).endswith("> 0")
    assert [s.value.op.name for s in ir.flatten_to_stmts(guard.then_body) if isinstance(s, ir.AssignStmt)] == \
        ["tile.store"]



@pytest.mark.parametrize("tail", ["return pl.store(y, [0, 0], out)", "pl.tile.store(y, [0, 0], out)\n        return out"],
                         ids=["in-a-return", "as-a-statement"])
def test_a_store_not_bound_to_a_name_is_guarded_too(tail):
    # Binding the store to a name is never a precondition (docs/passes/lower_auto_vector_split.md, lane extents): a store written inside a
    # return or as a statement is guarded too, or it stores lane 1's empty window, which the machine refuses.
    src = RAGGED.replace("VALID", "5").replace("OTHER ", "").replace(
        "BODY", "w = pl.tile.full([16, 128], dtype=pl.FP32, value=1.0)\n        y = pl.tile.add(p, w)").replace(
        "o = pl.store(y, [0, 0], out)\n        return o", tail)
    after = lavs(src)  # and the same outputs on the machine
    stmts = _stmts(after)
    guard = next(s for s in stmts if isinstance(s, ir.IfStmt))
    assert ir.python_print(guard.condition).endswith("> 0")
    assert [s.value.op.name for s in ir.flatten_to_stmts(guard.then_body) if isinstance(s, ir.AssignStmt)] == \
        ["tile.store"]
    assert guard.return_vars[0].name_hint == "stored"
    if tail.startswith("return"):
        assert stmts[-1].value[0] is guard.return_vars[0]


def test_a_split_axis_migrating_reshape_is_rejected_under_the_balanced_partition():
    with pytest.raises(ValueError, match=r"tile.reshape moves the split axis from dim 0 to dim 1"):
        lavs(RAGGED.replace("VALID", "13").replace("OTHER ", "").replace(
            "[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]", "[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]").replace(
            "BODY", "tmp = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                    "        s = pl.tile.row_sum(p, tmp)\n        y = pl.tile.reshape(s, [1, 16])"), run=False)


def test_vector_leaves_are_halved_and_cube_leaves_stay_full_size():
    after = lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], w: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        m = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        n = pl.load(w, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul(pl.move(m, target_memory=pl.Mem.Left), pl.move(n, target_memory=pl.Mem.Right))
        v = pl.move(c, target_memory=pl.Mem.Vec)
        e = pl.tile.exp(v)
        o = pl.store(e, [0, 0], out)
        return o
''')
    k = function(after, "k")
    assert ops(k) == ["tile.get_subblock_idx", "tile.load", "tile.load", "tile.matmul", "tile.aiv_shard", "tile.exp",
                      "tile.store"]
    stmts = ir.flatten_to_stmts(k.body)
    assert _shape(stmts[1]) == [32, 32] and _shape(stmts[3]) == [32, 32], "Mat loads and the product: full size"
    assert _shape(stmts[5]) == [16, 32]


def test_a_rank_1_load_reshaped_to_a_column_is_viewed_whole_then_sliced_per_lane():
    after = lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc], s: pl.Tensor[[32], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        scale = pl.load(s, [0], [32])
        col = pl.tile.reshape(scale, [32, 1])
        y = pl.tile.row_expand_mul(p, col)
        o = pl.store(y, [0, 0], out)
        return o
''')
    stmts = _stmts(after)
    assert _shape(stmts[2]) == [32], "under UP_DOWN a row vector is a broadcast read: loaded whole"
    assert stmts[3].value.op.name == "tile.reshape" and _shape(stmts[3]) == [32, 1]
    assert stmts[4].value.op.name == "tile.slice" and _shape(stmts[4]) == [16, 1]
    # The view keeps the statement's variable; the lane's part is a fresh one of the same name, at the bare
    # lane offset.
    assert stmts[3].var.name_hint == "col" and stmts[4].var.name_hint == "col_1"
    assert stmts[4].value.args[0] is stmts[3].var
    assert ir.python_print(stmts[4].value.args[2]) == "[subblock_idx * 16, 0]"


def test_a_rank_1_load_under_left_right_is_halved_on_its_only_axis():
    after = lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc], b: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.LEFT_RIGHT})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        bias = pl.load(b, [0], [64])
        y = pl.tile.add(p, bias)
        o = pl.store(y, [0, 0], out)
        return o
''')
    stmts = _stmts(after)
    assert _shape(stmts[2]) == [32] and ir.python_print(stmts[2].value.args[1]) == "[0 + subblock_idx * 32]"


def test_a_full_width_view_with_a_runtime_split_extent_cannot_be_sliced_per_lane():
    with pytest.raises(ValueError, match=r"tile.reshape of a full-width tile to \[n, 1\] with a runtime extent on "
                                         r"the split axis"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, n: pl.Scalar[pl.INDEX], qk: pl.Tile[[n, 64], pl.FP32, pl.Mem.Acc], s: pl.Tensor[[n], pl.FP32], out: pl.Out[pl.Tensor[[n, 64], pl.FP32]]) -> pl.Tensor[[n, 64], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        scale = pl.load(s, [0], [n])
        col = pl.tile.reshape(scale, [n, 1])
        y = pl.tile.row_expand_mul(p, col)
        o = pl.store(y, [0, 0], out)
        return o
''', run=False)


def test_a_cube_op_that_reaches_a_halved_tile_is_an_internal_error():
    import pypto
    from pypto_plugins.pass_split.split_axis.facts import Split, SplitFacts
    from pypto_plugins.pass_split.split_axis.splitter import check_no_cube_tile_halved

    program = lavs(CROSS, run=False)
    k = function(program, "k")
    matmul = next(s for s in _stmts(program) if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.matmul")
    facts = SplitFacts()
    facts.record(matmul.value.args[0], Split(0))
    with pytest.raises(pypto.InternalError, match=r"cube op tile.matmul in 'k' consumes or produces a halved tile"):
        check_no_cube_tile_halved(k.body, facts, k)


CROSS = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], w: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        x = pl.load(a, [0, 0], [32, 32])
        l = pl.move(pl.tile.exp(x), target_memory=pl.Mem.Left)
        c = pl.tile.matmul(l, w)
        o = pl.store(c, [0, 0], out)
        return o
'''
