"""SplitVectorKernel (docs/passes/split_vector_kernel.md): stamping split_aiv kernels, the rule for split_aiv without
a function-level mode, the Ascend910B no-split dual-AIV replay, pass-through of everything else;
each change run on the reference machine against the program before the pass."""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_core.errors import InternalError
from pypto_core.testing import same_results

from .emk_helpers import BACKENDS, calls_of, emk, on_backend, op_names
from .helpers import expect, function, parse
from .test_expand_mixed_kernel import UNSPLIT


def svk(program: ir.Program, backend_name: str, run: bool = True) -> ir.Program:
    with on_backend(backend_name):
        after = passes.split_vector_kernel()(program)
        if run:
            same_results(program, after)
    return after


EXAMPLE_1 = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV, attrs={"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
    def main_aiv(self, out_0: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        buf: pl.Scalar[pl.INT32] = pl.reserve_buffer(name="c2v_slot_buffer", size=16384, base=-1)
        pl.aiv_initialize_pipe(buf, 0, dir_mask=1, slot_size=8192, slot_num=2)
        z_vec: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tpop_from_aic(split=1)
        o = pl.store(z_vec, [0 + subblock_idx * 8, 0], out_0)
        pl.tfree_to_aic(z_vec)
        return o
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_example_1_a_split_aiv_kernel_is_stamped_and_its_body_untouched(backend_name: str):
    before = parse(EXAMPLE_1)
    after = svk(before, backend_name, run=False)  # a pop needs its AIC: run below, through the whole chain
    aiv = function(after, "main_aiv")
    assert aiv.attrs["dual_aiv_dispatch"] is True and aiv.attrs["split"] == int(ir.SplitMode.UP_DOWN)
    assert ir.structural_equal(aiv.body, function(before, "main_aiv").body)
    assert op_names(aiv).count("tile.get_subblock_idx") == 1
    assert [d.value for d in calls_of(aiv, "tile.tpop_from_aic")[0].type.shape] == [8, 128]  # not halved again


EXAMPLE_2_BEFORE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
    def main_aiv(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        slot_buf = pl.system.import_peer_buffer(name="v2c_slot_buffer", peer_func="main_aic")  # the AIV produces V2C: it imports
        pl.aiv_initialize_pipe(dir_mask=2, slot_size=512, v2c_consumer_buf=slot_buf)
        a_tile = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        b_tile = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
        summed = pl.add(a_tile, b_tile)
        pl.tpush_to_aic(summed, split=0)
        return out
'''

# The no-split dual-AIV replay after the pass (lane 1 carries empty tiles with valid_shape=[0, 0]; docs/passes/split_vector_kernel.md, example).
EXAMPLE_2_AFTER = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
    def main_aiv(self, a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        slot_buf = pl.system.import_peer_buffer(name="v2c_slot_buffer", peer_func="main_aic")  # the AIV produces V2C: it imports
        pl.aiv_initialize_pipe(dir_mask=2, slot_size=512, v2c_consumer_buf=slot_buf)
        if subblock_idx == 0:
            a_tile = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
            b_tile = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Vec)
            summed = pl.add(a_tile, b_tile)
            pl.tpush_to_aic(summed, split=0)
            return out
        else:
            a_tile: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = \\
                pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            b_tile: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = \\
                pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            summed: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])] = \\
                pl.add(a_tile, b_tile)
            pl.tpush_to_aic(summed, split=0)        # the handshake still fires
            return out                              # each lane returns from its branch; nothing follows the if
'''


def test_example_2_the_910b_no_split_dispatch_replays_lane_1_on_empty_tiles():
    expect(svk(parse(EXAMPLE_2_BEFORE), "Ascend910B", run=False), EXAMPLE_2_AFTER)


def test_on_950_a_dual_dispatch_aiv_function_passes_through():
    before = parse(EXAMPLE_2_BEFORE)
    assert svk(before, "Ascend950", run=False) is before


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_after_expand_mixed_kernel_the_group_still_computes_the_kernel(backend_name: str):
    source = parse(UNSPLIT)
    expanded = emk(source, backend_name)
    after = svk(expanded, backend_name)
    with on_backend(backend_name):
        same_results(source, after)
    aiv = function(after, "k_aiv")
    if backend_name == "Ascend910B":
        (dispatch,) = [s for s in ir.flatten_to_stmts(aiv.body) if isinstance(s, ir.IfStmt)]
        lane1 = op_names(ir.Function("l1", [], [], dispatch.else_body))
        assert "tile.store" not in lane1 and "tile.load" not in lane1  # no GM traffic on lane 1
        assert lane1.count("tile.tpush_to_aic") == 2 and lane1.count("tile.tpop_from_aic") == 1  # handshakes kept
        assert lane1.count("system.tfree_to_aic") == 1
        assert ir.flatten_to_stmts(aiv.body)[-1] is dispatch  # nothing after the if: each lane returns
        (ret0,) = [s for s in ir.flatten_to_stmts(dispatch.then_body) if isinstance(s, ir.ReturnStmt)]
        (ret1,) = [s for s in ir.flatten_to_stmts(dispatch.else_body) if isinstance(s, ir.ReturnStmt)]
        assert [v.name_hint for v in ret0.value] == ["o"]  # lane 0's return, unchanged
        assert ret1.value[0] is aiv.params[-1]  # lane 1's store result is its tensor
    else:
        assert not [s for s in ir.flatten_to_stmts(aiv.body) if isinstance(s, ir.IfStmt)]


REPLAY_FORMS = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        z: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([32, 32], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(2, init_values=(z,)):
            x: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec)
            part: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(x, [16, 32], [0, 0], [16, 32])
            acc_next = pl.yield_(pl.tile.add(acc, pl.tile.adds(x, pl.tile.read(part, [0, 0]))))
        if i == 1:
            s_fin = pl.yield_(pl.tile.exp(acc_next))
        else:
            s_fin = pl.yield_(acc_next)
        y_r: pl.Tile[[32, 32], pl.FP32, pl.Mem.Right] = pl.move(pl.tile.load(b, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Vec), target_memory=pl.Mem.Right)
        s_l: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.move(s_fin, target_memory=pl.Mem.Left)
        c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(s_l, y_r)
        o: pl.Tensor[[32, 32], pl.FP32] = pl.store(c, [0, 0], out)
        return o
'''


def test_the_replay_recurses_through_loops_and_ifs_with_empty_tiles_and_keeps_the_handshakes():
    source = parse(REPLAY_FORMS.replace("if i == 1:", "if 1 == 1:"))
    after = svk(emk(source, "Ascend910B"), "Ascend910B")
    with on_backend("Ascend910B"):
        same_results(source, after)
    aiv = function(after, "k_aiv")
    (dispatch,) = [s for s in ir.flatten_to_stmts(aiv.body) if isinstance(s, ir.IfStmt)]
    lane1 = ir.flatten_to_stmts(dispatch.else_body)
    (loop,) = [s for s in lane1 if isinstance(s, ir.ForStmt)]
    carried = loop.iter_args[0].type.tile_view.valid_shape
    assert [d.value for d in carried] == [0, 0]  # the tile carry takes the empty valid region
    (sl,) = [c for c in calls_of(ir.Function("l1", [], [], dispatch.else_body), "tile.slice")]
    assert [e.value for e in sl.args[3].elements] == [0, 0]  # a valid_shape operand is zeroed
    assert "tile.tpush_to_aic" in op_names(ir.Function("l1", [], [], dispatch.else_body))


NONE_REGION_AIV = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV, attrs={"split_aiv": True})
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        o: pl.Tensor[[16, 16], pl.FP32] = pl.store(pl.tile.exp(x), [0, 0], out)
        return o
'''


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_split_aiv_without_a_function_mode_dispatches_both_lanes_and_invents_no_split(backend_name: str):
    after = svk(parse(NONE_REGION_AIV), backend_name)
    k = function(after, "k")
    assert k.attrs.get("dual_aiv_dispatch") is True and "split" not in k.attrs
    assert not [s for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.IfStmt)]  # no replay on any backend


def test_split_aiv_whose_transfers_carry_one_mode_but_no_function_split_is_an_internal_error():
    src = EXAMPLE_1.replace('attrs={"split": pl.SplitMode.UP_DOWN, "split_aiv": True}', 'attrs={"split_aiv": True}')
    with pytest.raises(InternalError, match=r"carry UP_DOWN split codes, but it has no function-level split"):
        svk(parse(src), "Ascend950", run=False)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_split_function_without_split_aiv_passes_through(backend_name: str):
    src = NONE_REGION_AIV.replace('attrs={"split_aiv": True}', 'attrs={"split": pl.SplitMode.UP_DOWN}')
    before = parse(src)
    assert svk(before, backend_name) is before


def test_the_vector_kernel_split_verifier_reports_a_split_aiv_aiv_function_dispatching_one_lane():
    props = passes.IRPropertySet()
    props.insert(passes.IRProperty.VectorKernelSplit)
    found = [d.message for d in passes.PropertyVerifierRegistry.verify(props, parse(NONE_REGION_AIV))]
    assert any("is split_aiv but not marked dual_aiv_dispatch" in m for m in found), found
    with on_backend("Ascend950"):
        fixed = passes.split_vector_kernel()(parse(NONE_REGION_AIV))
    assert passes.PropertyVerifierRegistry.verify(props, fixed) == []


SLICE_WITHOUT_VALID = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
    def main_aiv(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(x, [8, 16], [0, 0])
        v: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.set_validshape(s, 4, 16)
        o = pl.store(v, [0, 0], out)
        return o
'''


def test_lane_1_zeroes_the_valid_shape_operand_of_a_slice_written_without_one():
    # A valid_shape operand is zeroed, appended when omitted (docs/passes/split_vector_kernel.md, what it does): the operand, not only the type.
    after = svk(parse(SLICE_WITHOUT_VALID), "Ascend910B")
    text = ir.python_print(after)
    assert "pl.tile.slice(x_1, [8, 16], [0, 0], [0, 0])" in text, text
    assert "pl.tile.set_validshape(s_1, 0, 0)" in text, text
    ir.assert_structural_equal(after, parse(text))
