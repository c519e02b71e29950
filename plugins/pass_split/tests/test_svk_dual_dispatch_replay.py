"""SplitVectorKernel's no-split dual-AIV replay (docs/passes/split_vector_kernel.md, what it does), program by
program: Before / Expected printed IR on Ascend910B, the same program run before and after on the reference
machine (two AIV lanes), and Ascend950 leaving it alone.

The form: `subblock_idx = pl.tile.get_subblock_idx()`, the leading pipe setup, then ONE
`if subblock_idx == 0:` / `else:` with no return variables and nothing after it. Lane 0 is the body unchanged,
its return included; lane 1 replays it on empty tiles (valid_shape [0, 0]), a store written as `v = store(...)`
becoming the alias `v = dst` (its later uses, the return included, read `dst`) and a store statement dropped.
"""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_core.testing import same_results

from .emk_helpers import on_backend
from .helpers import expect, function, parse

AIV = '@pl.function(type=pl.FunctionType.AIV)'
AIV_AFTER = '@pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker)'
DUAL = '        pl.func_attr({"dual_aiv_dispatch": True})\n'
T16 = "pl.Tensor[[16, 16], pl.FP32]"
VEC = "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]"
EMPTY = "pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[0, 0])]"
CREATE = "pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)"


def svk(program: ir.Program, backend_name: str = "Ascend910B") -> ir.Program:
    """The pass on `backend_name` (verified, round-tripped: the autouse context), checked by execution."""
    with on_backend(backend_name):
        after = passes.split_vector_kernel()(program)
        same_results(program, after)
        same_results(program, after, seed=1)
    return after


# -- straight line: a load, a set_validshape, compute, a store written as an assignment -----------------------
STRAIGHT = f'''
@pl.program
class P:
    {AIV}
    def k(self, a: {T16}, out: pl.Out[{T16}]) -> {T16}:
{DUAL}        x: {VEC} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        n: pl.Scalar[pl.INDEX] = 8
        h: {VEC} = pl.tile.set_validshape(x, n, 16)
        y: {VEC} = pl.tile.exp(h)
        o: {T16} = pl.tile.store(y, [0, 0], out)
        return o
'''

STRAIGHT_AFTER = f'''
@pl.program
class P:
    {AIV_AFTER}
    def k(self, a: {T16}, out: pl.Out[{T16}]) -> {T16}:
{DUAL}        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        if subblock_idx == 0:
            x: {VEC} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
            n: pl.Scalar[pl.INDEX] = 8
            h: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 16])] = pl.tile.set_validshape(x, n, 16)
            y: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[n, 16])] = pl.tile.exp(h)
            o: {T16} = pl.tile.store(y, [0, 0], out)
            return o
        else:
            x_1: {EMPTY} = {CREATE}
            n_1: pl.Scalar[pl.INDEX] = 8
            h_1: {EMPTY} = pl.tile.set_validshape(x_1, 0, 0)
            y_1: {EMPTY} = pl.tile.exp(h_1)
            o_1: {T16} = out
            return out
'''


# -- a store as a statement: dropped on lane 1 ---------------------------------------------------------------
EVAL_STORE = f'''
@pl.program
class P:
    {AIV}
    def k(self, a: {T16}, out: pl.Out[{T16}]) -> {T16}:
{DUAL}        x: {VEC} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        y: {VEC} = pl.tile.exp(x)
        pl.tile.store(y, [0, 0], out)
        return out
'''

EVAL_STORE_AFTER = f'''
@pl.program
class P:
    {AIV_AFTER}
    def k(self, a: {T16}, out: pl.Out[{T16}]) -> {T16}:
{DUAL}        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        if subblock_idx == 0:
            x: {VEC} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
            y: {VEC} = pl.tile.exp(x)
            pl.tile.store(y, [0, 0], out)
            return out
        else:
            x_1: {EMPTY} = {CREATE}
            y_1: {EMPTY} = pl.tile.exp(x_1)
            return out
'''


# -- a loop with a tile accumulator: lane 1's iter_arg takes its (empty) init's type -------------------------
LOOP = f'''
@pl.program
class P:
    {AIV}
    def k(self, a: pl.Tensor[[32, 16], pl.FP32], out: pl.Out[{T16}]) -> {T16}:
{DUAL}        acc0: {VEC} = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(2, init_values=(acc0,)):
            x: {VEC} = pl.tile.load(a, [i * 16, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
            nxt: {VEC} = pl.tile.add(acc, x)
            acc_out = pl.yield_(nxt)
        o: {T16} = pl.tile.store(acc_out, [0, 0], out)
        return o
'''

