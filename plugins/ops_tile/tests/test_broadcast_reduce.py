"""Row / column broadcasts, reductions and tensor.matmul's batched / 1-D forms (the broadcasts, reductions and
matmul families; docs/reference/ops.md): type rules and print / parse round trips.
Machine results are in test_broadcast_reduce_eval.py."""

from __future__ import annotations

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ops.opdef import LaneCategory
from pypto_core.ops.registry import get_opdef

from .helpers import dims, scalar, shape_of, tensor, tile, valid_of

FP32, FP16, INT32, INT8, BF16 = pl.FP32, pl.FP16, pl.INT32, pl.INT8, pl.BF16
SPAN = ir.Span.unknown() if hasattr(ir.Span, "unknown") else None
EXPANDS = ("", "_max", "_min", "_expdif")


def call(op: str, *args, **kwargs) -> ir.Call:
    return ir.create_op_call(op, list(args), kwargs)


# -- tile broadcasts --------------------------------------------------------------------------------
@pytest.mark.parametrize("suffix", EXPANDS)
def test_tile_row_expand_family(suffix: str):
    op = f"tile.row_expand{suffix}"
    v = tile([16, 64], valid=[10, 64])
    c = call(op, v, tile([16, 1]))
    assert c.type == v.type  # shape, dtype and view of the target
    assert call(op, tile([16, 64], FP16), tile([16, 1], FP32)).type.dtype is FP32  # promote
    assert shape_of(call(op, tile([2, 16, 64]), tile([2, 16, 1]))) == [2, 16, 64]  # rank >= 2
    with pytest.raises(TypeError, match=rf"{op}: the vector must be \[M, 1\] for a \[16, 64\] tile, got \[8, 1\]"):
        call(op, tile([16, 64]), tile([8, 1]))
    with pytest.raises(TypeError, match=rf"{op}: the vector must be \[M, 1\]"):
        call(op, tile([16, 64]), tile([16, 2]))
    with pytest.raises(TypeError, match=rf"{op}: the tile must be at least 2-D"):
        call(op, tile([64]), tile([16, 1]))
    with pytest.raises(TypeError, match=rf"{op}: the vector must be a tile"):
        call(op, tile([16, 64]), tensor([16, 1]))


@pytest.mark.parametrize("suffix", EXPANDS)
def test_tile_col_expand_family(suffix: str):
    op = f"tile.col_expand{suffix}"
    v = tile([16, 64], valid=[16, 40])
    assert call(op, v, tile([1, 64])).type == v.type
    assert call(op, tile([16, 64], INT32), tile([1, 64], FP16)).type.dtype is FP16
    with pytest.raises(TypeError, match=rf"{op}: the vector must be \[1, N\] for a \[16, 64\] tile, got \[1, 32\]"):
        call(op, tile([16, 64]), tile([1, 32]))
    with pytest.raises(TypeError, match=rf"{op}: the vector must be \[1, N\]"):
        call(op, tile([16, 64]), tile([2, 64]))


def test_tile_row_expand_add_is_one_dtype_with_an_optional_tmp():
    op = "tile.row_expand_add"
    assert call(op, tile([16, 64], INT8), tile([16, 1], INT8)).type.dtype is INT8
    packed = call(op, tile([16, 64]), tile([16, 8]), tile([16, 64]))  # FP32: a 32-byte carrier is 8 wide
    assert shape_of(packed) == [16, 64] and len(packed.args) == 3
    assert get_opdef(op).lane_category(2) is LaneCategory.SCRATCH
    with pytest.raises(TypeError, match=rf"{op}: the vector is FP32 but the tile is FP16; both must have one dtype"):
        call(op, tile([16, 64], FP16), tile([16, 1], FP32))
    with pytest.raises(TypeError, match=rf"{op}: the tile is BF16; allowed dtypes: INT8, INT16, INT32, FP16, FP32"):
        call(op, tile([16, 64], BF16), tile([16, 1], BF16))
    with pytest.raises(TypeError, match=rf"{op}: the vector must be \[M, 1\] \(or a row-major \[M, 8\] carrier\)"):
        call(op, tile([16, 64]), tile([16, 4]))
    with pytest.raises(TypeError, match=rf"{op}: the vector must be"):  # valid rows must match
        call(op, tile([16, 64], valid=[10, 64]), tile([16, 1]))


