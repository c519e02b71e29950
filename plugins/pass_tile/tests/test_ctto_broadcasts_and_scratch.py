"""ConvertTensorToTileOps, PyPTO's conversion table (docs/passes/convert_tensor_to_tile_ops.md): a row-vector
operand of add / sub / mul is a `tile.row_expand_*` (the wide operand first), a row reduction's scratch
`tmp_tile` has the last dim raised to 128, an arg-reduction's the operand's shape. Each program also runs on
the reference machine before and after, through the whole default pipeline on both backends."""

from __future__ import annotations

import pytest

from .ctto_forms import body, converted

BROADCAST = '''
@pl.program
class P:
    @pl.function
    def main(self, r: pl.Tensor[[16, 64], pl.FP32], v: pl.Tensor[[16, 1], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            d = EXPR
        return d
'''


@pytest.mark.parametrize(("expr", "line"), [
    ("pl.add(r, v)", "d__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_add(r__tile, v__tile)"),
    ("pl.mul(r, v)", "pl.tile.row_expand_mul(r__tile, v__tile)"),
    ("pl.sub(r, v)", "pl.tile.row_expand_sub(r__tile, v__tile)"),
    # the wide operand first, as PyPTO's
    ("pl.add(v, r)", "pl.tile.row_expand_add(r__tile, v__tile)"),
    ("pl.mul(v, r)", "pl.tile.row_expand_mul(r__tile, v__tile)"),
    # v - r is not r - v: negated (PyPTO swaps the operands and computes r - v)
    ("pl.sub(v, r)", "row_expand_sub: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(r__tile, v__tile)\n"
                     "d__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.neg(row_expand_sub)"),
    # two wide operands: the plain op
    ("pl.add(r, r)", "pl.tile.add(r__tile, r__tile)"),
])
def test_a_row_vector_operand_is_a_row_expand(expr: str, line: str) -> None:
    text = body(converted(BROADCAST.replace("EXPR", expr)))
    assert line in text, text


def test_a_row_vector_computed_in_the_kernel_broadcasts_too() -> None:
    text = body(converted('''
@pl.program
class P:
    @pl.function
    def main(self, r: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[8, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.row_max(r)
            d = pl.sub(r, m)
            e = pl.exp(d)
        return e
'''))
    assert "d__tile: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.row_expand_sub(r__tile, m__tile)" in text, text


REDUCE = '''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32]) -> pl.Tensor[[ROWS, 1], OUT]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = OP(x)
        return s
'''


@pytest.mark.parametrize(("rows", "cols", "op", "out", "scratch"), [
    (16, 64, "pl.row_sum", "pl.FP32", "[16, 128]"),
    (8, 32, "pl.row_max", "pl.FP32", "[8, 128]"),
    (4, 128, "pl.row_min", "pl.FP32", "[4, 128]"),
    (2, 256, "pl.row_sum", "pl.FP32", "[2, 256]"),
])
def test_a_row_reduction_scratch_is_at_least_128_wide(rows: int, cols: int, op: str, out: str, scratch: str) -> None:
    src = REDUCE.replace("ROWS", str(rows)).replace("COLS", str(cols)).replace("OP", op).replace("OUT", out)
    text = body(converted(src))
    assert (f"tmp_tile: pl.Tile[{scratch}, pl.FP32, pl.Mem.Vec] = pl.tile.create({scratch}, dtype=pl.FP32, "
            f"target_memory=pl.Mem.Vec)") in text, text
    assert f"s__tile: pl.Tile[[{rows}, 1], pl.FP32, pl.Mem.Vec] = pl.tile.{op[3:]}(x__tile, tmp_tile)" in text, text


def test_an_arg_reduction_scratch_has_the_operand_shape() -> None:
    text = body(converted('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[8, 32], pl.FP32]) -> pl.Tensor[[8, 1], pl.INT32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.row_argmax(x)
        return s
'''))
    assert "tmp_tile: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([8, 32]" in text, text


def test_a_row_vector_of_other_rows_keeps_the_broadcasting_op() -> None:
    # [1, 1] against [16, 64]: tile.row_expand_add needs the rows to match (PyPTO raises; pypto broadcasts)
    text = body(converted(BROADCAST.replace("[16, 1]", "[1, 1]").replace("EXPR", "pl.add(r, v)")))
    assert "pl.tile.add(r__tile, v__tile)" in text, text
