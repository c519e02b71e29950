"""LowerAutoVectorSplit, AUTO path (docs/passes/lower_auto_vector_split.md): Before -> Expected compared structurally, every accepted case
run before and after on the reference machine (two AIV lanes), every rejection matched by message."""

from __future__ import annotations

import pytest

from pypto import ir, passes

from .helpers import expect, function, lavs, ops, parse

A4_BEFORE = '''
@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[127, 128])], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        popped: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[127, 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        y: pl.Tile[[128, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[127, 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(popped, popped)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [0, 0], out_0)
        return out_store
'''

A4_AFTER_TEXT = '''# pypto.program: Before
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[128, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[127, 128])], out_0: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        popped: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(127, pl.INDEX), subblock_idx * pl.const(64, pl.INDEX)) - subblock_idx * pl.const(64, pl.INDEX), pl.const(64, pl.INDEX)), 128])] = pl.tile.aiv_shard(qk, split=1)
        y: pl.Tile[[64, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(127, pl.INDEX), subblock_idx * pl.const(64, pl.INDEX)) - subblock_idx * pl.const(64, pl.INDEX), pl.const(64, pl.INDEX)), 128], blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.add(popped, popped)
        out_store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(y, [0 + subblock_idx * 64, 0], out_0)
        return out_store'''


def test_a_ragged_shard_is_lowered_character_for_character():
    after = lavs(A4_BEFORE)
    assert ir.python_print(after, format=False) == A4_AFTER_TEXT


CROSS_CORE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.MODE})
        x = pl.load(a, [0, 0], [32, 32])
        y = pl.load(b, [0, 0], [32, 32])
        s = pl.tile.add(x, y)
        d = pl.tile.sub(x, y)
        s_l = pl.move(s, target_memory=pl.Mem.Left)
        d_r = pl.move(d, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(s_l, d_r)
        c_v = pl.move(c, target_memory=pl.Mem.Vec)
        e = pl.tile.exp(c_v)
        o = pl.store(e, [0, 0], out)
        return o
'''


def test_cross_core_kernel_up_down_halves_vector_work_and_gathers_at_the_cube():
    after = lavs(CROSS_CORE.replace("MODE", "UP_DOWN"))
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        x: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.load(a, [0 + sb * 16, 0], [16, 32], [16, 32])
        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.load(b, [0 + sb * 16, 0], [16, 32], [16, 32])
        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, y)
        d: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.sub(x, y)
        s_l_mat: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.aic_gather(s, split=1)
        s_l: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.move(s_l_mat, target_memory=pl.Mem.Left)
        d_r_mat: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.aic_gather(d, split=1)
        d_r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right] = pl.move(d_r_mat, target_memory=pl.Mem.Right)
        c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(s_l, d_r)
        c_v: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(c, split=1)
        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.exp(c_v)
        out_1: pl.Tensor[[32, 32], pl.FP32] = pl.store(e, [0 + sb * 16, 0], out)
        return out_1
''')