# -- tile reductions --------------------------------------------------------------------------------
def test_tile_row_prod_and_row_argmin():
    v = tile([16, 128], valid=[10, 100])
    prod = call("tile.row_prod", v, tile([16, 128]))
    assert shape_of(prod) == [16, 1] and valid_of(prod) == [10, 1] and prod.type.dtype is FP32
    arg = call("tile.row_argmin", tile([16, 128], FP16), tile([16, 128], FP16))
    assert shape_of(arg) == [16, 1] and arg.type.dtype is INT32
    assert shape_of(call("tile.row_prod", tile([2, 8, 64]), tile([2, 8, 64]))) == [2, 8, 1]
    with pytest.raises(TypeError, match=r"tile.row_prod: tmp \[8, 128\] is smaller than the operand \[16, 128\]"):
        call("tile.row_prod", tile([16, 128]), tile([8, 128]))
    with pytest.raises(TypeError, match=r"tile.row_prod: tmp is FP16 but the operand is FP32"):
        call("tile.row_prod", tile([16, 128]), tile([16, 128], FP16))
    with pytest.raises(TypeError, match=r"tile.row_argmin: tmp must have the operand's shape and dtype"):
        call("tile.row_argmin", tile([16, 128]), tile([32, 128]))
    # PyPTO's rule that the valid region is not provably empty is not checked: an idle split lane has an empty
    # valid region.
    assert valid_of(call("tile.row_prod", tile([16, 128], valid=[0, 0]), tile([16, 128]))) == [0, 1]
    assert get_opdef("tile.row_prod").lane_category(1) is LaneCategory.SCRATCH
    assert get_opdef("tile.row_argmin").lane_category(1) is None  # the deducer decides it


@pytest.mark.parametrize("name", ["col_argmax", "col_argmin"])
def test_tile_col_arg_reductions(name: str):
    v = tile([16, 128], FP16, valid=[16, 100])
    c = call(f"tile.{name}", v, tile([16, 128], FP16))
    assert shape_of(c) == [1, 128] and valid_of(c) == [1, 100] and c.type.dtype is INT32
    assert get_opdef(f"tile.{name}").lane_category(1) is LaneCategory.SCRATCH
    assert get_opdef(f"tile.{name}").traits.reduction_axes == (0,)
    with pytest.raises(TypeError, match=rf"tile.{name} takes 2 positional argument\(s\) \(tile, tmp_tile\), got 1"):
        call(f"tile.{name}", v)
    with pytest.raises(TypeError, match=rf"tile.{name}: tmp must be a tile"):
        call(f"tile.{name}", v, tensor([16, 128]))


def test_tile_col_prod_takes_no_tmp():
    c = call("tile.col_prod", tile([16, 128], INT32, valid=[12, 128]))
    assert shape_of(c) == [1, 128] and c.type.dtype is INT32
    with pytest.raises(TypeError, match=r"tile.col_prod takes 1 positional argument\(s\) \(tile\), got 2"):
        call("tile.col_prod", tile([16, 128]), tile([16, 128]))
    with pytest.raises(TypeError, match=r"tile.col_prod: the operand must be at least 2-D"):
        call("tile.col_prod", tile([128]))


def test_audited_tile_reduction_rules():
    # tile.row_min takes a row-major operand; tile.col_sum's tmp has the operand's dtype.
    col_major = ir.Var("c", ir.TileType([16, 1], FP32, memory_space=pl.Mem.Vec))
    with pytest.raises(TypeError, match=r"tile.row_min: the operand must be row_major / none_box"):
        call("tile.row_min", col_major, col_major)
    with pytest.raises(TypeError, match=r"tile.col_sum: tmp is FP16 but the operand is FP32"):
        call("tile.col_sum", tile([16, 64]), tile([16, 64], FP16))
    assert shape_of(call("tile.row_sum", tile([4, 16, 64]), tile([4, 16, 64]))) == [4, 16, 1]
    # Broadcasts promote ("promoted dtype" in docs/reference/ops.md) instead of rejecting mixed dtypes.
    assert call("tile.row_expand_mul", tile([16, 64], FP16), tile([16, 1])).type.dtype is FP32
    assert call("tile.col_expand_sub", tile([16, 64], FP16), tile([1, 64])).type.dtype is FP32


