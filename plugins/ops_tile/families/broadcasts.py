"""Row and column broadcasts: `row_expand_{add,sub,mul,div,max,min,expdif}(x, v)` combine each row of x with
one value per row (v [..., M, 1]), `col_expand_*(x, v)` each column with one value per column (v [..., 1, N]),
on tiles and tensors; `row_expand(target, v)` / `col_expand(target, v)` broadcast v to the target's shape
(the target only gives the shape and view, its values are not read). The top-level `pl.row_expand_add` & co.
dispatch on the first operand.

Dtypes: a broadcast promotes its two dtypes, except `row_expand_add` (one dtype of INT8 / INT16 / INT32 /
FP16 / FP32; on a tile its row_vec is a [M, 1] column or a packed row-major 32-byte carrier [M, K], K = 32 /
elem_bytes, whose block repeats from column 0: x[i, j] + v[i, j mod K]; with the tile's valid rows, an
optional Scratch tmp, and a row_major / none_box tile).
`*_expand_expdif` is exp(x - v) (pto-isa TROWEXPANDEXPDIF / TCOLEXPANDEXPDIF: softmax's shifted exponent),
computed in FP32 for low-precision floats. Shapes: the rows (columns) must match when static; a dynamic
extent on either side is not checked; a col_expand vector must be [1, N] with the target's N (checking it
lets the split passes' re-deduction decide the operand).

Memory: every tile operand is read from Vec and the result is Vec. Tile forms: the tile op of the same name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, Type
from pypto_core.ops.build import (
    dsl_entry,
    operand_kind,
    promote_dtypes,
    reject_tensor_tile_mix,
    require_dtype_in,
    require_tensor,
    require_tile,
    shape_text,
    static_int,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, LaneCategory, OpDef
from pypto_plugins.ops_tile.common import names
from pypto_plugins.ops_tile.common.dsl import Builder, dispatch_between, dsl_named, registered
from pypto_plugins.ops_tile.common.shapes import require_min_rank, static_mismatch
from pypto_plugins.ops_tile.common.tile_forms import same
from pypto_plugins.ops_tile.common.views import require_row_major, result_tile, vec_op

family = OpFamily("broadcasts", semantics="pypto_plugins.ops_tile.semantics.broadcasts")

ROW_EXPAND_ADD_DTYPES = (DataType.INT8, DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32)
EXPAND_NEW = ("", "max", "min", "expdif")  # the broadcasts beyond names.EXPAND ("": the plain broadcast)
_VERB = {"add": "plus", "sub": "minus", "mul": "times", "div": "divided by"}
_EXPAND_DOC = {"": "{v}", "max": "max({x}, {v})", "min": "min({x}, {v})", "expdif": "exp({x} - {v})"}


def expand_name(d: str, n: str) -> str:
    return f"{d}_expand_{n}" if n else f"{d}_expand"


ALL = tuple(expand_name(d, n) for d in ("row", "col") for n in (*names.EXPAND, *EXPAND_NEW))


# -- type rules ---------------------------------------------------------------------------------------------
def _rows_match(vec: Expr, src: Expr) -> bool:
    """The rows (columns) match when both are static: a dynamic extent on either side is not checked."""
    a, b = static_int(vec), static_int(src)
    return a is None or b is None or a == b


def tile_expand_deducer(op: str, axis: int) -> Callable[..., Type]:
    """`v` holds one value per row (axis 0: [M, 1]) or per column (axis 1: [1, N]) of the last two dims."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the tile")
        vec = require_tile(op, args[1], "the vector")
        require_min_rank(op, src.shape, 2, "the tile")
        require_min_rank(op, vec.shape, 2, "the vector")
        vr, vc, sr, sc = vec.shape[-2], vec.shape[-1], src.shape[-2], src.shape[-1]
        ok = (_rows_match(vr, sr) and static_int(vc) == 1) if axis == 0 else \
            (_rows_match(vc, sc) and static_int(vr) == 1)
        if not ok:
            want = "[M, 1]" if axis == 0 else "[1, N]"
            raise TypeError(f"{op}: the vector must be {want} for a {shape_text(src.shape)} tile, got "
                            f"{shape_text(vec.shape)}")
        return result_tile(src.shape, promote_dtypes(src.dtype, vec.dtype, op), src)

    return deduce


