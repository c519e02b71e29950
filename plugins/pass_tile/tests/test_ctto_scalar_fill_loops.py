"""ConvertTensorToTileOps' constant scalar-fill loops (docs/passes/convert_tensor_to_tile_ops.md, rule 2; the first
half of PyPTO's example 4): a counted loop whose body only writes constants at `[.., i (+ e), ..]` becomes one
`tensor.full` + `tensor.reshape` + `tensor.assemble` per write, converted like any other statement. Every program runs
before and after the pass and through the default pipeline on both backends; loops outside the rule stay loops."""

from __future__ import annotations

import pytest

from .ctto_forms import body, converted

EXAMPLE_4 = '''
@pl.program
class P4:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, o: pl.Out[pl.Tensor[[1, 32], pl.INT32]], p: pl.Out[pl.Tensor[[1, 32], pl.INT32]],
          n: pl.Scalar[pl.INDEX]) -> tuple[pl.Tensor[[1, 32], pl.INT32], pl.Tensor[[1, 32], pl.INT32]]:
        for i in pl.range(32):
            pl.tensor.write(o, [0, i], pl.const(7, pl.INT32))
        staged = pl.tensor.full([1, 32], dtype=pl.INT32, value=-1)
        p = pl.assemble(p, staged, [0, 0])
        pl.tensor.write(p, [0, n], pl.const(5, pl.INT32))
        return o, p
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, o: pl.Out[pl.Tensor[[1, 32], pl.INT32]], p: pl.Out[pl.Tensor[[1, 32], pl.INT32]]
             ) -> tuple[pl.Tensor[[1, 32], pl.INT32], pl.Tensor[[1, 32], pl.INT32]]:
        o, p = self.k(o, p, 3)
        return o, p
'''


def test_pypto_example_4_both_pre_canonicalisations() -> None:
    lines = body(converted(EXAMPLE_4), "k").splitlines()
    assert lines[:3] == [
        "o__tile: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.full([1, 32], dtype=pl.INT32, value=7)",
        "o__tile_1: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.reshape(o__tile, [1, 32])",
        "pl.tile.store(o__tile_1, [0, 0], o__ssa_v0)",
    ]
    assert lines[3].startswith("staged__tile: pl.Tile[[1, 32], pl.INT32, pl.Mem.Vec] = pl.tile.full(")
    assert lines[-1] == "return o__ssa_v0, p__tile"


KERNEL = '''
@pl.program
class F:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, o: pl.Out[pl.Tensor[SHAPE, DTYPE]], q: pl.Out[pl.Tensor[SHAPE, DTYPE]], n: pl.Scalar[pl.INDEX]
          ) -> tuple[pl.Tensor[SHAPE, DTYPE], pl.Tensor[SHAPE, DTYPE]]:
        BODY
        return o, q
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, o: pl.Out[pl.Tensor[SHAPE, DTYPE]], q: pl.Out[pl.Tensor[SHAPE, DTYPE]]
             ) -> tuple[pl.Tensor[SHAPE, DTYPE], pl.Tensor[SHAPE, DTYPE]]:
        o, q = self.k(o, q, 8)
        return o, q
'''


def kernel(shape: str, dtype: str, loop: str) -> str:
    return KERNEL.replace("SHAPE", shape).replace("DTYPE", dtype).replace("BODY", loop.replace("\n", "\n        "))


@pytest.mark.parametrize(("shape", "dtype", "loop", "expected"), [
    # `i + e` with a scalar e: the run starts at e; trailing dims 1 indexed 0; FP32 constant
    ("[2, 96, 1]", "pl.FP32",
     "for i in pl.range(64):\n    pl.tensor.write(o, [1, i + n, 0], pl.const(2.5, pl.FP32))",
     ["o__tile: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([1, 64], dtype=pl.FP32, value=2.5)",
      "o__tile_1: pl.Tile[[1, 64, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(o__tile, [1, 64, 1])",
      "pl.tile.store(o__tile_1, [1, n__ssa_v0, 0], o__ssa_v0)"]),
    # `e + i` with a constant e, 16 FP16 elements are one 32-byte block
    ("[1, 48]", "pl.FP16",
     "for i in pl.range(16):\n    pl.tensor.write(o, [0, 32 + i], pl.const(1.0, pl.FP16))",
     ["o__tile: pl.Tile[[1, 16], pl.FP16, pl.Mem.Vec] = pl.tile.full([1, 16], dtype=pl.FP16, value=1.0)",
      "o__tile_1: pl.Tile[[1, 16], pl.FP16, pl.Mem.Vec] = pl.tile.reshape(o__tile, [1, 16])",
      "pl.tile.store(o__tile_1, [0, 32], o__ssa_v0)"]),
    # the varying axis is not the last one: a column of 8 INT32 (8 * 32 bits = one block)
    ("[8, 1]", "pl.INT32",
     "for i in pl.range(8):\n    pl.tensor.write(o, [i, 0], pl.const(-3, pl.INT32))",
     ["o__tile: pl.Tile[[1, 8], pl.INT32, pl.Mem.Vec] = pl.tile.full([1, 8], dtype=pl.INT32, value=-3)",
      "o__tile_1: pl.Tile[[8, 1], pl.INT32, pl.Mem.Vec] = pl.tile.reshape(o__tile, [8, 1])",
      "pl.tile.store(o__tile_1, [0, 0], o__ssa_v0)"]),
])
def test_a_fill_loop_becomes_full_reshape_and_one_store(shape: str, dtype: str, loop: str,
                                                        expected: list[str]) -> None:
    assert body(converted(kernel(shape, dtype, loop)), "k").splitlines()[:3] == expected