# -- tensor broadcasts and reductions ---------------------------------------------------------------
@pytest.mark.parametrize("suffix", EXPANDS)
def test_tensor_expand_family(suffix: str):
    row, col = f"tensor.row_expand{suffix}", f"tensor.col_expand{suffix}"
    assert call(row, tensor([64, 128], FP16), tensor([64, 1])).type == ir.TensorType([64, 128], FP32)
    assert call(col, tensor([2, 64, 128]), tensor([2, 1, 128])).type == ir.TensorType([2, 64, 128], FP32)
    with pytest.raises(TypeError, match=rf"{row}: the vector must be \[M, 1\] for a \[64, 128\] tensor"):
        call(row, tensor([64, 128]), tensor([32, 1]))
    with pytest.raises(TypeError, match=rf"{col}: the vector must be \[1, N\] for a \[64, 128\] tensor"):
        call(col, tensor([64, 128]), tensor([1, 64]))
    with pytest.raises(TypeError, match=rf"{row}: the tensor must be at least 2-D"):
        call(row, tensor([64]), tensor([64, 1]))


def test_tensor_row_expand_add_is_one_dtype():
    assert call("tensor.row_expand_add", tensor([64, 128], INT32), tensor([64, 1], INT32)).type.dtype is INT32
    with pytest.raises(TypeError, match=r"tensor.row_expand_add: the vector is FP16 but the tensor is FP32"):
        call("tensor.row_expand_add", tensor([64, 128]), tensor([64, 1], FP16))


@pytest.mark.parametrize("name,dtype", [("row_prod", FP32), ("row_argmin", INT32), ("col_prod", FP32),
                                        ("col_argmax", INT32), ("col_argmin", INT32), ("row_sum", FP32),
                                        ("col_max", FP32), ("row_argmax", INT32)])
def test_tensor_reductions_take_axis_and_keep_dim(name: str, dtype):
    op = f"tensor.{name}"
    a = tensor([64, 128])
    row = name.startswith("row_")
    assert call(op, a).type == ir.TensorType([64, 1] if row else [1, 128], dtype)
    assert call(op, a, keep_dim=False).type == ir.TensorType([64] if row else [128], dtype)
    assert call(op, tensor([4, 64, 128]), axis=0).type == ir.TensorType([1, 64, 128], dtype)
    with pytest.raises(ValueError, match=rf"{op}: axis 3 is out of range for a 2-D operand"):
        call(op, a, axis=3)
    with pytest.raises(TypeError, match=rf"{op}: keyword 'keep_dim' must be bool"):
        call(op, a, keep_dim=1)


def test_tensor_reduction_results():
    assert call("tensor.row_prod", tensor([64]), keep_dim=False).type == ir.ScalarType(FP32)  # all removed
    with pytest.raises(TypeError, match=r"tensor.col_prod: the operand must be at least 2-D"):
        call("tensor.col_prod", tensor([64]))
    with pytest.raises(TypeError, match=r"tensor.row_min: the operand is INT8; allowed dtypes"):
        call("tensor.row_min", tensor([16, 16], INT8))
    sliced = ir.create_op_call("tensor.slice", [tensor([64, 128]), ir.MakeTuple([ir.ConstInt(16, pl.INDEX),
                               ir.ConstInt(128, pl.INDEX)]), ir.MakeTuple([ir.ConstInt(0, pl.INDEX)] * 2),
                               ir.MakeTuple([ir.ConstInt(10, pl.INDEX), ir.ConstInt(128, pl.INDEX)])], {})
    reduced = call("tensor.row_sum", sliced)
    assert dims(reduced.type.tensor_view.valid_shape) == [10, 1]  # fresh, with the kept dims' valid extents


