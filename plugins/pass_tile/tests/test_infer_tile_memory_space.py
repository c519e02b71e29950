"""InferTileMemorySpace on InCore functions written with tile ops (the way PyPTO's tests write them):
Before -> Expected compared structurally, each case also run on the reference machine."""

from __future__ import annotations

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

from .helpers import HEADER, function, lower, same_results


def infer(src: str, run: bool = True) -> ir.Program:
    before = passes.convert_to_ssa()(pl.parse(HEADER + src))
    after = passes.infer_tile_memory_space()(before)
    if run:
        same_results(before, after)
    return after


def expect(after: ir.Program, src: str) -> None:
    ir.assert_structural_equal(after, passes.convert_to_ssa()(pl.parse(HEADER + src)))


def test_a_vector_chain_stays_in_vec():
    src = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32] = pl.load(x, [0, 0], [16, 64])
        u: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(t)
        out = pl.store(u, [0, 0], out)
        return out
'''
    after = infer(src)
    expect(after, src)  # nothing to move: the pass returns the program as it was


def test_matmul_operands_loaded_into_mat_are_moved_to_left_and_right_before_the_matmul():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.BF16], b: pl.Tensor[[128, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a_tile = pl.load(a, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
        b_tile = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        c_tile = pl.tile.matmul(a_tile, b_tile)
        out = pl.store(c_tile, [0, 0], out)
        return out
''')
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.BF16], b: pl.Tensor[[128, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        a_tile: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.load(a, [0, 0], [16, 128], target_memory=pl.Mem.Mat)
        b_tile: pl.Tile[[128, 64], pl.BF16, pl.Mem.Mat] = pl.load(b, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        a_tile_Left: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left] = pl.move(a_tile, target_memory=pl.Mem.Left)
        b_tile_Right: pl.Tile[[128, 64], pl.BF16, pl.Mem.Right] = pl.move(b_tile, target_memory=pl.Mem.Right)
        c_tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_tile_Left, b_tile_Right)
        out = pl.store(c_tile, [0, 0], out)
        return out
''')
    names = [s.var.name_hint for s in ir.flatten_to_stmts(function(after, "k").body) if isinstance(s, ir.AssignStmt)]
    assert "a_tile__ssa_v0_Left" in names or "a_tile_Left" in names


def test_a_deferred_load_takes_its_consumers_demand_clamped_to_vec_or_mat():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], c: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_t = pl.load(a, [0, 0], [16, 32], target_memory=None)
        b_t = pl.load(b, [0, 0], [32, 32], target_memory=None)
        c_t = pl.load(c, [0, 0], [16, 32], target_memory=None)
        p = pl.tile.matmul(a_t, b_t)
        out = pl.store(c_t, [0, 0], out)
        return out
''')
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32], c: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        a_t = pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat)
        b_t = pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        c_t = pl.load(c, [0, 0], [16, 32], target_memory=pl.Mem.Vec)
        a_t_Left = pl.move(a_t, target_memory=pl.Mem.Left)
        b_t_Right = pl.move(b_t, target_memory=pl.Mem.Right)
        p = pl.tile.matmul(a_t_Left, b_t_Right)
        out = pl.store(c_t, [0, 0], out)
        return out
''')


def test_a_demand_flows_back_through_ops_that_keep_their_input_space():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_t = pl.load(a, [0, 0], [16, 32], target_memory=None)
        b_t = pl.load(b, [0, 0], [16, 32], target_memory=None)
        bt = pl.tile.transpose(b_t, 0, 1)
        c = pl.tile.matmul(a_t, bt)
        out = pl.store(c, [0, 0], out)
        return out
''')
    stmts = ir.flatten_to_stmts(function(after, "k").body)
    b_load, transposed = stmts[1].var, stmts[2].var
    assert b_load.type.memory_space is ir.MemorySpace.Mat, "transpose inherits its input: the Right demand reaches b"
    assert transposed.type.memory_space is ir.MemorySpace.Mat
    moves = [s.value.kwargs["target_memory"] for s in stmts if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.move"]
    assert moves == [ir.MemorySpace.Left, ir.MemorySpace.Right]


def test_a_cube_demand_wins_over_vec_and_the_vector_consumer_gets_a_move():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        a_t = pl.load(a, [0, 0], [32, 32], target_memory=None)
        e = pl.tile.exp(a_t)
        c = pl.tile.matmul(a_t, a_t)
        out = pl.store(c, [0, 0], out)
        return out
''')
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        a_t = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        a_t_Vec = pl.move(a_t, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)
        e = pl.tile.exp(a_t_Vec)
        a_t_Left = pl.move(a_t, target_memory=pl.Mem.Left)
        a_t_Right = pl.move(a_t, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(a_t_Left, a_t_Right)
        out = pl.store(c, [0, 0], out)
        return out
''')


