"""Result types of every op family: shape, dtype, memory space and view (`deduce_type`, `output_memory`:
docs/plugins.md, OpDef fields)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.op import system_ops, tensor_ops
from pypto.ir.op import tile_ops as T

from .helpers import dims, scalar, shape_of, tensor, tile, valid_of

Vec, Mat, Left, Right, Acc = pl.Mem.Vec, pl.Mem.Mat, pl.Mem.Left, pl.Mem.Right, pl.Mem.Acc
row_major, col_major, none_box = pl.TileLayout.row_major, pl.TileLayout.col_major, pl.TileLayout.none_box


# -- data movement ---------------------------------------------------------------------------------
def test_load_has_four_operands_and_lands_in_its_target():
    call = T.load(tensor([64, 128]), [0, 0], [16, 128])
    assert len(call.args) == 4 and dims(call.args[3].elements) == [16, 128]
    assert dict(call.kwargs) == {"target_memory": Vec}
    assert shape_of(call) == [16, 128] and call.type.dtype is pl.FP32 and call.type.memory_space is Vec
    assert call.type.tile_view is None


def test_load_valid_shape_is_the_readable_window():
    call = T.load(tensor([64, 128]), [60, 0], [16, 128])
    assert valid_of(call) == [4, 128]
    asked = T.load(tensor([64, 128]), [0, 0], [16, 128], [10, 64])
    assert valid_of(asked) == [10, 64]


def test_load_views_per_target():
    mat = T.load(tensor([64, 128]), [0, 0], [16, 128], target_memory=Mat)
    assert mat.type.effective_view().blayout is col_major and mat.type.effective_view().slayout is row_major
    one_row = T.load(tensor([64, 128]), [0, 0], [1, 128], target_memory=Mat)
    assert (one_row.type.tile_view.blayout, one_row.type.tile_view.slayout) == (row_major, none_box)
    column = T.load(tensor([64, 1]), [0, 0], [16, 1])
    assert column.type.effective_view().blayout is col_major
    clamp = T.load(tensor([64, 128]), [0, 0], [16, 128], clamp=True)
    assert clamp.kwargs["clamp"] is True


def test_store_returns_the_target_type():
    out = tensor([64, 128])
    call = T.store(tile([16, 128]), [16, 0], out)
    assert call.type == out.type and len(call.args) == 3 and dict(call.kwargs) == {}
    atomic = T.store(tile([16, 128], mem=Acc), [0, 0], out, atomic=pl.AtomicType.Add)
    assert dict(atomic.kwargs) == {"atomic": 1}


def test_move_keeps_the_valid_region_and_takes_the_target_space():
    src = tile([128, 128], mem=Mat, valid=[127, 128])
    vec = T.move(src, Vec)
    assert vec.type.memory_space is Vec and valid_of(vec) == [127, 128]
    # Appendix A.4: a Mat tile moved to Vec keeps its NZ layout.
    assert (vec.type.tile_view.blayout, vec.type.tile_view.slayout) == (col_major, row_major)
    right = T.move(tile([64, 32], pl.FP16, Mat), Right)
    assert right.type.effective_view().blayout is row_major and right.type.memory_space is Right
    override = T.move(src, Vec, blayout=row_major, slayout=none_box)
    assert (override.type.tile_view.blayout, override.type.tile_view.slayout) == (row_major, none_box)


def test_move_to_a_flat_space_keeps_the_source_effective_layout_even_implicit():
    """Acc / Mat / Left implicit = col_major / row_major: a move into Vec (or Bias) keeps it, fractal of Vec."""
    for space in (Acc, Mat, Left):
        moved = T.move(tile([16, 16], mem=space), Vec)
        view = moved.type.tile_view
        assert (view.blayout, view.slayout, view.fractal) == (col_major, row_major, 512), space
        assert not view.valid_shape
    bias = T.move(tile([1, 16], mem=Acc), pl.Mem.Bias)
    assert (bias.type.effective_view().blayout, bias.type.effective_view().slayout) == (col_major, row_major)
    # A flat source stays flat; the elementwise result of a moved tile inherits its view.
    assert T.move(tile([16, 16], mem=Vec), pl.Mem.Bias).type.tile_view is None
    moved = T.move(tile([16, 16], mem=Acc), Vec)
    assert T.add(moved, moved).type == moved.type and T.exp(moved).type == moved.type


def test_move_into_a_cube_space_takes_its_implicit_layout():
    src = tile([16, 32], mem=Vec, valid=[10, 32])
    for space in (Mat, Left, Acc):
        moved = T.move(src, space)
        assert moved.type.tile_view.blayout is col_major and moved.type.tile_view.slayout is row_major
        assert valid_of(moved) == [10, 32]
    assert T.move(src, Acc).type.tile_view.fractal == 1024
    right = T.move(tile([16, 1], mem=Mat), Right)  # a column vector's implicit Right blayout is col_major
    assert (right.type.effective_view().blayout, right.type.effective_view().slayout) == (row_major, col_major)


def test_move_keeps_the_source_pad_and_kwargs_override_except_into_scale_spaces():
    padded = ir.Var("p", ir.TileType([16, 16], pl.FP32, tile_view=ir.TileView(valid_shape=[12, 16],
                                                                                pad=pl.PadValue.max), memory_space=Vec))
    assert T.move(padded, Mat).type.tile_view.pad is pl.PadValue.max
    assert T.move(padded, Vec, blayout=col_major).type.tile_view.pad is pl.PadValue.max
    flat = T.move(tile([16, 16], mem=Acc), Vec, blayout=row_major, slayout=none_box)
    assert flat.type == ir.TileType([16, 16], pl.FP32, memory_space=Vec)  # the implicit Vec view
    scale = T.move(tile([16, 2], pl.UINT8, Mat), pl.Mem.LeftScale, blayout=col_major, slayout=col_major)
    assert (scale.type.effective_view().blayout, scale.type.effective_view().slayout) == (row_major, row_major)


def test_a_move_prints_the_layout_it_keeps():
    text = """
