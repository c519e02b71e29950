"""Boundary ops in a flat split_aiv body (docs/passes/expand_mixed_kernel.md, transfers): a shard of a Vec
parameter is pushed by the AIC as it is; a gather becomes the AIC pop bound to the gather's own variable in Mat
(even when that variable was declared Vec); the move out of it stays on the AIC and the tfree follows that move;
slot_size is the full tile's bytes on both sides."""

from __future__ import annotations

import pytest

from pypto import ir
from pypto_core.ir import expr as E
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import substitute_stmt

from .emk_helpers import BACKENDS, calls_of, emk, has_lines, printed
from .helpers import function, parse

FLAT = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec], w: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        h: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(x, split=1)
        h2: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.adds(h, 1.0)
        full: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.aic_gather(h2, split=1)
        fl: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(full, target_memory=pl.Mem.Left)
        w_m: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat)
        c: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(fl, pl.tile.move(w_m, target_memory=pl.Mem.Right))
        o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return o
'''

AIC = '''
    pl.tile.tpush_to_aiv(x, split=1)
    full: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=1)
    fl: pl.Tile[[32, 32], pl.FP32, pl.Mem.Left] = pl.tile.move(full, target_memory=pl.Mem.Left)
    pl.system.tfree_to_aiv(full)
'''


def _with_vec_gather(program: ir.Program) -> ir.Program:
    """FLAT with `full` declared Vec (the parser insists on the op's Mat, so the IR is edited)."""
    k = program.get_function("k")
    stmts = ir.flatten_to_stmts(k.body)
    full = next(s.var for s in stmts if isinstance(s, ir.AssignStmt) and s.var.name_hint == "full")
    t = full.type
    vec = E.Var("full", TileType(t.shape, t.dtype, None, None, ir.MemorySpace.Vec), full.span)
    return program.with_functions([k.with_fields(body=substitute_stmt(k.body, {full: vec}))])


# AivSplitLoweredValid (docs/passes/lower_auto_vector_split.md) still rejects a Vec shard operand, which the
# pass handles like any other, so the input is not pre-verified.
@pytest.mark.unverified
@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("declared", ["Mat", "Vec"])
def test_a_gather_pops_into_its_own_variable_in_mat_and_the_move_stays_on_the_cube(backend_name: str, declared: str):
    before = parse(FLAT)
    if declared == "Vec":
        before = _with_vec_gather(before)
    after = emk(before, backend_name, run=declared == "Mat")  # the Vec declaration has no runnable source form
    aic, aiv = printed(after, "k_aic"), printed(after, "k_aiv")
    assert has_lines(aic, AIC), aic
    assert len(calls_of(function(after, "k_aiv"), "tile.tpush_to_aic")) == 1  # one crossing, not two
    for side, op in (("k_aic", "system.aic_initialize_pipe"), ("k_aiv", "system.aiv_initialize_pipe")):
        (init,) = calls_of(function(after, side), op)
        assert init.kwargs["slot_size"] == 32 * 32 * 4  # the full tile, on both sides
    assert "h2_nz" in aiv if backend_name == "Ascend950" else "_nz" not in aiv
