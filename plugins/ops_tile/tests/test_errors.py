"""Each kind of user mistake gets a message that says what is wrong and how to fix it (docs/dsl.md, errors)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.op import tile_ops as T
from pypto.language.parser.diagnostics import InvalidOperationError

from .helpers import program, scalar, tensor, tile

PARAMS = ("a: pl.Tensor[[128, 64], pl.FP32], v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec], "
          "r: pl.Tile[[128, 64], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[127, 64])]")


def parse_error(body: str) -> str:
    with pytest.raises(InvalidOperationError) as info:
        pl.parse(program(body, PARAMS))
    return str(info.value)


def test_bad_kwarg_suggests_the_right_one():
    text = parse_error("t = pl.tile.load(a, [0, 0], [16, 64], target_mem=pl.Mem.Vec)")
    assert "pl.tile.load: load() got an unexpected keyword argument 'target_mem'" in text
    assert "did you mean 'target_memory'?" in text
    with pytest.raises(TypeError, match="tile.load got an unexpected keyword argument 'clmap'.*did you mean 'clamp'"):
        ir.create_op_call("tile.load", list(T.load(tensor([64, 64]), [0, 0], [8, 8]).args), {"clmap": True})


def test_wrong_argument_count():
    assert "pl.tile.exp: takes at most 1 positional argument(s) (tile), got 2" in parse_error("x = pl.tile.exp(v, v)")
    assert "missing a required argument: 'rhs'" in parse_error("x = pl.tile.add(v)")
    with pytest.raises(TypeError, match=r"tile\.add takes 2 positional argument\(s\) \(lhs, rhs\), got 1"):
        ir.create_op_call("tile.add", [tile([8, 8])])


def test_cannot_mix_tensor_and_tile():
    assert "pl.add: cannot mix Tensor and Tile arguments (Tensor, Tile)" in parse_error("x = pl.add(a, v)")
    assert "cannot mix Tensor and Tile arguments" in parse_error("x = pl.assemble(a, v, [0, 0])")


def test_store_past_the_end():
    text = parse_error("o = pl.store(r, [16, 0], a)")
    assert "pl.store: tile.store writes past the end of dimension 0: offset 16 + extent 127 exceeds the target " \
           "extent 128" in text
    with pytest.raises(ValueError, match="tile.store writes past the end of dimension 0: offset 16 \\+ extent 127 "
                                         "exceeds the target extent 128"):
        T.store(tile([128, 64], valid=[127, 64]), [16, 0], tensor([128, 64]))


def test_unknown_op_and_unknown_registry_name():
    assert "Unknown pl.tile operation: lod" in parse_error("t = pl.tile.lod(a, [0, 0], [16, 64])")
    with pytest.raises(ValueError, match="op 'tile.lod' is not registered; did you mean 'tile.load'"):
        ir.create_op_call("tile.lod", [])


def test_kwarg_values_are_checked():
    assert "keyword 'target_memory' must be one of MemorySpace.Vec, MemorySpace.Mat, got MemorySpace.Left" in \
        parse_error("t = pl.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Left)")
    assert "mode must be one of" in parse_error("x = pl.cast(v, pl.FP16, mode='nearest')")
    assert "atomic must be one of" in parse_error("o = pl.store(v, [0, 0], a, atomic=3)")


def test_operand_spaces_are_not_type_errors():
    # InferTileMemorySpace moves operands into the spaces input_memory names; deduction checks shapes only.
    pl.parse(program("m = pl.move(v, target_memory=pl.Mem.Mat)\nx = pl.add(m, m)\n"
                     "c = pl.matmul(v, pl.reshape(v, [64, 16]))\no = pl.store(m, [0, 0], a)", PARAMS))


def test_operand_kinds():
    assert "works on tiles; load the tensor into a tile first (pl.load)" in parse_error("x = pl.gather(a, a, a)")
    # PyPTO has no tensor.sel: the error says to load tiles.
    assert "PyPTO has no tensor.sel: load the tensors into tiles (pl.load) and use pl.tile.sel" in \
        parse_error("x = pl.sel(a, a, a, a)")
    assert "must hold integers, got FP32" in parse_error("x = pl.tile.and_(v, v)")
    assert "a tile row_sum needs a tmp tile" in parse_error("x = pl.row_sum(v)")


def test_shape_relations_are_checked():
    with pytest.raises(TypeError, match=r"src has 16 rows but index \[2, 4\] addresses 8; src must be \[b \* s, d\]"):
        T.scatter_update(tile([64, 64]), tile([2, 4], pl.INT32), tile([16, 64]))
    with pytest.raises(TypeError, match="src width"):
        T.scatter_update(tile([64, 64]), tile([2, 8], pl.INT32), tile([16, 32]))
    with pytest.raises(TypeError, match="tmp must have the operand's shape"):
        T.rsqrt(tile([16, 64]), tile([32, 64]))
    with pytest.raises(TypeError, match="the vector must be \\[M, 1\\]"):
        T.row_expand_mul(tile([16, 64]), tile([8, 1]))
    with pytest.raises(TypeError, match="inner dims differ"):
        T.matmul(tile([16, 32], pl.FP16, pl.Mem.Left), tile([64, 16], pl.FP16, pl.Mem.Right))
    with pytest.raises(TypeError, match="cannot reshape"):
        T.reshape(tile([16, 64]), [16, 16])


def test_windows_and_views():
    with pytest.raises(ValueError, match="tile.slice reads past the end of dimension 1: offset 32 \\+ extent 64 "
                                         "exceeds the source extent 64"):
        T.slice(tile([16, 64]), [8, 64], [0, 32])
    with pytest.raises(ValueError, match="drop_dims can only drop extent-1 dims"):
        T.slice(tile([16, 64]), [8, 64], [0, 0], drop_dims=[0])
    with pytest.raises(ValueError, match="rows = 20 is outside 0..16"):
        T.set_validshape(tile([16, 64]), 20, 64)
    with pytest.raises(TypeError, match="partially valid tile"):
        T.reshape(tile([16, 64], valid=[10, 64]), [64, 16])


def test_boundary_valid_region_contract():
    with pytest.raises(ValueError, match="runtime valid column extent"):
        T.aiv_shard(tile([16, 64], mem=pl.Mem.Acc, valid=[16, scalar()]), split=1)
    with pytest.raises(ValueError, match="narrowed on the LEFT_RIGHT split axis"):
        T.aiv_shard(tile([16, 64], mem=pl.Mem.Acc, valid=[16, 60]), split=2)
    with pytest.raises(ValueError, match="rows narrowed per lane together with narrowed columns"):
        T.aiv_shard(tile([16, 64], mem=pl.Mem.Acc, valid=[13, 60]), split=1)
    for split in (1, 2):  # a hand-written push checks no valid shape (PyPTO's rule)
        T.tpush_to_aiv(tile([16, 64], mem=pl.Mem.Acc, valid=[13, 60]), split=split)
        T.tpush_to_aiv(tile([16, 64], mem=pl.Mem.Acc, valid=[16, scalar()]), split=split)
    with pytest.raises(ValueError, match="lane_stride=9 needs split=1/2 and 1 <= lane_stride <= the lane box 8"):
        T.aiv_shard(tile([16, 64], mem=pl.Mem.Acc), split=1, lane_stride=9)


def test_pop_needs_shape_and_dtype_together():
    assert "give both shape= and dtype=" in parse_error("x = pl.tpop_from_aic(split=1, shape=[8, 64])")


def test_a_pop_with_split_none_is_the_default_pop():
    # Mutated-test-program finding: `pl.tile.tpop_from_aic(split=None)` recorded no split, printed as
    # `tpop_from_aic()`, which parses back with split=0: the program differed from its own re-parse.
    import pypto.language as pl
    from pypto import ir

    text = """
import pypto.language as pl

@pl.function(type=pl.FunctionType.AIV)
def k(out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
    half: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=None, shape=[16, 16], dtype=pl.FP32)
    pl.system.tfree_to_aic(half)
    out = pl.store(half, [0, 0], out)
    return out
"""
    program = pl.parse(text)
    ir.assert_structural_equal(program, pl.parse(ir.python_print(program)))
    ir.assert_structural_equal(program, pl.parse(text.replace("split=None, ", "")))