def test_an_acc_result_read_by_a_vector_op_is_moved_with_a_row_major_layout_and_moves_are_reused():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_t = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul(pl.move(a_t, target_memory=pl.Mem.Left), pl.move(a_t, target_memory=pl.Mem.Right))
        e = pl.tile.exp(c)
        f = pl.tile.add(c, e)
        out = pl.store(f, [0, 0], out)
        return out
''')
    stmts = ir.flatten_to_stmts(function(after, "k").body)
    moves = [s for s in stmts if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.move"]
    assert len(moves) == 1, "one move of c serves both vector consumers in the block"
    kw = moves[0].value.kwargs
    assert kw["target_memory"] is ir.MemorySpace.Vec and kw["blayout"] is ir.TileLayout.row_major
    assert kw["slayout"] is ir.TileLayout.none_box


def test_a_move_made_before_a_loop_is_reused_in_its_body():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        x = pl.tile.exp(m)
        for i in pl.range(2):
            y = pl.tile.exp(m)
            out = pl.store(y, [0, 0], out)
        z = pl.tile.add(m, x)
        out = pl.store(z, [0, 0], out)
        return out
''')
    body = function(after, "k").body
    top = ir.flatten_to_stmts(body)
    top_moves = [s for s in top if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.move"]
    (loop,) = [s for s in top if isinstance(s, ir.ForStmt)]
    loop_moves = [s for s in ir.flatten_to_stmts(loop.body) if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.move"]
    # The move made for `x` (before the loop) serves the loop body and `z` (docs/passes/infer_tile_memory_space.md).
    assert len(top_moves) == 1 and not loop_moves


def test_a_vec_accumulator_that_matmul_acc_updates_in_a_loop_becomes_acc():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[64, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        acc = pl.tile.create([16, 16], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        for i in pl.range(2):
            a_t = pl.load(a, [0, i * 32], [16, 32], target_memory=pl.Mem.Mat)
            b_t = pl.load(b, [i * 32, 0], [32, 16], target_memory=pl.Mem.Mat)
            acc = pl.tile.matmul_acc(acc, pl.move(a_t, target_memory=pl.Mem.Left), pl.move(b_t, target_memory=pl.Mem.Right))
        out = pl.store(acc, [0, 0], out)
        return out
''', run=False)
    stmts = ir.flatten_to_stmts(function(after, "k").body)
    create, loop = stmts[0], stmts[1]
    assert create.value.kwargs["target_memory"] is ir.MemorySpace.Acc
    assert create.var.type.memory_space is ir.MemorySpace.Acc
    assert loop.iter_args[0].type.memory_space is ir.MemorySpace.Acc
    assert loop.return_vars[0].type.memory_space is ir.MemorySpace.Acc
    assert not any(isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.move" for s in stmts)


@pytest.mark.unverified
def test_an_if_merge_has_a_space_only_when_both_branches_agree():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        v = pl.load(a, [0, 0], [16, 16], target_memory=None)
        w = pl.load(a, [0, 0], [16, 16], target_memory=None)
        e = pl.tile.exp(v)
        c = pl.tile.matmul(w, w)
        if n > 0:
            r = pl.tile.reshape(v, [16, 16])
            q = pl.tile.exp(v)
        else:
            r = pl.tile.reshape(w, [16, 16])
            q = pl.tile.add(v, v)
        s = pl.tile.reshape(r, [16, 16])
        out = pl.store(q, [0, 0], out)
        return out
''', run=False)
    (branch,) = [s for s in ir.flatten_to_stmts(function(after, "k").body) if isinstance(s, ir.IfStmt)]
    q, r = branch.return_vars  # phis ordered by name (docs/passes/convert_to_ssa.md)
    assert r.type.memory_space is None, "Vec in one branch, Mat in the other: no space"
    assert q.type.memory_space is ir.MemorySpace.Vec, "both branches Vec"
    messages = [d.message for d in PropertyVerifierRegistry.verify(["TileMemoryInferred"], after)]
    assert any("TileType variable 's" in m and "has no memory_space set" in m for m in messages), messages


@pytest.mark.unverified
def test_the_verifier_names_unplaced_variables_and_misplaced_operands():
    program = passes.convert_to_ssa()(pl.parse(HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        d = pl.load(a, [0, 0], [16, 16], target_memory=None)
        c = pl.tile.matmul(m, m)
        out = pl.store(c, [0, 0], out)
        return out
'''))
    messages = [d.message for d in PropertyVerifierRegistry.verify(["TileMemoryInferred"], program)]
    assert any("InCore function 'k': TileType variable 'd" in m and "has no memory_space set" in m for m in messages)
    assert any("Op 'tile.matmul' input 0 ('m" in m and "requires Left but is in Mat" in m for m in messages)
    assert any("Op 'tile.matmul' input 1 ('m" in m and "requires Right but is in Mat" in m for m in messages)
    fixed = passes.infer_tile_memory_space()(program)
    assert PropertyVerifierRegistry.verify(["TileMemoryInferred"], fixed) == []


@pytest.mark.unverified
def test_storing_an_accumulator_straight_into_an_int8_tensor_is_reported_with_the_fix():
    program = passes.convert_to_ssa()(pl.parse(HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.INT8], out: pl.Out[pl.Tensor[[16, 16], pl.INT8]]) -> pl.Tensor[[16, 16], pl.INT8]:
        m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul(pl.move(m, target_memory=pl.Mem.Left), pl.move(m, target_memory=pl.Mem.Right))
        out = pl.store(c, [0, 0], out)
        return out
'''))
    diags = PropertyVerifierRegistry.verify(["AccToGmStoreValid"], program)
    assert len(diags) == 1
    message = diags[0].message
    assert "INT8 tensor" in message and "pl.move(c" in message and "target_memory=pl.Mem.Vec" in message
    assert "pl.cast(" in message


def test_a_tile_parameter_without_a_memory_space_built_by_hand_is_a_user_error():
    program = ir.Program([ir.Function(
        "k", [(ir.Var("t", ir.TileType([16, 16], pl.FP32)), ir.ParamDirection.In)], [],
        ir.ReturnStmt([]), type=ir.FunctionType.InCore)], "P")
    with pytest.raises(ValueError, match="tile parameter 't' with no memory space") as info:
        passes.infer_tile_memory_space()(program)
    assert not isinstance(info.value, pypto.InternalError)


@pytest.mark.parametrize(("annotation", "returned"), [
    ("pl.Tile[[16, 16], pl.FP32]", "out"),
    ("pl.Tile[[16, 64], pl.BF16]", "out"),
])
def test_a_written_kernel_tile_parameter_without_a_memory_space_is_located(annotation, returned):
    # An InCore function written with a tile parameter and no pl.Mem space is the program's error, located, not
    # an InternalError ("please report this bug"): the program, not a pass, leaves the space out.
    text = f"""import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, out: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
             x: {annotation}) -> pl.Tensor[[16, 16], pl.FP32]:
        return {returned}
"""
    program = pl.parse(text, "kernel.py")
    with pytest.raises(ValueError) as info:
        passes.infer_tile_memory_space()(passes.convert_to_ssa()(program))
    message = str(info.value)
    assert not isinstance(info.value, pypto.InternalError)
    assert "InCore function 'main' has a tile parameter 'x' with no memory space" in message, message
    assert "pass a tensor and load it inside the kernel, or give the tile its space" in message
    assert "--> kernel.py:7:" in message, message


def test_the_tile_preset_places_the_cross_core_kernel():
    after = lower('''
@pl.program
class CrossCore:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
             output: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a_plus_b = pl.add(a, b)
            sub = pl.sub(a, b)
            out = pl.matmul(a_plus_b, sub)
            output = pl.assemble(output, out, [0, 0])
        return output
''', upto="infer_tile_memory_space")
    ops = [(s.value.op.name, s.var.type.memory_space) for s in ir.flatten_to_stmts(function(after, "main_incore_0").body)
           if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call) and isinstance(s.var.type, ir.TileType)]
    assert ops == [("tile.load", ir.MemorySpace.Vec), ("tile.load", ir.MemorySpace.Vec),
                   ("tile.add", ir.MemorySpace.Vec), ("tile.sub", ir.MemorySpace.Vec),
                   ("tile.move", ir.MemorySpace.Left), ("tile.move", ir.MemorySpace.Right),
                   ("tile.matmul", ir.MemorySpace.Acc)]
    assert PropertyVerifierRegistry.verify(["TileMemoryInferred", "AccToGmStoreValid"], after) == []


def test_the_pass_declares_api_properties():
    p = passes.infer_tile_memory_space()
    assert p.get_name() == "InferTileMemorySpace"
    assert p.get_required_properties() == passes.IRPropertySet(
        ["SSAForm", "IncoreTileOps", "SplitIncoreOrch", "NormalizedStmtStructure"])
    assert p.get_produced_properties() == passes.IRPropertySet(
        ["SSAForm", "TileMemoryInferred", "NormalizedStmtStructure", "AivSplitValid", "AccToGmStoreValid"])
    assert p.get_invalidated_properties() == passes.IRPropertySet(["AivSplitValid"])
