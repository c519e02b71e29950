"""ConvertTensorToTileOps carries a kernel tensor written in place inside a loop or an if (PyPTO writes tiles in place;
pypto's tiles are values): docs/passes/convert_tensor_to_tile_ops.md, in-place writes. Every program runs before and
after the pass and through the default pipeline on both backends; what the carries cannot say stays refused."""

from __future__ import annotations

import pytest

from pypto import passes

from .ctto_forms import body, converted, prepared

KERNEL = '''
@pl.program
class C:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 32], pl.INT32], o: pl.Out[pl.Tensor[[1, 32], pl.INT32]], n: pl.Scalar[pl.INDEX]
          ) -> pl.Tensor[[1, 32], pl.INT32]:
        t = pl.tensor.full([1, 32], dtype=pl.INT32, value=0)
        BODY
        y = pl.add(t, x)
        o = pl.assemble(o, y, [0, 0])
        return o
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 32], pl.INT32], o: pl.Out[pl.Tensor[[1, 32], pl.INT32]]) -> pl.Tensor[[1, 32], pl.INT32]:
        o = self.k(x, o, 3)
        return o
'''


def kernel(code: str) -> str:
    return KERNEL.replace("BODY", code.replace("\n", "\n        "))


def test_a_write_in_a_loop_is_carried_and_the_read_after_reads_the_result() -> None:
    text = body(converted(kernel("for i in pl.range(4):\n    pl.tensor.write(t, [0, i * 2], pl.const(1, pl.INT32))")),
                "k")
    assert "for i__idx_v0, (t__iter_v1,) in pl.range(4, init_values=(t__tile,)):" in text, text
    assert "pl.tile.write(t__iter_v1, [0, i__idx_v0 * 2], pl.const(1, pl.INT32))" in text, text
    assert "pl.tile.add(t__rv_v1, x__tile)" in text, text


def test_a_write_in_one_branch_is_merged_with_the_untouched_tile() -> None:
    text = body(converted(kernel("if n > 2:\n    pl.tensor.write(t, [0, n], pl.const(4, pl.INT32))")), "k")
    assert text.count("pl.yield_(") == 2 and "pl.yield_(t__tile)" in text, text
    assert "pl.tile.add(t__phi_v2, x__tile)" in text, text


def test_writes_in_both_branches_inside_a_loop() -> None:
    code = ("for i in pl.range(8):\n    if i < n:\n        pl.tensor.write(t, [0, i], pl.const(1, pl.INT32))\n"
            "    else:\n        pl.tensor.write(t, [0, i + 8], pl.const(2, pl.INT32))")
    text = body(converted(kernel(code)), "k")
    assert "pl.tensor.write" not in text and text.count("pl.tile.write(") == 2, text


def test_a_user_carry_keeps_its_slot_and_the_tensor_comes_after_it() -> None:
    code = ("s = 0\nfor i in pl.range(4):\n    pl.tensor.write(t, [0, i], pl.const(7, pl.INT32))\n    s = s + i\n"
            "pl.tensor.write(t, [0, s], pl.const(9, pl.INT32))")
    text = body(converted(kernel(code)), "k")
    assert ", t__iter_v" in text and "(s__iter_v" in text, text


def test_a_while_loop_carries_the_tensor_too() -> None:
    code = ("for (j,) in pl.while_(init_values=(0,)):\n    pl.cond(j < 3)\n"
            "    pl.tensor.write(t, [0, j], pl.const(3, pl.INT32))\n    j = pl.yield_(j + 1)")
    text = body(converted(kernel(code)), "k")
    assert "pl.tile.write(t__iter_v" in text, text


def test_an_alias_of_the_tensor_is_left_to_the_lowering_which_refuses_it() -> None:
    code = "u = t\nfor i in pl.range(4):\n    pl.tensor.write(t, [0, i * 2], pl.const(1, pl.INT32))\nz = pl.add(u, x)"
    with pytest.raises(ValueError, match=r"writes 't' in place inside a loop"):
        passes.convert_tensor_to_tile_ops()(prepared(kernel(code)))