def test_cross_core_kernel_left_right_splits_columns():
    after = lavs(CROSS_CORE.replace("MODE", "LEFT_RIGHT"))
    k = function(after, "k")
    stmts = ir.flatten_to_stmts(k.body)
    x = stmts[1]
    assert [d.value for d in x.var.type.shape] == [32, 16]
    assert ir.python_print(x.value.args[1]) == "[0, 0 + subblock_idx * 16]"
    gathers = [s.value for s in stmts if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.aic_gather"]
    assert [g.kwargs["split"] for g in gathers] == [2, 2]
    assert dict(k.attrs) == {"split": 2, "split_aiv": True}


def test_a_pure_vector_split_function_passes_through_untouched():
    before = parse('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        x = pl.load(a, [0, 0], [32, 32])
        o = pl.store(pl.tile.exp(x), [0, 0], out)
        return o
''')
    assert passes.lower_auto_vector_split()(before) is before


def test_functions_without_a_split_or_already_split_aiv_pass_through():
    for attrs in ('', 'pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})'):
        before = parse(CROSS_CORE.replace('pl.func_attr({"split": pl.SplitMode.MODE})', attrs))
        assert passes.lower_auto_vector_split()(before) is before


def test_the_lane_index_takes_a_fresh_name_and_earlier_split_attrs_are_replaced():
    src = CROSS_CORE.replace("MODE", "UP_DOWN").replace(
        'pl.func_attr({"split": pl.SplitMode.UP_DOWN})',
        'pl.func_attr({"slot_num": 4, "dual_aiv_dispatch": True, "split": pl.SplitMode.UP_DOWN})\n'
        '        subblock_idx = pl.tensor.dim(a, 0)')
    after = lavs(src)
    k = function(after, "k")
    first = ir.flatten_to_stmts(k.body)[0]
    assert first.value.op.name == "tile.get_subblock_idx" and first.var.name_hint == "subblock_idx_1"
    assert list(k.attrs.items()) == [("slot_num", 4), ("split", 1), ("split_aiv", True)]


def test_a_full_width_vector_operand_at_a_vector_to_cube_boundary_is_rejected():
    with pytest.raises(ValueError, match=r"the V->C boundary tile.move here carries a full-width vector operand "
                                         r"'v'.*derive the per-lane half first"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, v: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec], w: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        l = pl.move(v, target_memory=pl.Mem.Left)
        c = pl.tile.matmul(l, w)
        o = pl.store(c, [0, 0], out)
        return o
''', run=False)


def test_a_full_width_operand_of_a_vector_op_is_rejected_naming_it():
    with pytest.raises(ValueError, match=r"tile.add here carries a full-width operand 'vec'.*derive the per-lane "
                                         r"half first"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[256, 128], pl.FP32, pl.Mem.Acc], vec: pl.Tile[[256, 128], pl.FP32, pl.Mem.Vec], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        y = pl.tile.add(p, vec)
        o = pl.store(y, [0, 0], out)
        return o
''', run=False)


BIAS = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[256, 128], pl.FP32, pl.Mem.Acc], bias: pl.Tile[BIAS, pl.FP32, pl.Mem.Vec], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.MODE})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        y = pl.tile.add(p, bias)
        o = pl.store(y, [0, 0], out)
        return o
'''


@pytest.mark.parametrize(("bias", "mode", "accepted"), [
    ("[128]", "UP_DOWN", True), ("[128]", "LEFT_RIGHT", False),
    ("[1, 128]", "UP_DOWN", True), ("[1, 128]", "LEFT_RIGHT", False),
    ("[256, 128]", "UP_DOWN", False), ("[256, 128]", "LEFT_RIGHT", False),
])
def test_a_full_width_bias_is_accepted_exactly_where_it_broadcasts_over_the_split_axis(bias, mode, accepted):
    src = BIAS.replace("BIAS", bias).replace("MODE", mode)
    if accepted:
        after = lavs(src)
        assert "tile.aiv_shard" in ops(function(after, "k"))
    else:
        with pytest.raises(ValueError, match=r"tile.add here carries a full-width operand 'bias'"):
            lavs(src, run=False)


def test_a_reduction_over_the_split_axis_is_rejected():
    with pytest.raises(ValueError, match=r"SplitVectorKernel: reduce op 'tile.col_sum' reduces on the split axis \(dim 0\); "
                                         r"partial reduction in a split kernel is not supported"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        s = pl.tile.col_sum(p)
        o = pl.store(s, [0, 0], out)
        return o
''', run=False)


def test_a_row_reduction_under_up_down_halves_with_a_full_width_scratch():
    after = lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[32, 1], pl.FP32]]) -> pl.Tensor[[32, 1], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        tmp = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s = pl.tile.row_sum(p, tmp)
        o = pl.store(s, [0, 0], out)
        return o
''')
    stmts = ir.flatten_to_stmts(function(after, "k").body)
    tmp, row_sum = stmts[2], stmts[3]
    assert [d.value for d in tmp.var.type.shape] == [32, 32], "tile.create is SHARED: it stays full width"
    assert [d.value for d in row_sum.var.type.shape] == [16, 1]


def test_a_positional_generator_cannot_be_halved():
    with pytest.raises(ValueError, match=r"tile.ci generates values from the element position.*automatic "
                                         r"split-axis halving"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.INT32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[32, 32], pl.INT32]]) -> pl.Tensor[[32, 32], pl.INT32]:
        pl.func_attr({"split": pl.SplitMode.LEFT_RIGHT})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        idx = pl.tile.ci(pl.const(0, pl.INT32), [1, 32], dtype=pl.INT32)
        y = pl.tile.add(p, idx)
        o = pl.store(y, [0, 0], out)
        return o
''', run=False)


def test_a_blind_full_width_mask_is_rejected_and_a_halved_one_accepted():
    src = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], m: pl.Tensor[[32, 32], pl.BOOL], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        MASK
        tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        picked = pl.tile.sel(mask, p, p, tmp)
        o = pl.store(picked, [0, 0], out)
        return o
'''
    with pytest.raises(ValueError, match=r"tile.sel carries a full-width operand 'mask' \(operand 0\) that its type "
                                         r"rule does not read"):
        lavs(src.replace("MASK", "mask = pl.tile.create([32, 32], dtype=pl.BOOL, target_memory=pl.Mem.Vec)"),
             run=False)
    after = lavs(src.replace("MASK", "mask = pl.load(m, [0, 0], [32, 32])"))
    stmts = ir.flatten_to_stmts(function(after, "k").body)
    assert [d.value for d in stmts[2].var.type.shape] == [16, 32]  # the mask is loaded per lane