@pl.function(type=pl.FunctionType.AIC)
def k(c_acc: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
    v = pl.tile.move(c_acc, target_memory=pl.Mem.Vec)
    w = pl.tile.add(v, v)
    out = pl.store(w, [0, 0], out)
    return out
"""
    printed = ir.python_print(pl.parse(text))
    view = "pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)"
    assert f"v: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, {view}] = pl.tile.move(c_acc, target_memory=pl.Mem.Vec)" \
        in printed, printed
    assert f"w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec, {view}] = pl.tile.add(v, v)" in printed, printed


def test_extract_read_write():
    ext = T.extract(tile([64, 128], pl.FP16, Mat), 16, 0, [16, 64], target_memory=Left)
    assert shape_of(ext) == [16, 64] and ext.type.memory_space is Left
    v = tile([16, 128], pl.FP16)
    assert T.read(v, [0, 1]).type == ir.ScalarType(pl.FP16)
    written = T.write(v, [0, 1], 2.0)
    # A float literal stays FP32; an int literal takes an integer tile's dtype (docs/dsl.md, functions).
    assert written.type == v.type and written.args[2].type == ir.ScalarType(pl.FP32)
    ints = T.write(tile([16, 128], pl.INT32), [0, 1], 2)
    assert ints.args[2].type == ir.ScalarType(pl.INT32)


# -- generators ------------------------------------------------------------------------------------
def test_full_value_takes_the_fill_dtype():
    call = T.full([16, 128], pl.FP16, 0)
    assert isinstance(call.args[1], ir.ConstFloat) and call.args[1].type.dtype is pl.FP16
    assert call.type == ir.TileType([16, 128], pl.FP16, memory_space=Vec)
    ints = T.full([4], pl.INT32, 7.0)
    assert isinstance(ints.args[1], ir.ConstInt) and ints.args[1].type.dtype is pl.INT32


def test_create_ci_random():
    made = T.create([16, 16], pl.FP16, target_memory=Mat)
    assert made.type == ir.TileType([16, 16], pl.FP16, memory_space=Mat)
    ci = T.ci(0, [1, 128], pl.INT32)
    assert ci.type == ir.TileType([1, 128], pl.INT32, memory_space=Vec) and ci.args[0].type.dtype is pl.INT32
    rnd = T.random(1, 2, 0, 0, 0, 0, [16, 128], [8, 128])
    assert rnd.type.dtype is pl.UINT32 and valid_of(rnd) == [8, 128] and dict(rnd.kwargs) == {
        "dtype": pl.UINT32, "rounds": 10}


# -- element-wise ----------------------------------------------------------------------------------
def test_binary_broadcasts_and_promotes():
    call = T.add(tile([16, 128], pl.FP16), tile([1, 128]))
    assert shape_of(call) == [16, 128] and call.type.dtype is pl.FP32 and call.type.memory_space is Vec
    col = T.mul(tile([16, 1]), tile([1, 128]))
    assert shape_of(col) == [16, 128]


def test_scalar_operand_becomes_the_scalar_form_with_the_element_dtype():
    # A float literal stays FP32 (printed bare); the tile op keeps the tile's dtype (docs/dsl.md, functions).
    call = T.add(tile([16, 128], pl.FP16), 1.0)
    assert call.op.name == "tile.adds" and call.args[1].type.dtype is pl.FP32 and call.type.dtype is pl.FP16
    kept = T.muls(tile([16, 128], pl.FP16), scalar(pl.FP32))
    assert kept.args[1].type.dtype is pl.FP32


def test_elementwise_results_keep_the_operand_view():
    src = tile([128, 128], mem=Vec, valid=[127, 128])
    moved = T.move(tile([128, 128], mem=Mat, valid=[127, 128]), Vec)
    assert T.exp(src).type == src.type
    added = T.add(moved, moved)
    assert added.type.tile_view == moved.type.tile_view


def test_cast_cmp_sel():
    v = tile([16, 128])
    cast = T.cast(v, pl.FP16, mode="floor")
    assert cast.type.dtype is pl.FP16 and dict(cast.kwargs) == {"target_type": pl.FP16, "mode": 3}
    mask = T.cmp(v, v, cmp_type="lt")  # a packed UINT8 predicate: roundup(ceil(128 / 8), 32) bytes
    assert mask.type.dtype is pl.UINT8 and shape_of(mask) == [16, 32] and valid_of(mask) == [16, 16]
    assert mask.kwargs["cmp_type"] == 2
    assert T.cmp(v, 0.0).op.name == "tile.cmps"
    picked = T.sel(mask, v, tile([16, 128], pl.FP16), v)
    assert shape_of(picked) == [16, 128] and picked.type.dtype is pl.FP32
    assert T.sels(mask, v, v, 0.0).type == v.type


def test_rsqrt_optional_tmp_and_recip_kwarg():
    v = tile([16, 128])
    assert len(T.rsqrt(v).args) == 1 and len(T.rsqrt(v, v).args) == 2
    assert dict(T.recip(v, high_precision=True).kwargs) == {"high_precision": True}


# -- views -----------------------------------------------------------------------------------------
def test_slice_shape_valid_and_inherited_memory():
    src = tile([16, 128], mem=Mat)
    call = T.slice(src, [8, 64], [8, 64], [4, 64])
    assert shape_of(call) == [8, 64] and valid_of(call) == [4, 64] and call.type.memory_space is Mat
    assert len(call.args) == 4


def test_slice_clips_to_the_source_valid_region():
    call = T.slice(tile([128, 128], valid=[127, 128]), [64, 128], [64, 0])
    assert valid_of(call) == [63, 128]


def test_slice_drop_dims_clamps_to_two_dims():
    src = tile([4, 16, 128])
    call = T.slice(src, [1, 16, 128], [2, 0, 0], drop_dims=[0])
    assert shape_of(call) == [16, 128]
    assert dims(call.args[3].elements) == []  # the skipped valid_shape placeholder
    flat = T.slice(src, [1, 1, 128], [0, 3, 0], drop_dims=[0, 1])
    assert shape_of(flat) == [1, 128]


def test_slice_keeps_the_rank_of_its_shape():
    """No clamp to 2-D without drop_dims: a 1-D slice of a 1-D tile is 1-D, an N-D one N-D."""
    s = T.slice(tile([64]), [32], [0])
    assert s.type == ir.TileType([32], pl.FP32, memory_space=Vec)
    assert shape_of(T.slice(tile([64]), [16], [8], [10])) == [16] and valid_of(T.slice(tile([64]), [16], [8], [10])) == [10]
    assert shape_of(T.slice(tile([4, 16, 128]), [1, 16, 128], [2, 0, 0])) == [1, 16, 128]
    assert shape_of(T.slice(tile([4, 16, 128]), [1, 16, 128], [2, 0, 0], drop_dims=[])) == [1, 16, 128]


def test_reshape_moves_unit_dims_with_their_valid_extent():
    call = T.reshape(tile([16, 1], valid=[10, 1]), [1, 16])
    assert shape_of(call) == [1, 16] and valid_of(call) == [1, 10]
    assert T.reshape(tile([16, 128]), [128, 16]).type == ir.TileType([128, 16], pl.FP32, memory_space=Vec)


def test_reinterpret_view_rescales_the_last_dim():
    call = T.reinterpret_view(tile([16, 128]), pl.FP16)
    assert shape_of(call) == [16, 256] and call.type.dtype is pl.FP16 and len(call.args) == 1
    shaped = T.reinterpret_view(tile([16, 128]), pl.INT8, shape=[64, 128])
    assert shape_of(shaped) == [64, 128] and len(shaped.args) == 2


def test_transpose_and_transpose_view():
    t = T.transpose(tile([16, 128], valid=[10, 128]), 0, 1)
    assert shape_of(t) == [128, 16] and valid_of(t) == [128, 10]
    view = T.transpose_view(tile([1, 256]))
    assert shape_of(view) == [256, 1] and view.type.effective_view().blayout is col_major


def test_set_validshape_sets_the_view():
    rows = scalar()
    call = T.set_validshape(tile([16, 128], mem=Mat), rows, 64)
    assert call.type.tile_view.valid_shape[0] is rows and call.type.memory_space is Mat
    assert call.type.tile_view.blayout is col_major  # Mat's layout is kept


def test_assemble_returns_the_target_type():
    target = tile([16, 128])
    assert T.assemble(target, tile([4, 128]), [8, 0]).type == target.type


# -- reductions and broadcasts ---------------------------------------------------------------------
def test_reductions():
    v = tile([16, 128], valid=[10, 100])
    assert shape_of(T.col_max(v)) == [1, 128] and valid_of(T.col_max(v)) == [1, 100]
    assert shape_of(T.row_sum(v, v)) == [16, 1] and valid_of(T.row_sum(v, v)) == [10, 1]
    arg = T.row_argmax(tile([16, 128]), tile([16, 128]))
    assert shape_of(arg) == [16, 1] and arg.type.dtype is pl.INT32
    assert T.col_sum(v, v).args[1] is v


def test_expands():
    v = tile([16, 128])
    assert T.row_expand_mul(v, tile([16, 1])).type == v.type
    assert T.col_expand_add(v, tile([1, 128])).type == v.type


# -- matmul ----------------------------------------------------------------------------------------
def test_matmul_accumulates_in_acc():
    call = T.matmul(tile([16, 64], pl.FP16, Left), tile([64, 32], pl.FP16, Right))
    assert call.type == ir.TileType([16, 32], pl.FP32, memory_space=Acc)
    ints = T.matmul(tile([16, 64], pl.INT8, Left), tile([64, 32], pl.INT8, Right))
    assert ints.type.dtype is pl.INT32
    acc = tile([16, 32], pl.FP32, Acc)
    assert T.matmul_acc(acc, tile([16, 64], pl.FP16, Left), tile([64, 32], pl.FP16, Right)).type == acc.type


# -- index-addressed -------------------------------------------------------------------------------
def test_gathers_and_scatters():
    src, idx = tile([64, 128]), tile([16, 128], pl.INT32)
    assert T.gather(src, idx, src).type == ir.TileType([16, 128], pl.FP32, memory_space=Vec)
    # tile.gatherb: UINT32 offsets, a column count that is a multiple of 8
    assert T.gatherb(src, tile([16, 8], pl.UINT32), output_dtype=pl.FP16).type.dtype is pl.FP16
    assert T.scatter(src, tile([16, 128]), idx).type == src.type
    update = T.scatter_update(src, tile([2, 8], pl.INT32), tile([16, 128]))
    assert update.type == src.type and dict(update.kwargs) == {"dim": -2}


def test_gather_compare_returns_a_tuple():
    call = T.gather_compare(tile([16, 128]), 0.5, tile([16, 128]), cmp_mode=0, out_cols=32)
    dst, cdst = call.type.types
    assert dims(dst.shape) == [16, 32]
    assert dims(cdst.shape) == [1, 16] and cdst.dtype is pl.INT32 and dst.memory_space is Vec


def test_gather_row_sixth_operand_is_the_valid_shape():
    dst = tile([16, 128])
    # the valid shape lies within `shapes`; it narrows the transfer only: the result is dst's type
    call = T.gather_row(dst, tensor([1024, 128]), [3, 0], [scalar(), 0], [4, 128], valid_shape=[2, 128])
    assert len(call.args) == 6 and call.type == dst.type
    assert T.gather_row(dst, tensor([1024, 128]), [3, 0], [0, 0], [1, 128]).type == dst.type


# -- lanes and cross-core --------------------------------------------------------------------------
def test_aiv_shard_halves_the_split_axis():
    odd = T.aiv_shard(tile([17, 128], mem=Acc), split=1)
    assert shape_of(odd) == [9, 128] and odd.type.memory_space is Vec and odd.type.tile_view is None
    ragged = T.aiv_shard(tile([16, 128], mem=Mat, valid=[13, 128]), split=1)
    assert shape_of(ragged) == [8, 128] and valid_of(ragged) == [7, 128]
    cols = T.aiv_shard(tile([16, 128], mem=Acc), split=2)
    assert shape_of(cols) == [16, 64]
    same = T.aiv_shard(tile([16, 128], mem=Acc, valid=[15, 128]), split=0)
    assert shape_of(same) == [16, 128] and valid_of(same) == [15, 128] and same.type.memory_space is Vec


def test_aiv_shard_of_a_dynamic_axis_is_n_floordiv_2():
    n = scalar(name="n")
    half = T.aiv_shard(tile([n, 128], mem=Acc), split=1)
    assert isinstance(half.type.shape[0], ir.FloorDiv) and half.type.shape[0].left is n


def test_aic_gather_doubles_into_mat():
    call = T.aic_gather(tile([64, 128]), split=1)
    assert call.type == ir.TileType([128, 128], pl.FP32, memory_space=Mat)
    assert shape_of(T.aic_gather(tile([1, 8]), split=2)) == [1, 16]
    assert shape_of(T.aic_gather(tile([64, 128]), split=0)) == [64, 128]


def test_tensor_boundaries():
    t = tensor([128, 64])
    assert tensor_ops.aiv_shard(t, split=0).type == t.type
    half = ir.create_op_call("tensor.aiv_shard", [t], {"split": 1})
    assert half.type == ir.TensorType([64, 64], pl.FP32)
    assert tensor_ops.aic_gather(t, split=2).type == ir.TensorType([128, 128], pl.FP32)


def test_transport_types():
    assert isinstance(T.tpush_to_aiv(tile([16, 128], mem=Acc), split=1).type, ir.UnknownType)
    assert isinstance(T.tpop_from_aic(split=1).type, ir.UnknownType)
    popped = T.tpop_from_aic(shape=[8, 128], dtype=pl.FP32)
    assert popped.type == ir.TileType([8, 128], pl.FP32, memory_space=Vec)
    assert T.tpop_from_aiv(shape=[16, 128], dtype=pl.FP16).type.memory_space is Mat
    assert T.get_subblock_idx().type == ir.ScalarType(pl.INDEX)


def test_pop_shape_and_dtype_only_build_the_result_type():
    """shape= / dtype= are never stored: the kwargs are exactly split, then lane_stride, then id."""
    popped = T.tpop_from_aic(shape=[16, 64], dtype=pl.FP32, split=0)
    assert dict(popped.kwargs) == {"split": 0}
    assert popped.type == ir.TileType([16, 64], pl.FP32, memory_space=Vec)
    ordered = T.tpop_from_aic(id=3, lane_stride=4, split=1, shape=[8, 64], dtype=pl.FP32)
    assert list(ordered.kwargs) == ["split", "lane_stride", "id"]
    assert list(T.tpop_from_aiv(id=2, shape=[16, 64], dtype=pl.BF16).kwargs.items()) == [("split", 0), ("id", 2)]
    assert T.tpop_from_aiv(id=2, shape=[16, 64], dtype=pl.BF16).type == ir.TileType([16, 64], pl.BF16,
                                                                                   memory_space=Mat)
    given = ir.TileType([16, 64], pl.FP16, memory_space=Mat)
    assert T.tpop_from_aiv(split=1, result_type=given).type is given
    assert dict(T.tpop_from_aiv(split=1, result_type=given).kwargs) == {"split": 1}


def test_pop_result_type_excludes_shape_and_dtype():
    given = ir.TileType([16, 64], pl.FP32, memory_space=Vec)
    with pytest.raises(ValueError, match="either result_type= or shape= and dtype="):
        T.tpop_from_aic(split=0, shape=[16, 64], dtype=pl.FP32, result_type=given)
    with pytest.raises(ValueError, match="give both shape= and dtype="):
        T.tpop_from_aic(split=0, dtype=pl.FP32)
    with pytest.raises(ValueError, match="give both shape= and dtype="):
        T.tpop_from_aiv(split=0, shape=[16, 64])


def test_pop_prints_its_type_on_the_assignment():
    text = """

@pl.function(type=pl.FunctionType.AIV)
def k(out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    v = pl.tpop_from_aic(shape=[16, 64], dtype=pl.FP32, split=0)
    pl.system.tfree_to_aic(v)
    out = pl.store(v, [0, 0], out)
    return out
"""
    printed = ir.python_print(pl.parse(text))
    assert "v: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)" in printed, printed
    ir.assert_structural_equal(pl.parse(text), pl.parse(printed))


def test_pipe_scaffolding():
    buf = system_ops.reserve_buffer(name="c2v", size=4096)
    assert buf.type == ir.ScalarType(pl.INT32) and dict(buf.kwargs) == {"name": "c2v", "size": 4096, "base": -1}
    peer = system_ops.import_peer_buffer(name="c2v", peer_func="k_aiv")
    assert peer.type == ir.ScalarType(pl.INT32)
    init = system_ops.aiv_initialize_pipe(dir_mask=1, slot_size=2048, slot_num=2)
    assert [(a.value, a.type.dtype) for a in init.args] == [(0, pl.INT32), (0, pl.INT32)]
    assert isinstance(init.type, ir.UnknownType)
    passthrough = system_ops.aic_initialize_pipe(buf, 0, dir_mask=3, slot_size=2048)
    assert passthrough.args[0] is buf
    assert system_ops.task_invalid().type == ir.ScalarType(pl.TASK_ID)


# -- tensors ---------------------------------------------------------------------------------------
def test_tensor_ops():
    a = tensor([64, 128])
    assert tensor_ops.create([8, 8], pl.FP16).type == ir.TensorType([8, 8], pl.FP16)
    assert tensor_ops.full([8], pl.INT32, 1).type == ir.TensorType([8], pl.INT32)
    assert tensor_ops.add(a, 1.0).op.name == "tensor.adds"
    sliced = tensor_ops.slice(a, [16, 128], [0, 0], [10, 128])
    assert dims(sliced.type.shape) == [16, 128] and dims(sliced.type.tensor_view.valid_shape) == [10, 128]
    assert tensor_ops.dim(a, 1).type == ir.ScalarType(pl.INDEX)  # tensor.dim: an extent
    assert tensor_ops.read(a, [0, 1]).type == ir.ScalarType(pl.FP32)
    assert tensor_ops.assemble(a, tensor([1, 128]), [5, 0]).type == a.type
    assert tensor_ops.row_sum(a).type == ir.TensorType([64, 1], pl.FP32)
    assert tensor_ops.reshape(a, [128, 64]).type == ir.TensorType([128, 64], pl.FP32)
    # tensor.transpose: the transposed view of a's memory (docs/reference/ops.md; strides swapped, ND -> DN).
    assert tensor_ops.transpose(a, 0, 1).type == ir.TensorType(
        [128, 64], pl.FP32, tensor_view=ir.TensorView(stride=[1, 128], layout=pl.TensorLayout.DN))


def test_tensor_binary_ops_keep_a_valid_region_both_operands_declare():
    # tensor.add's result is fresh; it keeps the valid region when both operands have the same shape and
    # provably the same valid region. Found by the generator's ragged windows: assemble wrote the whole sum
    # instead of its valid region.
    a = tensor([32, 64])
    ragged = tensor_ops.slice(a, [32, 64], [0, 0], [32, 33])
    other = tensor_ops.slice(a, [32, 64], [0, 0], [16, 64])
    for op in (tensor_ops.add, tensor_ops.mul, tensor_ops.sub, tensor_ops.maximum):
        assert dims(op(ragged, ragged).type.tensor_view.valid_shape) == [32, 33]
        assert op(ragged, a).type == ir.TensorType([32, 64], pl.FP32)  # a's valid region is the whole tensor
        assert op(ragged, other).type == ir.TensorType([32, 64], pl.FP32)  # not provably the same
    assert tensor_ops.add(a, a).type == a.type
    column = tensor_ops.slice(tensor([32, 1]), [32, 1], [0, 0], [20, 1])
    assert tensor_ops.add(ragged, column).type == ir.TensorType([32, 64], pl.FP32)  # broadcast: not kept


def test_tensor_matmul_out_dtype_and_transposes():
    a, b = tensor([32, 64], pl.FP16), tensor([16, 64], pl.FP16)
    call = tensor_ops.matmul(a, b, out_dtype=pl.FP32, b_trans=True)
    # The defaulted flags are recorded too (recorded kwargs: docs/plugins.md, OpDef fields).
    assert call.type == ir.TensorType([32, 16], pl.FP32) and dict(call.kwargs) == {
        "out_dtype": pl.FP32, "a_trans": False, "b_trans": True, "c_matrix_nz": False}
    assert tensor_ops.matmul(a, tensor([64, 8], pl.FP16)).type == ir.TensorType([32, 8], pl.FP16)
