"""ConvertTensorToTileOps' staged full-tensor scalar updates (docs/passes/convert_tensor_to_tile_ops.md, rule 1;
the second half of PyPTO's example 4): `S = pl.tensor.full(...)`, `T = pl.assemble(D, S, [0, 0])` into a
parameter and then only scalar writes into `T` write into the staged tile instead, stored once before the return
(no MTE3 / scalar mix). Anything else that reads `T` keeps the order, and the mix is the located error."""

from __future__ import annotations

import pytest

from pypto import passes

from .ctto_forms import body, converted, prepared

STAGED = '''
@pl.program
class P4:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, p: pl.Out[pl.Tensor[[1, 32], pl.INT32]], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[1, 32], pl.INT32]:
        staged = pl.tensor.full([1, 32], dtype=pl.INT32, value=-1)
        p = pl.assemble(p, staged, [0, 0])
        WRITES
        return p
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, p: pl.Out[pl.Tensor[[1, 32], pl.INT32]]) -> pl.Tensor[[1, 32], pl.INT32]:
        p = self.k(p, 3)
        return p
'''


@pytest.mark.parametrize("writes", [
    "pl.tensor.write(p, [0, n], pl.const(5, pl.INT32))",
    "pl.tensor.write(p, [0, n], pl.const(5, pl.INT32))\n        pl.tensor.write(p, [0, 0], pl.const(9, pl.INT32))",
])
def test_scalar_writes_after_a_staged_full_go_into_the_tile_and_one_store_ends(writes: str) -> None:
    text = body(converted(STAGED.replace("WRITES", writes)), "k")
    lines = text.splitlines()
    assert lines[0].startswith("staged__tile: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.full("), text
    assert "pl.tensor.write" not in text and text.count("pl.tile.store(") == 1, text
    assert lines[-2].startswith("p__tile: pl.Tensor[[1, 32], pl.INT32] = pl.tile.store("), text
    assert lines[-1] == "return p__tile", text


@pytest.mark.parametrize(("writes", "carries"), [
    # writes in a loop: the staged tile is carried through it
    ("for i in pl.range(4):\n            pl.tensor.write(p, [0, i * 2], pl.const(1, pl.INT32))",
     ["for i__idx_v0, (staged__iter_v1,) in pl.range(4, init_values=(staged__tile,)):",
      "staged__tile_1: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.write(staged__iter_v1, [0, i__idx_v0 * 2], "
      "pl.const(1, pl.INT32))",
      "staged__rv_v1: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.yield_(staged__tile_1)",
      "p__tile: pl.Tensor[[1, 32], pl.INT32] = pl.tile.store(staged__rv_v1, [0, 0], p__ssa_v0)"]),
    # a write in one branch of an if: merged with the untouched tile of the other
    ("if n > 2:\n            pl.tensor.write(p, [0, n], pl.const(5, pl.INT32))",
     ["staged__tile_1: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.write(staged__tile, [0, n__ssa_v0], "
      "pl.const(5, pl.INT32))",
      "staged__phi_v2: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.yield_(staged__tile_1)",
      "staged__phi_v2: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.yield_(staged__tile)",
      "p__tile: pl.Tensor[[1, 32], pl.INT32] = pl.tile.store(staged__phi_v2, [0, 0], p__ssa_v0)"]),
    # a top-level write, then writes in a loop inside an if
    ("pl.tensor.write(p, [0, 0], pl.const(3, pl.INT32))\n        if n < 8:\n            for i in pl.range(n):\n"
     "                pl.tensor.write(p, [0, 2 * i + 1], pl.const(6, pl.INT32))",
     ["for i__idx_v0, (staged__iter_v2,) in pl.range(n__ssa_v0, init_values=(staged__tile_1,)):",
      "staged__phi_v4: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.yield_(staged__rv_v2)",
      "staged__phi_v4: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.yield_(staged__tile_1)",
      "pl.tile.store(staged__phi_v4, [0, 0], p__ssa_v0)"]),
])
def test_staged_writes_inside_loops_and_ifs_are_carried(writes: str, carries: list[str]) -> None:
    text = body(converted(STAGED.replace("WRITES", writes)), "k")
    assert "pl.tensor.write" not in text and text.count("pl.tile.store(") == 1, text
    for line in carries:
        assert line in text, text


@pytest.mark.parametrize("writes", [
    "pl.tensor.write(p, [0, n], pl.tensor.read(p, [0, 1]))",  # a read of the assembled tensor
])
def test_other_uses_keep_the_order_and_the_mix_is_refused(writes: str) -> None:
    src = STAGED.replace("WRITES", writes)
    with pytest.raises(ValueError, match=r"GM tensor 'p__ssa_v0' mixes MTE3 and scalar stores"):
        passes.convert_tensor_to_tile_ops()(prepared(src))