def test_returned_stores_are_localised_like_bound_ones():
    after = lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        return pl.store(pl.tile.exp(p), [0, 0], out)
''')
    ret = ir.flatten_to_stmts(function(after, "k").body)[-1]
    assert ir.python_print(ret.value[0].args[1]) == "[0 + subblock_idx * 16, 0]"


def test_a_mixed_function_whose_body_holds_a_scope_is_rejected():
    with pytest.raises(ValueError, match=r"InCore function 'k' with split=UP_DOWN body still contains a scope"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        with pl.at(level=pl.Level.CORE_GROUP):
            p = pl.move(qk, target_memory=pl.Mem.Vec)
            o = pl.store(p, [0, 0], out)
        return o
''', run=False)


def test_the_pass_declares_its_properties():
    p = passes.lower_auto_vector_split()
    assert p.get_name() == "LowerAutoVectorSplit"
    assert p.get_required_properties() == passes.IRPropertySet(
        ["SSAForm", "IncoreTileOps", "SplitIncoreOrch", "TileOps2D", "TileMemoryInferred", "NormalizedStmtStructure",
         "AivSplitValid"])
    assert p.get_produced_properties() == passes.IRPropertySet(
        ["SSAForm", "IncoreTileOps", "SplitIncoreOrch", "TileOps2D", "TileMemoryInferred", "NormalizedStmtStructure",
         "AivSplitLoweredValid"])
    assert p.get_invalidated_properties() == passes.IRPropertySet(["AivSplitValid"])


def _lavs_with(src: str, **options) -> ir.Program:
    from pypto_core.testing import same_results

    before = parse(src)
    after = passes.lower_auto_vector_split(**options)(before)
    same_results(before, after)
    return after


def test_synthesize_regions_off_keeps_the_flat_form_of_a_ragged_shard():
    assert ir.python_print(_lavs_with(A4_BEFORE, synthesize_regions=False), format=False) == A4_AFTER_TEXT


def test_synthesize_regions_wraps_a_single_vector_phase_and_the_lowered_verifier_accepts_it():
    from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

    after = _lavs_with(A4_BEFORE, synthesize_regions=True)
    k = function(after, "split_auto")
    region, ret = ir.flatten_to_stmts(k.body)
    assert isinstance(region, ir.SplitAivScopeStmt) and region.split == ir.SplitMode.UP_DOWN
    inner = ir.flatten_to_stmts(region.body)
    assert inner[0].value.op.name == "tile.get_subblock_idx", "the lane variable is the region's aiv_id"
    assert [s.value.op.name for s in inner[1:]] == ["tile.aiv_shard", "tile.add", "tile.store"]
    assert isinstance(ret, ir.ReturnStmt)
    assert PropertyVerifierRegistry.verify(["AivSplitLoweredValid"], after) == []


def test_synthesize_regions_keeps_the_flat_form_for_interleaved_cube_and_vector_phases():
    after = _lavs_with(CROSS_CORE.replace("MODE", "UP_DOWN"), synthesize_regions=True)
    assert not any(isinstance(s, ir.SplitAivScopeStmt) for s in ir.flatten_to_stmts(function(after, "k").body))


MIGRATED_GATHER = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc], b: pl.Tile[[16, 16], pl.FP32, pl.Mem.Right], out: pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        p = pl.move(qk, target_memory=pl.Mem.Vec)
        tmp = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s = pl.tile.row_sum(p, tmp)
        r = pl.tile.reshape(s, [1, 16])
        g = pl.tile.move(r, target_memory=pl.Mem.Mat)
        gl = pl.tile.move(g, target_memory=pl.Mem.Left)
        m = pl.tile.matmul(gl, b)
        o = pl.store(m, [0, 0], out)
        return o
'''


def test_synthesize_regions_keeps_the_flat_form_for_a_boundary_whose_split_axis_migrated():
    # A boundary whose split axis a reshape moved keeps the flat form (docs/passes/lower_auto_vector_split.md, what it does): an UP_DOWN
    # region would hold tile.aic_gather(r, split=2), whose printed form inside a region drops split= and does not
    # parse back.
    after = _lavs_with(MIGRATED_GATHER, synthesize_regions=True)
    stmts = ir.flatten_to_stmts(function(after, "k").body)
    assert not any(isinstance(s, ir.SplitAivScopeStmt) for s in stmts)
    gather = next(s.value for s in stmts if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.aic_gather")
    assert gather.kwargs["split"] == 2
    ir.assert_structural_equal(after, parse(ir.python_print(after)))
