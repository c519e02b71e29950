"""FlattenTileNdTo2D: N-D tiles become 2-D (leading dims merged), loads and stores keep N-D tensor
coordinates; what has no 2-D form is a located error. Each accepted case also runs on the machine."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

from .helpers import HEADER, expect, function, lower, same_results


def flatten(src: str, run: bool = True) -> ir.Program:
    before = passes.convert_to_ssa()(pl.parse(HEADER + src))
    after = passes.flatten_tile_nd_to_2d()(before)
    if run:
        same_results(before, after)
    return after


def test_a_3d_elementwise_kernel_merges_leading_dims_and_the_store_writes_the_3d_window():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(x, 1.0)
            out = pl.assemble(out, y, [0, 0, 0])
        return out
''', upto="flatten_tile_nd_to_2d")
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        x_tile: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 64], [32, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(x_tile, 1.0)
        out_1: pl.Tensor[[2, 16, 64], pl.FP32] = pl.tile.store(y, [0, 0, 0], out, [2, 16, 64])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        out_2: pl.Tensor[[2, 16, 64], pl.FP32] = self.main_incore_0(x, out)
        return out_2
''')
    assert PropertyVerifierRegistry.verify(["TileOps2D"], after) == []


def test_a_window_over_the_leading_dim_loads_blocks_of_rows():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[4, 8, 32], pl.FP32], out: pl.Out[pl.Tensor[[4, 8, 32], pl.FP32]]) -> pl.Tensor[[4, 8, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(2):
                part = pl.slice(x, [2, 8, 32], [i * 2, 0, 0])
                out = pl.assemble(out, pl.exp(part), [i * 2, 0, 0])
        return out
''', upto="infer_tile_memory_space")
    k = function(after, "main_incore_0")
    (loop,) = [s for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.ForStmt)]
    load = ir.flatten_to_stmts(loop.body)[0]
    assert [int(d.value) for d in load.var.type.shape] == [16, 32]


def test_element_indices_and_slices_inside_a_3d_tile_are_linearised():
    after = flatten('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 4, 16], pl.FP32], out: pl.Out[pl.Tensor[[1, 4, 16], pl.FP32]]) -> pl.Tensor[[1, 4, 16], pl.FP32]:
        t = pl.load(x, [0, 0, 0], [2, 4, 16])
        v = pl.tile.read(t, [1, 2, 3])
        second = pl.tile.slice(t, [1, 4, 16], [1, 0, 0])
        scaled = pl.tile.muls(second, v)
        out = pl.store(scaled, [0, 0, 0], out)
        return out
''')
    stmts = ir.flatten_to_stmts(function(after, "k").body)
    read, sl = stmts[1].value, stmts[2].value
    assert [e.value for e in read.args[1].elements] == [6, 3]  # row 1 * 4 + 2
    assert [e.value for e in sl.args[1].elements] == [4, 16] and [e.value for e in sl.args[2].elements] == [4, 0]


def test_an_op_whose_flattened_operands_no_longer_fit_has_no_2d_form():
    # [2, 16, 64] + [1, 16, 64] broadcasts over dim 0; as [32, 64] + [16, 64] it does not.
    with pytest.raises(ValueError, match=r"tile.add in InCore function 'k' has no 2-D form: .*do not broadcast"):
        flatten('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 64], pl.FP32], b: pl.Tensor[[1, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        t = pl.load(x, [0, 0, 0], [2, 16, 64])
        u = pl.load(b, [0, 0, 0], [1, 16, 64])
        s = pl.tile.add(t, u)
        out = pl.store(s, [0, 0, 0], out)
        return out
''', run=False)


def test_a_transpose_of_a_batch_axis_has_no_2d_form():
    # tile.transpose(t, 0, 1) moves rows between pages (a last-two-axes swap is test_flatten_batched_products.py).
    with pytest.raises(ValueError, match=r"tile.transpose in InCore function 'k' has no 2-D form"):
        flatten('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 2, 64], pl.FP32]]) -> pl.Tensor[[16, 2, 64], pl.FP32]:
        t = pl.load(x, [0, 0, 0], [2, 16, 64])
        s = pl.tile.transpose(t, 0, 1)
        out = pl.store(s, [0, 0, 0], out)
        return out
''', run=False)


def test_a_window_that_cuts_a_middle_dim_has_no_2d_form():
    with pytest.raises(ValueError, match=r"tile.slice in InCore function 'k' has no 2-D form: the window \[2, 8, 16\]"
                                         r" at \[0, 4, 0\].*dim 1 must be spanned from 0"):
        flatten('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 16], pl.FP32], out: pl.Out[pl.Tensor[[2, 8, 16], pl.FP32]]) -> pl.Tensor[[2, 8, 16], pl.FP32]:
        t = pl.load(x, [0, 0, 0], [2, 16, 16])
        s = pl.tile.slice(t, [2, 8, 16], [0, 4, 0])
        out = pl.store(s, [0, 0, 0], out)
        return out
''', run=False)


def test_a_3d_valid_region_that_is_not_whole_rows_has_no_2d_form():
    with pytest.raises(ValueError, match=r"tile.load in InCore function 'k' has no 2-D form: the valid region "
                                         r"\[2, 3, 16\] of a \[2, 4, 16\] tile is not whole rows"):
        flatten('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 4, 16], pl.FP32], out: pl.Out[pl.Tensor[[2, 4, 16], pl.FP32]]) -> pl.Tensor[[2, 4, 16], pl.FP32]:
        t = pl.load(x, [0, 0, 0], [2, 4, 16], [2, 3, 16])
        out = pl.store(t, [0, 0, 0], out)
        return out
''', run=False)


def test_a_partially_valid_leading_dim_flattens_and_stores_only_the_valid_rows():
    flatten('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 4, 16], pl.FP32], out: pl.InOut[pl.Tensor[[4, 4, 16], pl.FP32]]) -> pl.Tensor[[4, 4, 16], pl.FP32]:
        t = pl.load(x, [0, 0, 0], [4, 4, 16], [3, 4, 16])
        u = pl.tile.exp(t)
        out = pl.store(u, [0, 0, 0], out)
        return out
''')


@pytest.mark.unverified
def test_the_tile_ops_2d_verifier_reports_a_3d_tile():
    program = passes.convert_to_ssa()(pl.parse(HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[2, 16, 64], pl.FP32], out: pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]]) -> pl.Tensor[[2, 16, 64], pl.FP32]:
        t = pl.load(x, [0, 0, 0], [2, 16, 64])
        out = pl.store(t, [0, 0, 0], out)
        return out
'''))
    diags = PropertyVerifierRegistry.verify(["TileOps2D"], program)
    assert len(diags) == 1 and "tile.load computes a 3-D tile" in diags[0].message
    assert "FlattenTileNdTo2D makes tiles 2-D" in diags[0].message