def test_every_write_of_the_body_gets_its_own_fill_in_body_order() -> None:
    loop = ("for i in pl.range(32):\n    pl.tensor.write(q, [0, i], pl.const(4, pl.INT32))\n"
            "    pl.tensor.write(o, [0, i], pl.const(6, pl.INT32))")
    lines = body(converted(kernel("[2, 32]", "pl.INT32", loop)), "k").splitlines()
    assert "for " not in "\n".join(lines)
    assert [line for line in lines if "tile.store" in line] == [
        "pl.tile.store(q__tile_1, [0, 0], q__ssa_v0)", "pl.tile.store(o__tile_1, [0, 0], o__ssa_v0)"]
    assert "value=4" in lines[0] and "value=6" in lines[3]


def test_a_fill_loop_nested_in_another_loop_is_replaced_inside_it() -> None:
    loop = "for r in pl.range(2):\n    for i in pl.range(32):\n        pl.tensor.write(o, [r, i], pl.const(9, pl.INT32))"
    text = body(converted(kernel("[2, 32]", "pl.INT32", loop)), "k")
    assert text.count("for ") == 1 and "pl.tile.store(o__tile_1, [r__idx_v0, 0], o__ssa_v0)" in text, text


@pytest.mark.parametrize("loop", [
    "for i in pl.range(4):\n    pl.tensor.write(o, [0, i], pl.const(1, pl.INT32))",  # 128 bits: not whole blocks
    "for i in pl.range(32):\n    pl.tensor.write(o, [0, i], n)",  # not a constant
    "for i in pl.range(16):\n    pl.tensor.write(o, [0, i * 2], pl.const(1, pl.INT32))",  # strided index
    "for i in pl.range(1, 33):\n    pl.tensor.write(o, [0, i - 1], pl.const(1, pl.INT32))",  # start is not 0
    "for i in pl.range(0, 32, 2):\n    pl.tensor.write(o, [0, i], pl.const(1, pl.INT32))",  # step is not 1
    "for i in pl.range(8):\n    pl.tensor.write(o, [i, i], pl.const(1, pl.INT32))",  # two indices vary
    "for i in pl.range(32):\n    pl.tensor.write(o, [0, i], pl.const(1, pl.INT32))\n"
    "    pl.tensor.write(q, [0, i], pl.const(2, pl.INT32))\n    pl.tensor.write(q, [1, i], pl.const(3, pl.INT32))",
])
def test_loops_outside_the_rule_stay_scalar_writes(loop: str) -> None:
    text = body(converted(kernel("[32, 64]", "pl.INT32", loop)), "k")
    assert "for " in text and "pl.tensor.write(" in text and "tile.full" not in text, text


def test_a_varying_axis_followed_by_a_wide_dim_is_not_filled() -> None:
    loop = "for i in pl.range(8):\n    pl.tensor.write(o, [i, 0], pl.const(1, pl.INT32))"  # dims after the axis: 64
    text = body(converted(kernel("[8, 64]", "pl.INT32", loop)), "k")
    assert "for " in text and "tile.full" not in text, text


LOCAL = '''
@pl.program
class L:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[1, 32], pl.FP32], o: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        t = pl.tensor.create([1, 32], dtype=pl.FP32)
        for i in pl.range(32):
            pl.tensor.write(t, [0, i], pl.const(2.0, pl.FP32))
        y = pl.add(t, x)
        o = pl.assemble(o, y, [0, 0])
        return o
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[1, 32], pl.FP32], o: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        o = self.k(x, o)
        return o
'''


def test_a_fill_of_a_kernel_tensor_becomes_an_assemble_into_its_tile() -> None:
    """Before the rule such a loop was refused (an in-place write in a loop into a tile would need a carry);
    filled in one step, the tile holds the constants and the sum reads them."""
    text = body(converted(LOCAL), "k")
    assert "for " not in text and "pl.tile.assemble(t__tile, t__tile_2, [0, 0])" in text, text


def test_a_fill_loop_past_the_tensors_end_is_a_located_error() -> None:
    """The loop would write past the end at run time; as one fill it is known at compile time."""
    from pypto import passes

    from .ctto_forms import prepared

    src = kernel("[1, 32]", "pl.INT32", "for i in pl.range(32):\n    pl.tensor.write(o, [0, i + 8], pl.const(1, pl.INT32))")
    with pytest.raises(ValueError, match=r"(?s)writes the constant into 'o' at 32 consecutive positions of dimension "
                                         r"1, which do not fit it.*offset 8 \+ extent 32.* --> .*for i in pl.range"):
        passes.convert_tensor_to_tile_ops()(prepared(src))