LOOP_AFTER = f'''
@pl.program
class P:
    {AIV_AFTER}
    def k(self, a: pl.Tensor[[32, 16], pl.FP32], out: pl.Out[{T16}]) -> {T16}:
{DUAL}        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        if subblock_idx == 0:
            acc0: {VEC} = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
            for i, (acc,) in pl.range(2, init_values=(acc0,)):
                x: {VEC} = pl.tile.load(a, [i * 16, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
                nxt: {VEC} = pl.tile.add(acc, x)
                acc_out: {VEC} = pl.yield_(nxt)
            o: {T16} = pl.tile.store(acc_out, [0, 0], out)
            return o
        else:
            acc0_1: {EMPTY} = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
            for i_1, (acc_1,) in pl.range(2, init_values=(acc0_1,)):
                x_1: {EMPTY} = {CREATE}
                nxt_1: {EMPTY} = pl.tile.add(acc_1, x_1)
                acc_out_1: {EMPTY} = pl.yield_(nxt_1)
            o_1: {T16} = out
            return out
'''


# -- an if merging a tile: its branches are replayed separately, its return variable empty --------------------
IF = f'''
@pl.program
class P:
    {AIV}
    def k(self, a: {T16}, n: pl.Scalar[pl.INDEX], out: pl.Out[{T16}]) -> {T16}:
{DUAL}        x: {VEC} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        if n > 2:
            e: {VEC} = pl.tile.exp(x)
            r = pl.yield_(e)
        else:
            r = pl.yield_(x)
        o: {T16} = pl.tile.store(r, [0, 0], out)
        return o
'''

IF_AFTER = f'''
@pl.program
class P:
    {AIV_AFTER}
    def k(self, a: {T16}, n: pl.Scalar[pl.INDEX], out: pl.Out[{T16}]) -> {T16}:
{DUAL}        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        if subblock_idx == 0:
            x: {VEC} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
            if n > 2:
                e: {VEC} = pl.tile.exp(x)
                r: {VEC} = pl.yield_(e)
            else:
                r: {VEC} = pl.yield_(x)
            o: {T16} = pl.tile.store(r, [0, 0], out)
            return o
        else:
            x_1: {EMPTY} = {CREATE}
            if n > 2:
                e_1: {EMPTY} = pl.tile.exp(x_1)
                r_1: {EMPTY} = pl.yield_(e_1)
            else:
                r_1: {EMPTY} = pl.yield_(x_1)
            o_1: {T16} = out
            return out
'''

SINGLE = {"straight_line": (STRAIGHT, STRAIGHT_AFTER), "eval_store": (EVAL_STORE, EVAL_STORE_AFTER),
          "loop_accumulator": (LOOP, LOOP_AFTER), "if": (IF, IF_AFTER)}


@pytest.mark.parametrize("case", sorted(SINGLE))
def test_the_910b_replay_is_one_if_each_lane_returning_from_its_branch(case: str):
    before, expected = SINGLE[case]
    expect(svk(parse(before)), expected)


# -- pops and pushes: a hand-written AIC / AIV pair (ExpandMixedKernel's Ascend910B form) ---------------------
def _group(aiv_body: str, aiv_attrs: str = '{"dual_aiv_dispatch": True}', aiv_decorator: str = "") -> str:
    return f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC, level=pl.Level.AIC, role=pl.Role.SubWorker)
    def k_aic(a: {T16}, out: pl.Out[{T16}]):
        k_c2v_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_c2v_slot_buffer', peer_func='k_aiv')
        k_v2c_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_v2c_slot_buffer', size=2048, base=-1)
        pl.system.aic_initialize_pipe(k_c2v_slot_buffer_import, k_v2c_slot_buffer, dir_mask=3, slot_size=1024, slot_num=2)
        for j in pl.range(2):
            yl_mat: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
            yl: pl.Tile[[16, 16], pl.FP32, pl.Mem.Left] = pl.tile.move(yl_mat, target_memory=pl.Mem.Left)
            pl.system.tfree_to_aiv(yl_mat)
            yr_mat: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=0)
            yr: pl.Tile[[16, 16], pl.FP32, pl.Mem.Right, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.move(yr_mat, target_memory=pl.Mem.Right)
            pl.system.tfree_to_aiv(yr_mat)
            c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(yl, yr)
            pl.tile.tpush_to_aiv(c, split=0)
    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, role=pl.Role.SubWorker{aiv_decorator})
    def k_aiv(a: {T16}, out: pl.Out[{T16}]) -> {T16}:
        pl.func_attr({aiv_attrs})
{aiv_body}
    @pl.function(type=pl.FunctionType.Group, level=pl.Level.CORE_GROUP, role=pl.Role.SubWorker)
    def k(a: {T16}, out: pl.Out[{T16}]) -> {T16}:
        self.k_aic(a, out)
        self.k_aiv(a, out)
        return out
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, a: {T16}, out: pl.Out[{T16}]) -> {T16}:
        r: {T16} = self.k(a, out)
        return r