# -- tensor.matmul / matmul_acc ---------------------------------------------------------------------
def test_tensor_matmul_ranks():
    mm = "tensor.matmul"
    assert call(mm, tensor([2, 16, 32], FP16), tensor([2, 32, 8], FP16)).type == ir.TensorType([2, 16, 8], FP16)
    assert call(mm, tensor([3, 1, 16, 32]), tensor([4, 32, 8])).type == ir.TensorType([3, 4, 16, 8], FP32)
    assert call(mm, tensor([16, 32]), tensor([32])).type == ir.TensorType([16], FP32)
    assert call(mm, tensor([32]), tensor([32, 8])).type == ir.TensorType([8], FP32)
    assert call(mm, tensor([32]), tensor([32])).type == ir.TensorType([], FP32)
    batched = call(mm, tensor([2, 32, 16], FP16), tensor([2, 8, 32], FP16), out_dtype=FP32, a_trans=True,
                   b_trans=True)
    assert batched.type == ir.TensorType([2, 16, 8], FP32)
    with pytest.raises(TypeError, match=r"tensor.matmul: inner dims differ: lhs \[2, 16, 32\] x rhs \[2, 16, 8\]"):
        call(mm, tensor([2, 16, 32]), tensor([2, 16, 8]))
    with pytest.raises(TypeError, match=r"tensor.matmul: shapes \[2\] and \[3\] do not broadcast"):
        call(mm, tensor([2, 16, 32]), tensor([3, 32, 8]))


def test_tensor_matmul_acc_rules():
    acc = tensor([2, 16, 8])
    assert call("tensor.matmul_acc", acc, tensor([2, 16, 32], FP16), tensor([2, 32, 8], FP16)).type == acc.type
    two = call("tensor.matmul_acc", tensor([16, 8]), tensor([16, 32], FP16), tensor([32, 8], FP16),
               scalar(pl.BOOL))
    assert len(two.args) == 4 and two.type == ir.TensorType([16, 8], FP32)
    with pytest.raises(TypeError, match=r"tensor.matmul_acc: acc is FP16; a product of FP16 operands accumulates "
                                        r"in FP32"):
        call("tensor.matmul_acc", tensor([16, 8], FP16), tensor([16, 32], FP16), tensor([32, 8], FP16))
    with pytest.raises(TypeError, match=r"tensor.matmul_acc: lhs is FP16 but rhs is FP32"):
        call("tensor.matmul_acc", tensor([16, 8]), tensor([16, 32], FP16), tensor([32, 8]))
    with pytest.raises(TypeError, match=r"tensor.matmul_acc: init_cond must be a BOOL scalar, got INT32"):
        call("tensor.matmul_acc", tensor([16, 8]), tensor([16, 32]), tensor([32, 8]), scalar(INT32))
    with pytest.raises(TypeError, match=r"tensor.matmul_acc: acc is \[16, 4\] but lhs x rhs is \[16, 8\]"):
        call("tensor.matmul_acc", tensor([16, 4]), tensor([16, 32]), tensor([32, 8]))
    with pytest.raises(TypeError, match=r"tensor.matmul_acc: lhs must be at least 2-D"):
        call("tensor.matmul_acc", tensor([16, 8]), tensor([32]), tensor([32, 8]))


# -- print / parse round trips ----------------------------------------------------------------------
PARAMS = ", ".join([
    "a: pl.Tensor[[64, 128], pl.FP32]", "ai: pl.Tensor[[64, 128], pl.INT32]", "col_t: pl.Tensor[[64, 1], pl.FP32]",
    "row_t: pl.Tensor[[1, 128], pl.FP32]", "b3: pl.Tensor[[2, 16, 32], pl.FP16]", "c3: pl.Tensor[[2, 32, 8], pl.FP16]",
    "acc3: pl.Tensor[[2, 16, 8], pl.FP32]", "ta: pl.Tensor[[64, 32], pl.FP16]", "tb: pl.Tensor[[32, 16], pl.FP16]",
    "tacc: pl.Tensor[[64, 16], pl.FP32]", "flag: pl.Scalar[pl.BOOL]",
    "v: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec]", "w: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec]",
    "col: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec]", "row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec]",
    "lhs: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left]", "rhs: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right]",
    "acc: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc]",
])


