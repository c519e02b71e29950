"""InferTileMemorySpace's layout kwargs on the moves it inserts (docs/passes/infer_tile_memory_space.md,
moves): an Acc -> Vec move always writes a flat row-major tile; a move for an operand whose backend
instruction reads it row-major (the consumer's `row_major_layout`) writes `blayout=row_major, slayout=none_box`;
any other move none, so a Mat -> Vec move keeps the Mat layout. The first consumer decides, later ones reuse the
move. Before -> Expected structurally, executed on the machine of both backends."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

from .helpers import BACKENDS, HEADER

PARAMS = "self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]"
RET = "pl.Tensor[[16, 64], pl.FP32]"
MAT_VIEW = "pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)"


def program(body: str, params: str = PARAMS, ret: str = RET) -> str:
    return f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k({params}) -> {ret}:
{body}
        return out2
'''


def infer(src: str, backend: str) -> ir.Program:
    before = passes.convert_to_ssa()(pl.parse(HEADER + src))
    with passes.PassContext([], backend=backend):
        after = passes.infer_tile_memory_space()(before)
    same_results(before, after, backend=backend)
    return after


def expect(after: ir.Program, src: str) -> None:
    ir.assert_structural_equal(after, passes.convert_to_ssa()(pl.parse(HEADER + src)))


LOAD_M = "        m: pl.Tile[[16, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)\n"

# W2: the first consumer (exp) reads row-major: one flat move, reused by add and store.
W2 = LOAD_M + """        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(m)
        s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(e, m)
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(m, [0, 0], out)"""
W2_EXPECTED = LOAD_M + """        m_Vec: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(m, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)
        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(m_Vec)
        s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(e, m_Vec)
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(m_Vec, [0, 0], out)"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_w2_the_first_consumer_reading_row_major_gives_the_move_its_layout(backend):
    expect(infer(program(W2), backend), program(W2_EXPECTED))


# The first consumer (neg) takes any layout: the move keeps Mat's layout, and so does the value downstream.
NEG_FIRST = LOAD_M + """        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.neg(m)
        s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(m)
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s, [0, 0], out)"""
NEG_FIRST_EXPECTED = LOAD_M + f"""        m_Vec: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, {MAT_VIEW}] = pl.tile.move(m, target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, {MAT_VIEW}] = pl.tile.neg(m_Vec)
        s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, {MAT_VIEW}] = pl.tile.exp(m_Vec)
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(s, [0, 0], out)"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_first_consumer_taking_any_layout_leaves_the_move_without_kwargs(backend):
    expect(infer(program(NEG_FIRST), backend), program(NEG_FIRST_EXPECTED))


ROW_SUM = LOAD_M + """        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(m, t)
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand(m, r)
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_reductions_and_expands_take_the_mat_layout(backend):
    after = infer(program(ROW_SUM), backend)
    text = ir.python_print(after)
    assert f"m__ssa_v0_Vec: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec, {MAT_VIEW}] = pl.tile.move(m__ssa_v0, " \
           "target_memory=pl.Mem.Vec)" in text


CAST_SEL_PARAMS = ("self, a: pl.Tensor[[16, 64], pl.FP32], b: pl.Tensor[[16, 64], pl.FP32], "
                   "out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
CAST_SEL = LOAD_M + """        n: pl.Tile[[16, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        h: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(m, pl.BF16, mode="rint")
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(h, pl.FP32)
        x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.maximum(w, n)
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(x, [0, 0], out)"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_cast_and_binary_operands_are_moved_flat(backend):
    text = ir.python_print(infer(program(CAST_SEL, CAST_SEL_PARAMS), backend))
    for name in ("m", "n"):
        assert (f"{name}__ssa_v0_Vec: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move({name}__ssa_v0, "
                "target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)") in text


# W1: an Acc -> Vec move is flat whatever its consumer (here a store-less neg, which has no layout need).
ACC_PARAMS = ("self, a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16], "
              "out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]")
ACC_BODY = """        ta: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)
        tb: pl.Tile[[64, 32], pl.BF16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Mat)
        z: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(ta, tb)
        y: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.neg(z)
        out2: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(y, [0, 0], out)"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_acc_to_vec_move_is_always_flat(backend):
    text = ir.python_print(infer(program(ACC_BODY, ACC_PARAMS, "pl.Tensor[[16, 32], pl.FP32]"), backend))
    assert ("z__ssa_v0_Vec: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(z__ssa_v0, "
            "target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)") in text
    # the matmul operands' moves into Left / Right carry no layout kwargs
    assert "pl.tile.move(ta__ssa_v0, target_memory=pl.Mem.Left)" in text
    assert "pl.tile.move(tb__ssa_v0, target_memory=pl.Mem.Right)" in text