'''


SETUP = '''\
        k_c2v_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_c2v_slot_buffer', size=2048, base=-1)
        k_v2c_slot_buffer_import: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name='k_v2c_slot_buffer', peer_func='k_aic')
        pl.system.aiv_initialize_pipe(k_c2v_slot_buffer, k_v2c_slot_buffer_import, dir_mask=3, slot_size=1024, slot_num=2)
'''

PUSH_POP_BODY = SETUP + f'''\
        x: {VEC} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        z: {VEC} = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(2, init_values=(z,)):
            y: {VEC} = pl.tile.adds(x, 1.0)
            pl.tile.tpush_to_aic(y, split=0)
            pl.tile.tpush_to_aic(x, split=0)
            v: {VEC} = pl.tile.tpop_from_aic(split=0)
            w: {VEC} = pl.tile.add(acc, v)
            pl.system.tfree_to_aic(v)
            acc_next = pl.yield_(w)
        o: {T16} = pl.tile.store(acc_next, [0, 0], out)
        return o
'''

PUSH_POP_AFTER_BODY = f'''\
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
{SETUP}\
        if subblock_idx == 0:
            x: {VEC} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
            z: {VEC} = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
            for i, (acc,) in pl.range(2, init_values=(z,)):
                y: {VEC} = pl.tile.adds(x, 1.0)
                pl.tile.tpush_to_aic(y, split=0)
                pl.tile.tpush_to_aic(x, split=0)
                v: {VEC} = pl.tile.tpop_from_aic(split=0)
                w: {VEC} = pl.tile.add(acc, v)
                pl.system.tfree_to_aic(v)
                acc_next: {VEC} = pl.yield_(w)
            o: {T16} = pl.tile.store(acc_next, [0, 0], out)
            return o
        else:
            x_1: {EMPTY} = {CREATE}
            z_1: {EMPTY} = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
            for i_1, (acc_1,) in pl.range(2, init_values=(z_1,)):
                y_1: {EMPTY} = pl.tile.adds(x_1, 1.0)
                pl.tile.tpush_to_aic(y_1, split=0)
                pl.tile.tpush_to_aic(x_1, split=0)
                v_1: {EMPTY} = pl.tile.tpop_from_aic(split=0)
                w_1: {EMPTY} = pl.tile.add(acc_1, v_1)
                pl.system.tfree_to_aic(v_1)
                acc_next_1: {EMPTY} = pl.yield_(w_1)
            o_1: {T16} = out
            return out
'''


def test_pops_and_pushes_are_replayed_on_lane_1_and_its_pop_holds_nothing():
    before = parse(_group(PUSH_POP_BODY))
    after = svk(before)
    expect(after, _group(PUSH_POP_AFTER_BODY))
    ir.assert_structural_equal(function(after, "k_aic"), function(before, "k_aic"))  # the cube is not touched


def test_only_the_leading_pipe_setup_runs_before_the_dispatch():
    # The lane index is injected first; a pipe-setup statement after the first other statement stays in the
    # lanes (the maximal leading run only), and `subblock_idx` taken by the body makes the injected one fresh.
    body = SETUP.replace("        pl.system.aiv_initialize_pipe", f"        subblock_idx: {VEC} = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)\n        pl.system.aiv_initialize_pipe")
    body += f'''\
        pl.tile.tpush_to_aic(subblock_idx, split=0)
        pl.tile.tpush_to_aic(subblock_idx, split=0)
        v: {VEC} = pl.tile.tpop_from_aic(split=0)
        pl.system.tfree_to_aic(v)
        pl.tile.tpush_to_aic(subblock_idx, split=0)
        pl.tile.tpush_to_aic(subblock_idx, split=0)
        v2: {VEC} = pl.tile.tpop_from_aic(split=0)
        o: {T16} = pl.tile.store(v2, [0, 0], out)
        pl.system.tfree_to_aic(v2)
        return o
