"""ConvertTensorToTileOps' assemble-loop rewrite (docs/passes/convert_tensor_to_tile_ops.md, exit stores; PyPTO's
example 3): a returned top-level loop whose one carry only receives `tile.assemble`s stores them into the new
output `ret<k>__out` instead (the carry starts from it, the loop's result is returned, no exit store), and the
carry's `tile.create` goes when nothing else uses it. Anything else keeps the tile carry and the exit store.
Each program runs the same before and after, through the whole default pipeline on both backends."""

from __future__ import annotations

from .ctto_forms import body, converted

EXAMPLE_3 = '''
@pl.program
class P3:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc = pl.create_tensor([64, 64], dtype=pl.FP32)
        for i in pl.range(4):
            t = pl.slice(x, [16, 64], [i * 16, 0])
            u = pl.exp(t)
            acc = pl.assemble(acc, u, [i * 16, 0])
        for j in pl.range(2):
            v = pl.slice(x, [32, 64], [j * 32, 0])
            o = pl.assemble(o, v, [j * 32, 0])
        return acc
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], o: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc = self.main_incore_0(x, o)
        return acc
'''


def test_example_3_the_returned_assemble_loop_stores_into_the_output() -> None:
    text = body(converted(EXAMPLE_3))
    lines = text.splitlines()
    assert lines[0] == "for i__idx_v0, (acc__iter_v1,) in pl.range(4, init_values=(ret0__out,)):", text
    assert "pl.tile.create" not in text, text
    # PyPTO's names: the store takes the deleted tile.create's `acc__tile`
    assert lines[3] == ("acc__tile: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(u__tile, [i__idx_v0 * 16, 0], "
                        "acc__iter_v1)"), text
    assert lines[4] == "acc__rv_v1: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(acc__tile)", text
    assert lines[-1] == "return acc__rv_v1" and "ret0__store" not in text, text


def test_a_carry_read_in_the_loop_keeps_the_tile_carry_and_the_exit_store() -> None:
    text = body(converted(EXAMPLE_3.replace("u = pl.exp(t)", "u = pl.add(t, pl.slice(acc, [16, 64], [0, 0]))")))
    assert "pl.tile.create([64, 64]" in text and "ret0__store" in text, text


def test_two_assembles_keep_the_tile_carry() -> None:
    text = body(converted(EXAMPLE_3.replace("            acc = pl.assemble(acc, u, [i * 16, 0])\n",
                                            "            acc = pl.assemble(acc, u, [i * 16, 0])\n"
                                            "            acc = pl.assemble(acc, t, [i * 16, 0])\n")))
    assert "ret0__store" in text and "init_values=(acc__tile,)" in text, text


def test_an_init_used_elsewhere_stays() -> None:
    src = EXAMPLE_3.replace("        acc = pl.create_tensor([64, 64], dtype=pl.FP32)\n",
                            "        acc = pl.create_tensor([64, 64], dtype=pl.FP32, init_value=0.0)\n"
                            "        o = pl.assemble(o, pl.slice(pl.add(acc, 1.0), [8, 64], [0, 0]), [0, 0])\n")
    text = body(converted(src))
    assert "init_values=(ret0__out,)" in text and "pl.tile.full([64, 64]" in text, text
