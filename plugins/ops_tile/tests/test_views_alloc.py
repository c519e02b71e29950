"""Buffer declarations, generators, concat, padding and views (tile.alloc, tensor.create_l1, tri, ci, random,
concat, fillpad, tensor.set_validshape / view / reshape; the creation, generators, assemble, padding and views
families): type rules of these ops and of the audited ones, and print / parse round trips.

Machine results are in test_views_alloc_machine.py; Acc views aliasing their parent in test_views_alloc_alias.py.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import get_opdef

from . import views_alloc_cases
from .helpers import scalar, shape_of, tensor, tile, valid_of

FP32, FP16, INT32, Vec, Mat = pl.FP32, pl.FP16, pl.INT32, pl.Mem.Vec, pl.Mem.Mat


def call(op: str, *args, **kwargs) -> ir.Call:
    return ir.create_op_call(op, list(args), kwargs)


def dims(*values: int) -> ir.MakeTuple:
    return ir.MakeTuple([ir.ConstInt(v, pl.INDEX) for v in values])


def const(v: int, dtype=pl.INDEX) -> ir.ConstInt:
    return ir.ConstInt(v, dtype)


# -- allocation ----------------------------------------------------------------------------------------------
def test_alloc_is_a_ptr():
    assert call("tile.alloc", const(Vec.value), const(1024)).type == ir.PtrType()
    assert call("tensor.alloc", const(pl.Mem.DDR.value), scalar(pl.INDEX)).type == ir.PtrType()
    assert get_opdef("tile.alloc").affinity is not None
    with pytest.raises(ValueError, match="tensor.alloc: memory_space must be DDR, got Vec"):
        call("tensor.alloc", const(Vec.value), const(1024))
    with pytest.raises(ValueError, match="tile.alloc: memory_space DDR is a tensor allocation"):
        call("tile.alloc", const(0), const(1024))
    with pytest.raises(TypeError, match="tile.alloc: size must be an integer byte count"):
        call("tile.alloc", const(1), scalar(FP32))
    with pytest.raises(TypeError, match="takes 2 positional"):
        call("tensor.alloc", const(0))


def test_create_l1():
    t = call("tensor.create_l1", dims(64, 32), dtype=FP16, transpose=True).type
    assert t == ir.TensorType([64, 32], FP16)
    with pytest.raises(TypeError, match="tensor.create_l1: shape dims must be constants"):
        call("tensor.create_l1", ir.MakeTuple([scalar()]), dtype=FP16)
    with pytest.raises(TypeError, match="requires the keyword 'dtype'"):
        call("tensor.create_l1", dims(64, 32))


# -- generators ----------------------------------------------------------------------------------------------
def test_tri():
    t = call("tile.tri", const(0, INT32), dims(16, 32), dims(8, 32), dtype=FP32, upper=True)
    assert shape_of(t) == [16, 32] and valid_of(t) == [8, 32] and t.type.memory_space is Vec
    assert t.type.dtype is FP32
    assert call("tile.tri", const(-2), dims(16, 16)).type.dtype is INT32  # an integer literal is accepted
    with pytest.raises(TypeError, match="tile.tri: diagonal must be an INT32 scalar, got INDEX"):
        call("tile.tri", scalar(pl.INDEX), dims(16, 16))
    with pytest.raises(TypeError, match="tile.tri: shape must be 2-D"):
        call("tile.tri", const(0), dims(16, 16, 2))
    with pytest.raises(TypeError, match="tile.tri: dtype is INT64; allowed dtypes"):
        call("tile.tri", const(0), dims(16, 16), dtype=pl.INT64)
    with pytest.raises(ValueError, match=r"tile.tri: valid_shape \[17, 16\] must be constants in 1..dim"):
        call("tile.tri", const(0), dims(16, 16), dims(17, 16))


def test_ci_type_rules():
    assert get_opdef("tile.ci").kwarg_spec("dtype").default is INT32
    t = call("tensor.ci", const(3, INT32), dims(1, 64), descending=True)
    assert t.type == ir.TensorType([1, 64], INT32)
    with pytest.raises(ValueError, match=r"tensor.ci: the leading dims of \[4, 64\] must be 1"):
        call("tensor.ci", const(0, INT32), dims(4, 64))
    with pytest.raises(ValueError, match=r"tile.ci: the last dim of \[1, 1\] must not be 1"):
        call("tile.ci", const(0, INT32), dims(1, 1))
    with pytest.raises(TypeError, match="tile.ci: dtype is FP32; allowed dtypes: INT16, INT32, UINT16, UINT32"):
        call("tile.ci", const(0, INT32), dims(1, 64), dtype=FP32)
    with pytest.raises(TypeError, match="tensor.ci: start must be a UINT16 scalar"):
        call("tensor.ci", const(0, INT32), dims(1, 64), dtype=pl.UINT16)


def test_random_type_rules():
    words = [const(1), const(2), scalar(INT32), const(0), const(0), const(0)]
    t = call("tensor.random", *words, dims(16, 64), dtype=INT32, rounds=7)
    assert t.type == ir.TensorType([16, 64], INT32)
    assert [a.name for a in get_opdef("tile.random").args][:2] == ["key0", "key1"]
    with pytest.raises(ValueError, match="keyword 'rounds' must be one of 7, 10"):
        call("tensor.random", *words, dims(16, 64), rounds=8)
    with pytest.raises(TypeError, match="tensor.random: dtype is FP32; allowed dtypes: INT32, UINT32"):
        call("tensor.random", *words, dims(16, 64), dtype=FP32)
    with pytest.raises(TypeError, match="tile.random: counter0 must be an INT32 scalar, got INDEX"):
        call("tile.random", const(1), const(2), scalar(pl.INDEX), const(0), const(0), const(0), dims(16, 64))
    with pytest.raises(TypeError, match="tensor.random: shape must be 2-D"):
        call("tensor.random", *words, dims(16, 64, 2))


# -- concat / fillpad ----------------------------------------------------------------------------------------
def test_concat():
    t = call("tile.concat", tile([16, 32]), tile([16, 96], mem=Mat))
    assert shape_of(t) == [16, 128] and t.type.memory_space is Vec
    assert get_opdef("tile.concat").input_memory == {0: (Vec,), 1: (Vec,)}
    assert call("tensor.concat", tensor([8, 8], FP16), tensor([8, 24], FP16)).type == ir.TensorType([8, 32], FP16)
    with pytest.raises(TypeError, match="tile.concat: src0 has 16 rows but src1 has 8"):
        call("tile.concat", tile([16, 32]), tile([8, 32]))
    with pytest.raises(TypeError, match="tensor.concat: src0 is FP32 but src1 is FP16"):
        call("tensor.concat", tensor([8, 8]), tensor([8, 8], FP16))
    with pytest.raises(TypeError, match="tile.concat: src0 must be 2-D"):
        call("tile.concat", tile([2, 8, 8]), tile([8, 8]))


@pytest.mark.parametrize("op", ["tile.fillpad", "tile.fillpad_inplace"])
def test_fillpad(op: str):
    t = call(op, tile([16, 64], valid=[10, 40]), pad_value=pl.PadValue.max)
    assert shape_of(t) == [16, 64] and valid_of(t) == [16, 64]
    assert t.type.tile_view.pad is pl.PadValue.max and t.type.memory_space is Vec
    assert get_opdef(op).kwarg_spec("pad_value").default is pl.PadValue.zero
    with pytest.raises(ValueError, match=f"{op}: pad_value must be zero, max or min, not null"):
        call(op, tile([16, 64]), pad_value=pl.PadValue.null)
    with pytest.raises(TypeError, match=f"{op}: the tile must be a tile"):
        call(op, tensor([16, 64]))
    effect = get_opdef(op).arg_effect(0, {})
    assert effect is (Effect.READ_WRITE if op.endswith("inplace") else Effect.READ)


def test_fillpad_expand():
    t = call("tile.fillpad_expand", tile([12, 60], valid=[10, 40]), dims(16, 64), pad_value=pl.PadValue.min)
    assert shape_of(t) == [16, 64] and valid_of(t) == [16, 64] and t.type.tile_view.pad is pl.PadValue.min
    g = call("tensor.fillpad_expand", tensor([12, 60]), dims(16, 64))
    assert g.type.shape == ir.TensorType([16, 64], FP32).shape and g.type.tensor_view.pad is pl.PadValue.zero
    with pytest.raises(ValueError, match="tile.fillpad_expand: shape .16, 32. must be no smaller than the source"):
        call("tile.fillpad_expand", tile([12, 60]), dims(16, 32))
    with pytest.raises(TypeError, match="tensor.fillpad_expand: shape .16. must have the source's rank 2"):
        call("tensor.fillpad_expand", tensor([12, 60]), dims(16))


def test_tensor_fillpad_makes_the_view_fully_valid():
    part = call("tensor.set_validshape", tensor([64, 128]), const(40), const(100))
    assert part.type.tensor_view.valid_shape[0].value == 40
    full = call("tensor.fillpad", part, pad_value=pl.PadValue.min)
    assert not full.type.tensor_view.valid_shape and full.type.tensor_view.pad is pl.PadValue.min


# -- tensor views --------------------------------------------------------------------------------------------
def test_tensor_set_validshape():
    t = call("tensor.set_validshape", tensor([64, 128]), scalar(), const(64))
    assert len(t.type.tensor_view.valid_shape) == 2
    with pytest.raises(ValueError, match=r"tensor.set_validshape: valid_cols = 129 is outside 0..128"):
        call("tensor.set_validshape", tensor([64, 128]), const(1), const(129))
    with pytest.raises(TypeError, match="tensor.set_validshape: the tensor must be 2-D"):
        call("tensor.set_validshape", tensor([2, 64, 128]), const(1), const(1))


def test_tensor_view():
    src = tensor([64, 128])
    flipped = call("tensor.view", src, layout=pl.TensorLayout.DN).type
    assert [d.value for d in flipped.shape] == [128, 64] and flipped.tensor_view.layout is pl.TensorLayout.DN
    assert call("tensor.view", src, dims(128, 64)).type == ir.TensorType([128, 64], FP32)
    collapsed = call("tensor.view", tensor([4, 16, 32]), dims(64, 32), dims(60, 32)).type
    assert [d.value for d in collapsed.tensor_view.valid_shape] == [60, 32]
    with pytest.raises(TypeError, match=r"tensor.view: cannot view \[64, 128\] \(8192 elements\) as \[64, 64\]"):
        call("tensor.view", src, dims(64, 64))
    with pytest.raises(TypeError, match="tensor.view: the input is only partly valid"):
        call("tensor.view", call("tensor.set_validshape", src, const(8), const(128)), dims(128, 64))
    with pytest.raises(TypeError, match="tensor.view: layout has layout NZ; only ND and DN tensors can be viewed"):
        call("tensor.view", src, layout=pl.TensorLayout.NZ)


def test_tensor_reshape_maps_the_valid_region():
    part = call("tensor.set_validshape", tensor([64, 128]), const(40), const(128))
    t = call("tensor.reshape", part, dims(128, 64)).type
    assert [d.value for d in t.tensor_view.valid_shape] == [80, 64]
    given = call("tensor.reshape", part, dims(128, 64), dims(70, 64)).type
    assert [d.value for d in given.tensor_view.valid_shape] == [70, 64]
    cols = call("tensor.set_validshape", tensor([64, 128]), const(64), const(100))
    with pytest.raises(TypeError, match="tensor.reshape: the valid region .64, 100. of .64, 128. is not a box"):
        call("tensor.reshape", cols, dims(128, 64))
    with pytest.raises(ValueError, match="tensor.reshape: valid_shape .90, 64. exceeds the mapped valid region"):
        call("tensor.reshape", part, dims(128, 64), dims(90, 64))


# -- the audited ops -----------------------------------------------------------------------------------------
def test_audit_write_and_assemble_are_read_write():
    assert get_opdef("tile.write").arg_effect(0, {}) is Effect.READ_WRITE
    assert get_opdef("tile.assemble").arg_effect(0, {}) is Effect.READ_WRITE
    assert call("tile.write", tile([8, 8], FP16), dims(0, 0), ir.ConstFloat(1.0, FP32)).type.memory_space is Vec
    with pytest.raises(TypeError, match="tile.write: the value is INT32 but the tile is FP16"):
        call("tile.write", tile([8, 8], FP16), dims(0, 0), scalar(INT32))


def test_audit_assemble_narrows_fp32_and_grows_the_valid_region():
    t = call("tile.assemble", tile([16, 64], FP16), tile([8, 64]), dims(0, 0))
    assert t.type.dtype is FP16
    with pytest.raises(TypeError, match="only an FP32 source may go into a BF16 / FP16 target"):
        call("tile.assemble", tile([16, 64]), tile([8, 64], FP16), dims(0, 0))
    grown = call("tile.assemble", tile([16, 64], valid=[8, 64]), tile([8, 64]), dims(8, 0))
    assert valid_of(grown) == [16, 64]
    anchored = call("tile.assemble", tile([16, 64], valid=[4, 32]), tile([8, 16]), dims(0, 0))
    assert valid_of(anchored) == [8, 32]
    out = call("tensor.assemble", call("tensor.set_validshape", tensor([32, 64]), const(16), const(64)),
               tensor([16, 64]), dims(16, 0))
    assert out.type == ir.TensorType([32, 64], FP32)


def test_audit_atomic_add_dtypes():
    with pytest.raises(TypeError, match="tile.store: atomic add needs FP32, BF16, FP16, INT32, INT16, INT8"):
        call("tile.store", tile([8, 8], pl.UINT8), dims(0, 0), tensor([8, 8], pl.UINT8), atomic=1)
    with pytest.raises(TypeError, match="tensor.assemble: atomic add needs"):
        call("tensor.assemble", tensor([8, 8], pl.INT64), tensor([8, 8], pl.INT64), dims(0, 0), atomic=1)


def test_audit_other_signatures():
    assert [a.name for a in get_opdef("tile.slice").args][0] == "input"
    assert [a.name for a in get_opdef("tile.reinterpret_view").args][0] == "data"
    assert [a.name for a in get_opdef("tensor.reshape").args] == ["input", "shape", "valid_shape"]
    assert get_opdef("tile.create").kwarg_spec("transpose").default is None
    assert call("tile.extract", tile([16, 16], mem=Mat), const(0), const(0), dims(8, 8)).type.memory_space is Vec
    view = call("tile.transpose_view", tile([16, 32], mem=Mat)).type.effective_view()
    assert (view.blayout, view.slayout) == (pl.TileLayout.row_major, pl.TileLayout.col_major)
    t = call("tile.create", dims(16, 16), dtype=FP16, target_memory=Mat, transpose=True).type
    assert (t.tile_view.blayout, t.tile_view.slayout) == (pl.TileLayout.row_major, pl.TileLayout.col_major)
    with pytest.raises(ValueError, match="tile.create: target_memory LeftScale cannot be created"):
        call("tile.create", dims(16, 16), dtype=FP16, target_memory=pl.Mem.LeftScale)
    with pytest.raises(ValueError, match="tile.create: transpose=True needs a 2-D tile in Mat"):
        call("tile.create", dims(16, 16), dtype=FP16, target_memory=Vec, transpose=True)


# -- print / parse -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(views_alloc_cases.CASES))
def test_print_parse_roundtrip(name: str):
    from .test_dsl_roundtrip import program

    body, expected_call = views_alloc_cases.CASES[name]
    parsed = pl.parse(program(body))
    text = ir.python_print(parsed)
    assert expected_call in text, text
    reparsed = pl.parse(text)
    ir.assert_structural_equal(parsed, reparsed)
    assert ir.python_print(reparsed) == text