'''
    after = svk(parse(_group(body)))
    aiv = function(after, "k_aiv")
    stmts = ir.flatten_to_stmts(aiv.body)
    assert [type(s).__name__ for s in stmts] == ["AssignStmt", "AssignStmt", "AssignStmt", "IfStmt"]
    lane = stmts[0]
    assert lane.value.op.name == "tile.get_subblock_idx" and lane.var.name_hint == "subblock_idx_1"
    dispatch = stmts[-1]
    assert dispatch.condition.left is lane.var and not dispatch.return_vars
    lane0 = ir.flatten_to_stmts(dispatch.then_body)
    assert isinstance(lane0[0].value, ir.Call) and lane0[0].value.op.name == "tile.load"
    assert lane0[1].expr.op.name == "system.aiv_initialize_pipe"  # after a load: lane 0's, and lane 1 replays it
    lane1 = ir.flatten_to_stmts(dispatch.else_body)
    assert lane1[0].value.op.name == "tile.create" and lane1[1].expr.op.name == "system.aiv_initialize_pipe"
    assert isinstance(lane0[-1], ir.ReturnStmt) and isinstance(lane1[-1], ir.ReturnStmt)


CASES_950 = {**{k: v[0] for k, v in SINGLE.items()}, "push_pop": _group(PUSH_POP_BODY)}


@pytest.mark.parametrize("case", sorted(CASES_950))
def test_on_950_a_dual_dispatch_function_is_left_alone(case: str):
    before = parse(CASES_950[case])
    assert svk(before, "Ascend950") is before


@pytest.mark.parametrize("case", sorted(CASES_950))
def test_a_dual_dispatch_function_with_a_split_mode_is_not_replayed(case: str):
    # The replay is for no-split dual dispatch only: a function-level split mode leaves the body alone.
    src = CASES_950[case].replace('"dual_aiv_dispatch": True}', '"dual_aiv_dispatch": True, "split": pl.SplitMode.UP_DOWN}')
    assert src != CASES_950[case]
    before = parse(src)
    with on_backend("Ascend910B"):
        assert passes.split_vector_kernel()(before) is before


# -- external functions keep their body (docs/passes/split_vector_kernel.md, external functions) --------------
EXTERNAL = f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV, external_source="kernels/k.cpp")
    def k(self, a: {T16}, out: pl.Out[{T16}]) -> {T16}:
        pl.func_attr(ATTRS)
        BODY
'''


@pytest.mark.parametrize("backend_name", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("body", ["...", "pass"])
def test_an_external_split_aiv_function_is_only_stamped(backend_name: str, body: str):
    before = parse(EXTERNAL.replace("ATTRS", '{"split_aiv": True}').replace("BODY", body))
    with on_backend(backend_name):
        after = passes.split_vector_kernel()(before)
    expect(after, EXTERNAL.replace("ATTRS", '{"split_aiv": True, "dual_aiv_dispatch": True}').replace("BODY", "pass"))
    assert not ir.flatten_to_stmts(function(after, "k").body)


@pytest.mark.parametrize("body", ["...", "pass"])
def test_an_external_dual_dispatch_function_on_910b_keeps_its_empty_body(body: str):
    # PyPTO prints the empty body `pass`: the parser takes it back as an external body.
    before = parse(EXTERNAL.replace("ATTRS", '{"dual_aiv_dispatch": True}').replace("BODY", body))
    with on_backend("Ascend910B"):
        assert passes.split_vector_kernel()(before) is before
    assert "external_source" in function(before, "k").attrs and not ir.flatten_to_stmts(function(before, "k").body)


# -- lane 1's empty type: the effective view with valid_shape zeros, layouts kept -----------------------------
@pytest.mark.parametrize("memory", list(ir.MemorySpace), ids=lambda m: m.name)
@pytest.mark.parametrize("explicit", [False, True], ids=["implicit-view", "explicit-view"])
def test_an_emptied_tile_keeps_the_layouts_of_its_effective_view(memory: ir.MemorySpace, explicit: bool):
    from pypto_core.ir.types import TileType, TileView
    from pypto_plugins.pass_split.vector_kernel.lane_replay import empty_tile_type

    view = TileView(blayout=ir.TileLayout.col_major, slayout=ir.TileLayout.row_major) if explicit else None
    t = TileType([16, 32], ir.DataType.FP32, None, view, memory)
    e = empty_tile_type(t)
    before, after = t.effective_view(), e.effective_view()
    assert (after.blayout, after.slayout, after.fractal) == (before.blayout, before.slayout, before.fractal)
    assert [d.value for d in e.valid_shape] == [0, 0] and e.shape == t.shape and e.memory_space is memory