def deduce_tile_row_expand_add(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """One dtype; row_vec a [M, 1] column or a row-major 32-byte carrier, with the tile's valid rows."""
    op = "tile.row_expand_add"
    src = require_tile(op, args[0], "the tile")
    vec = require_tile(op, args[1], "the vector")
    require_min_rank(op, src.shape, 2, "the tile")
    require_min_rank(op, vec.shape, 2, "the vector")
    require_dtype_in(op, src.dtype, ROW_EXPAND_ADD_DTYPES, "the tile")
    if vec.dtype is not src.dtype:
        raise TypeError(f"{op}: the vector is {vec.dtype.name} but the tile is {src.dtype.name}; both must have "
                        f"one dtype")
    if len(args) > 2:
        require_tile(op, args[2], "tmp")
    carrier = 32 // max(1, src.dtype.get_bit() // 8)
    cols = static_int(vec.shape[-1])
    if not _rows_match(vec.valid_shape[-2], src.valid_shape[-2]) or cols not in (1, carrier):
        raise TypeError(f"{op}: the vector must be [M, 1] (or a row-major [M, {carrier}] carrier) with the tile's "
                        f"valid rows for a {shape_text(src.shape)} tile (valid {shape_text(src.valid_shape)}), "
                        f"got {shape_text(vec.shape)} (valid {shape_text(vec.valid_shape)})")
    require_row_major(op, src)
    return result_tile(src.shape, src.dtype, src)


def tensor_expand_deducer(op: str, axis: int, same_dtypes: tuple[DataType, ...] | None = None) -> Callable[..., Type]:
    """axis 0: v [..., M, 1] per row; axis 1: v [..., 1, N] per column (of the last two dims)."""

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src, vec = require_tensor(op, args[0], "the tensor"), require_tensor(op, args[1], "the vector")
        require_min_rank(op, src.shape, 2, "the tensor")
        require_min_rank(op, vec.shape, 2, "the vector")
        if axis == 0:
            ok = static_int(vec.shape[-1]) == 1 and not static_mismatch(vec.shape[-2], src.shape[-2])
        else:
            ok = static_int(vec.shape[-2]) == 1 and not static_mismatch(vec.shape[-1], src.shape[-1])
        if not ok:
            want = "[M, 1]" if axis == 0 else "[1, N]"
            raise TypeError(f"{op}: the vector must be {want} for a {shape_text(src.shape)} tensor, got "
                            f"{shape_text(vec.shape)}")
        if same_dtypes is not None:
            require_dtype_in(op, src.dtype, same_dtypes, "the tensor")
            if vec.dtype is not src.dtype:
                raise TypeError(f"{op}: the vector is {vec.dtype.name} but the tensor is {src.dtype.name}; both "
                                f"must have one dtype")
            return TensorType(src.shape, src.dtype)
        return TensorType(src.shape, promote_dtypes(src.dtype, vec.dtype, op))

    return deduce


# -- ops ----------------------------------------------------------------------------------------------------
def _tile_op(name: str, deduce: Callable[..., Type], args: tuple[ArgSpec, ...], doc: str, **extra: Any) -> OpDef:
    """Every tile operand (the tile, its vector, a tmp) is read from Vec."""
    return vec_op(name, deduce, args, doc, vec=tuple(range(len(args))), **extra)


family.op(_tile_op("row_expand_add", deduce_tile_row_expand_add,
                   (ArgSpec("tile"), ArgSpec("row_vec"), ArgSpec("tmp", optional=True)),
                   "tile[i, j] + row_vec[i, 0] (one dtype); row_vec a [M, 1] column, or a packed row-major "
                   "32-byte carrier [M, K] (K = 32 / element bytes) whose block repeats: tile[i, j] + row_vec[i, j "
                   "mod K].", lane_invariant={2: LaneCategory.SCRATCH}), dsl="tile.row_expand_add")
for _n in names.EXPAND:
    if _n != "add":
        family.op(_tile_op(f"row_expand_{_n}", tile_expand_deducer(f"tile.row_expand_{_n}", 0),
                           (ArgSpec("tile"), ArgSpec("row_vec")), f"tile[i, j] {_VERB[_n]} row_vec[i, 0] (promoted "
                                                                  f"dtype)."), dsl=f"tile.row_expand_{_n}")
    family.op(_tile_op(f"col_expand_{_n}", tile_expand_deducer(f"tile.col_expand_{_n}", 1),
                       (ArgSpec("target"), ArgSpec("col_tile")),
                       f"target[i, j] {_VERB[_n]} col_tile[0, j] (promoted dtype)."), dsl=f"tile.col_expand_{_n}")
for _d in ("row", "col"):
    for _n in EXPAND_NEW:
        _name = expand_name(_d, _n)
        _x, _v = ("tile[i, j]", "row_vec[i, 0]") if _d == "row" else ("target[i, j]", "col_tile[0, j]")
        _args = (ArgSpec("target" if _d == "col" or not _n else "tile"),
                 ArgSpec("row_vec" if _d == "row" else "col_tile"))
        _what = "broadcast to the target's shape" if not _n else "promoted dtype"
        family.op(_tile_op(_name, tile_expand_deducer(f"tile.{_name}", 0 if _d == "row" else 1), _args,
                           f"{_EXPAND_DOC[_n].format(x=_x, v=_v)} ({_what})."), dsl=f"tile.{_name}")

family.op(OpDef("tensor.row_expand_add", tensor_expand_deducer("tensor.row_expand_add", 0, ROW_EXPAND_ADD_DTYPES),
                args=(ArgSpec("tensor"), ArgSpec("row_vec")),
                doc="tensor[..., i, j] plus row_vec[..., i, 0] (one dtype)."), dsl="tensor.row_expand_add")
for _n in names.EXPAND:
    if _n != "add":
        family.op(OpDef(f"tensor.row_expand_{_n}", tensor_expand_deducer(f"tensor.row_expand_{_n}", 0),
                        args=(ArgSpec("tensor"), ArgSpec("row_vec")),
                        doc=f"tensor[..., i, j] {_VERB[_n]} row_vec[..., i, 0] (promoted dtype)."),
                  dsl=f"tensor.row_expand_{_n}")
    family.op(OpDef(f"tensor.col_expand_{_n}", tensor_expand_deducer(f"tensor.col_expand_{_n}", 1),
                    args=(ArgSpec("tensor"), ArgSpec("col_vec")),
                    doc=f"tensor[..., i, j] {_VERB[_n]} col_vec[..., 0, j] (promoted dtype)."),
              dsl=f"tensor.col_expand_{_n}")
for _d in ("row", "col"):
    for _n in EXPAND_NEW:
        _name = expand_name(_d, _n)
        _x, _v = ("tensor[..., i, j]", "row_vec[..., i, 0]") if _d == "row" else ("tensor[..., i, j]",
                                                                                    "col_vec[..., 0, j]")
        _first = "target" if _d == "row" and not _n else "tensor"  # PyPTO's tensor.row_expand(target, ...)
        family.op(OpDef(f"tensor.{_name}", tensor_expand_deducer(f"tensor.{_name}", 0 if _d == "row" else 1),
                        args=(ArgSpec(_first), ArgSpec("row_vec" if _d == "row" else "col_vec")),
                        doc=f"{_EXPAND_DOC[_n].format(x=_x, v=_v)} (promoted dtype"
                            f"{'; the target gives the shape' if not _n else ''})."), dsl=f"tensor.{_name}")


# -- tile forms ----------------------------------------------------------------------------------------------
for _name in ALL:
    family.implement("tile_form", f"tensor.{_name}", same(f"tile.{_name}"))


# -- DSL ----------------------------------------------------------------------------------------------------
def unified_expand(name: str) -> Builder:
    """`pl.row_expand_max(lhs, rhs)`: the tile or the tensor op, by the first operand."""
    tile_fn, tensor_fn = registered(f"tile.{name}"), registered(f"tensor.{name}")

    def build(lhs: Any, rhs: Any, span: Span | None = None) -> Expr:
        reject_tensor_tile_mix(lhs, rhs)
        kind = operand_kind(lhs)
        if kind == "Tile":
            return tile_fn(lhs, rhs, span=span)
        if kind == "Tensor":
            return tensor_fn(lhs, rhs, span=span)
        raise TypeError(f"expects a tensor or a tile as its first operand, got {kind}")

    build.__name__ = name
    return dsl_entry(build)


_TILE_ROW_EXPAND_ADD, _TENSOR_ROW_EXPAND_ADD = registered("tile.row_expand_add"), registered("tensor.row_expand_add")


@dsl_named("row_expand_add")
def unified_row_expand_add(lhs: Any, rhs: Any, tmp: Any = None, span: Span | None = None) -> Expr:
    """`pl.row_expand_add(lhs, rhs, tmp=None)`: a tile takes PyPTO's optional tmp, a tensor none."""
    reject_tensor_tile_mix(lhs, rhs, tmp)
    kind = operand_kind(lhs)
    if kind == "Tile":
        return _TILE_ROW_EXPAND_ADD(lhs, rhs, tmp, span=span)
    if kind == "Tensor":
        if tmp is not None:
            raise TypeError("a tensor row_expand_add takes no tmp")
        return _TENSOR_ROW_EXPAND_ADD(lhs, rhs, span=span)
    raise TypeError(f"expects a tensor or a tile as its first operand, got {kind}")


family.dsl_function("row_expand_add", unified_row_expand_add)
for _d in ("row", "col"):
    for _n in EXPAND_NEW:  # a fixed (lhs, rhs) signature
        family.dsl_function(expand_name(_d, _n), unified_expand(expand_name(_d, _n)))
    for _n in names.EXPAND:
        if expand_name(_d, _n) != "row_expand_add":
            _name = expand_name(_d, _n)
            family.dsl_function(_name, dispatch_between(_name, registered(f"tile.{_name}"),
                                                        registered(f"tensor.{_name}")))


# The backend's col_expand instructions read their operands in place: a window operand must be contiguous with
# a constant origin (CanonicalizeTileSlice, docs/plugins.md, op interfaces).
for _n in ("mul", "add", "div", "sub", "max", "min", "expdif"):
    family.implement("contiguous_window_operands", f"tile.col_expand_{_n}", True)


# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits(*(f"tile.{side}_expand{kind}" for side in ("row", "col")
                    for kind in ("", "_add", "_div", "_expdif", "_max", "_min", "_mul", "_sub")),
                  output_must_not_alias=(1,))
family.set_traits("tile.row_expand_add", output_must_not_alias=(1, 2))