def program(body: str) -> str:
    body = textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
    return f"import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def main(self, {PARAMS}):\n" \
           f"{body}\n"


CASES: dict[str, tuple[str, str]] = {}
for _s in EXPANDS:
    for _d, _vec, _tvec in (("row", "col", "col_t"), ("col", "row", "row_t")):
        _n = f"{_d}_expand{_s}"
        CASES[f"tile.{_n}"] = (f"x = pl.tile.{_n}(v, {_vec})", f"pl.tile.{_n}(v, {_vec})")
        CASES[f"tensor.{_n}"] = (f"x = pl.tensor.{_n}(a, {_tvec})", f"pl.tensor.{_n}(a, {_tvec})")
        CASES[_n] = (f"x = pl.{_n}(v, {_vec})\ny = pl.{_n}(a, {_tvec})", f"pl.tensor.{_n}(a, {_tvec})")
for _n in ("row_prod", "row_argmin", "col_argmax", "col_argmin"):
    CASES[f"tile.{_n}"] = (f"x = pl.tile.{_n}(v, w)", f"pl.tile.{_n}(v, w)")
    CASES[_n] = (f"x = pl.{_n}(v, w)\ny = pl.{_n}(a)", f"pl.tile.{_n}(v, w)")
CASES["tile.col_prod"] = ("x = pl.tile.col_prod(v)", "pl.tile.col_prod(v)")
CASES["col_prod"] = ("x = pl.col_prod(v)\ny = pl.col_prod(a)", "pl.tensor.col_prod(a)")
for _n in ("row_prod", "row_argmin", "col_prod", "col_argmax", "col_argmin", "row_sum", "col_min", "row_argmax"):
    CASES[f"tensor.{_n}"] = (f"x = pl.tensor.{_n}(a)\ny = pl.tensor.{_n}(a, axis=0, keep_dim=False)",
                             f"pl.tensor.{_n}(a, axis=0, keep_dim=False)")
CASES.update({
    "tile.row_expand_add": ("x = pl.tile.row_expand_add(v, col, w)\ny = pl.tile.row_expand_add(v, col)",
                            "pl.tile.row_expand_add(v, col, w)"),
    "row_expand_add": ("x = pl.row_expand_add(v, col, tmp=w)\ny = pl.row_expand_add(a, col_t)",
                       "pl.tile.row_expand_add(v, col, w)"),
    "tensor.matmul": ("c = pl.tensor.matmul(b3, c3, out_dtype=pl.FP32)", "pl.tensor.matmul(b3, c3, out_dtype=pl.FP32, "
                      "a_trans=False, b_trans=False, c_matrix_nz=False)"),
    "tensor.matmul_acc": ("d = pl.tensor.matmul_acc(acc3, b3, c3)", "pl.tensor.matmul_acc(acc3, b3, c3)"),
})


@pytest.mark.parametrize("name", sorted(CASES))
def test_print_parse_roundtrip(name: str):
    body, expected_call = CASES[name]
    parsed = pl.parse(program(body))
    text = ir.python_print(parsed)
    assert expected_call in text, text
    reparsed = pl.parse(text)
    ir.assert_structural_equal(parsed, reparsed)
    assert ir.python_print(reparsed) == text


def _parse_error(body: str) -> str:
    with pytest.raises(Exception) as info:
        pl.parse(program(body))
    return str(info.value)


def test_dsl_errors():
    assert "a tile row_prod needs a tmp tile" in _parse_error("x = pl.row_prod(v)")
    assert "a tensor col_argmax takes no tmp" in _parse_error("x = pl.col_argmax(a, a)")
    assert "takes at most 1 positional argument(s) (input), got 2" in _parse_error("x = pl.col_prod(v, w)")
    assert "a tensor row_expand_add takes no tmp" in _parse_error("x = pl.row_expand_add(a, col_t, tmp=a)")
    assert "cannot mix Tensor and Tile" in _parse_error("x = pl.row_expand_max(a, col)")
