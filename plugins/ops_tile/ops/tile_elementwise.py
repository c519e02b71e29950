"""Element-wise tile ops: binary (broadcasting), tile-scalar, unary, cast and the selects.

IR layouts (docs/reference/ops.md): `tile.add(lhs, rhs)`, `tile.adds(lhs, scalar)`, `tile.exp(x)`,
`tile.recip(x)` / `tile.log(x)` / `tile.div(a, b)` (+ kwarg `high_precision`), `tile.rsqrt(x[, tmp])`,
`tile.cast(x)` (kwargs `target_type`, `mode` int 0..6), `tile.cmp(lhs, rhs)` / `tile.cmps(lhs, scalar)`
(kwarg `cmp_type` 0..5 = eq, ne, lt, gt, ge, le), `tile.sel(mask, lhs, rhs, tmp)`,
`tile.sels(mask, src, tmp, scalar)`. The tile-scalar max / min are PyPTO's `tile.maximums` /
`tile.minimums` (the DSL keeps `pl.tile.maxs` / `mins` as aliases).
`and`, `or` and `not` print as `pl.tile.and_` / `or_` / `not_` (docs/dsl.md, the printed form).
Every tile operand is declared Vec (`input_memory`, OPS.md `mem:` lines) and the result is Vec
(VECTOR affinity through the Vec output rule). The deducers accept an operand in any space:
InferTileMemorySpace moves misplaced operands and TileMemoryInferred reports what it could not.

Lanes (docs/passes/lower_auto_vector_split.md, when a halved call is sound): `tile.rsqrt`'s tmp must have exactly the input's shape, so the deducer
decides it and it carries no declaration. The `tmp` of sel / sels is Scratch. The masks of
sel / sels stay undeclared on purpose: the deducer cannot see them (sel only checks that the mask
is a tile; sels that it covers src's valid rows), and an unclassified operand is lane data.

Dtypes (OPS.md `result:` lines): a tile-scalar op keeps the tile's dtype (docs/plugins.md, OpDef fields: FP16 tile +
`1.0` is FP16); `tile.div` takes two tiles of one dtype in INT16 / INT32 / FP16 / FP32 with identical
shapes and valid shapes (no broadcast); `tile.cast` must change the dtype.

Masks (OPS.md tile.cmp / tile.sel): cmp / cmps yield a PACKED predicate, a UINT8 tile whose last dim
is roundup(ceil(N / 8), 32) bytes (bit i of a row, LSB first, is element i, as pto-isa); sel / sels read
the bytes of any mask tile as those bits, whatever its carrier dtype.

Choices of pypto's own, where PyPTO's documents are silent: bitwise / shift ops need integer (or BOOL) elements; a result keeps the
whole view (layout and valid region) of the first operand whose shape is the result's (docs/passes/lower_auto_vector_split.md, example
prints `tile.add` keeping col_major).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir import scalar_ops
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CastMode, MemorySpace
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ir.types import TensorType, TileType, TileView, Type, dims_equal
from pypto_core.ops.build import (
    broadcast_shapes,
    promote_dtypes,
    require_dtype_in,
    require_scalar,
    require_tile,
    same_dim,
    shape_text,
    static_int,
)
from pypto_core.ops.opdef import ArgSpec, KwargSpec, LaneCategory, OpDef, OutputMemory
from pypto_plugins.ops_tile.ops.views import same_view

_VEC = OutputMemory(fixed=MemorySpace.Vec)
BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "rem", "pow", "and", "or", "xor", "shl", "shr")
SCALAR = ("adds", "subs", "muls", "divs", "maximums", "minimums", "rems", "ands", "ors", "xors", "shls", "shrs")
UNARY = ("exp", "neg", "abs", "sqrt", "relu", "floor", "ceil", "sin", "cos", "tanh", "sigmoid", "square",
         "not")
# OPS.md gives these a scratch tile `tmp` (optional here, so pypto's two-operand calls stay valid).
WITH_TMP = ("rem", "xor")
# Bitwise ops need integer (or bool) elements.
INTEGER_ONLY = ("and", "or", "xor", "shl", "shr", "not")
CMP_MODES = ("eq", "ne", "lt", "gt", "ge", "le")  # pto-isa CmpMode order
FLOAT_16_32 = (DataType.FP16, DataType.FP32)  # OPS.md tile.log; high_precision of div / recip
# OPS.md tile.div / tensor.div: the dtypes a division accepts.
DIV_DTYPES = (DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32)


def is_bitwise(op: str) -> bool:
    """`tile.and`, `tensor.shrs`, ...: ops whose operands must hold integers."""
    name = op.rpartition(".")[2]
    return name in INTEGER_ONLY or (name.endswith("s") and name[:-1] in INTEGER_ONLY)


def integer_elements(op: str, t: TileType | TensorType, what: str) -> None:
    if is_bitwise(op) and not (t.dtype.is_int() or t.dtype.is_bool()):
        raise TypeError(f"{op}: {what} must hold integers, got {t.dtype.name}")


def vec_operands(*indices: int) -> dict[int, tuple[MemorySpace, ...]]:
    """`input_memory` of a vector op: these operands are read from Vec."""
    return {i: (MemorySpace.Vec,) for i in indices}


def result_tile(shape: Sequence[Expr], dtype: DataType, *operands: TileType) -> TileType:
    """The result keeps the view of the first operand that has the result's shape."""
    for t in operands:
        if dims_equal(t.shape, shape):
            return TileType(shape, dtype, None, same_view(t, shape), None)
    return TileType(shape, dtype, None, None, None)


def binary_deducer(op: str):
    integers_only = is_bitwise(op)  # decided once per op rather than on every call

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs, rhs = require_tile(op, args[0], "lhs"), require_tile(op, args[1], "rhs")
        if integers_only:
            integer_elements(op, lhs, "lhs")
            integer_elements(op, rhs, "rhs")
        shape = broadcast_shapes(lhs.shape, rhs.shape, op)
        if len(args) > 2:
            require_tile(op, args[2], "tmp")
        return result_tile(shape, promote_dtypes(lhs.dtype, rhs.dtype, op), lhs, rhs)

    return deduce


def scalar_deducer(op: str):
    integers_only = is_bitwise(op)

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = require_tile(op, args[0], "lhs")
        if integers_only:
            integer_elements(op, lhs, "lhs")
        require_scalar(op, args[1], "rhs")
        if len(args) > 2:
            require_tile(op, args[2], "tmp")
        return result_tile(lhs.shape, lhs.dtype, lhs)

    return deduce


def unary_deducer(op: str):
    integers_only = is_bitwise(op)

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        src = require_tile(op, args[0], "the operand")
        if integers_only:
            integer_elements(op, src, "the operand")
        return result_tile(src.shape, src.dtype, src)

    return deduce


def _ceil_div(n: Expr, k: int) -> Expr:
    v = static_int(n)
    if v is not None:
        return ConstInt(-(-v // k), n.type.dtype, n.span)
    return scalar_ops.floordiv(scalar_ops.add(n, k - 1), k)


def packed_width(n: Expr) -> Expr:
    """OPS.md tile.cmp: a packed row of N predicate bits takes roundup(ceil(N / 8), 32) bytes."""
    nbytes = _ceil_div(n, 8)
    v = static_int(nbytes)
    if v is not None:
        return ConstInt(-(-v // 32) * 32, nbytes.type.dtype, nbytes.span)
    return scalar_ops.mul(_ceil_div(nbytes, 32), 32)


def packed_mask(shape: Sequence[Expr], *operands: TileType) -> TileType:
    """The packed predicate of a compare of `shape`: UINT8, last dim in bytes; valid and layout from the
    first operand of that shape (OPS.md: valid = lhs valid with last dim ceil(v / 8); layout <- lhs)."""
    mask_shape = [*shape[:-1], packed_width(shape[-1])]
    src = next((t for t in operands if dims_equal(t.shape, shape)), None)
    if src is None:
        return TileType(mask_shape, DataType.UINT8)
    valid = [*src.valid_shape[:-1], _ceil_div(src.valid_shape[-1], 8)]
    base = src.tile_view or TileView()
    view = base.with_fields(valid_shape=tuple(valid), stride=(), start_offset=None)
    return TileType(mask_shape, DataType.UINT8, None, view, None)


def _require_rank(op: str, t: TileType, what: str) -> None:
    if not t.shape:
        raise TypeError(f"{op}: {what} must have at least one dimension to pack a predicate row, got a 0-D tile")


def deduce_cmp(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    lhs, rhs = require_tile("tile.cmp", args[0], "lhs"), require_tile("tile.cmp", args[1], "rhs")
    shape = broadcast_shapes(lhs.shape, rhs.shape, "tile.cmp")
    _require_rank("tile.cmp", lhs, "lhs")
    promote_dtypes(lhs.dtype, rhs.dtype, "tile.cmp")
    return packed_mask(shape, lhs, rhs)


def deduce_cmps(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    lhs = require_tile("tile.cmps", args[0], "lhs")
    require_scalar("tile.cmps", args[1], "rhs")
    _require_rank("tile.cmps", lhs, "lhs")
    return packed_mask(lhs.shape, lhs)


def deduce_log(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """OPS.md tile.log: input FP16 / FP32."""
    src = require_tile("tile.log", args[0], "the operand")
    require_dtype_in("tile.log", src.dtype, FLOAT_16_32, "the operand")
    return result_tile(src.shape, src.dtype, src)


def deduce_recip(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """OPS.md tile.recip: high_precision needs FP16 / FP32."""
    src = require_tile("tile.recip", args[0], "the operand")
    if kwargs.get("high_precision"):
        require_high_precision("tile.recip", src.dtype)
    return result_tile(src.shape, src.dtype, src)


def require_high_precision(op: str, dtype: DataType) -> None:
    if dtype not in FLOAT_16_32:
        raise TypeError(f"{op}: high_precision=True needs FP16 or FP32 operands, got {dtype.name}")


def deduce_rsqrt(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.rsqrt", args[0], "the operand")
    if len(args) > 1:
        tmp = require_tile("tile.rsqrt", args[1], "tmp")
        if not dims_equal(tmp.shape, src.shape) or tmp.dtype is not src.dtype:
            raise TypeError(f"tile.rsqrt: tmp must have the operand's shape and dtype "
                            f"({shape_text(src.shape)} {src.dtype.name}), got {shape_text(tmp.shape)} "
                            f"{tmp.dtype.name}")
    return result_tile(src.shape, src.dtype, src)


def require_dtype_change(op: str, src: DataType, target: DataType) -> None:
    """OPS.md tile.cast / tensor.cast: "target_type != input dtype"."""
    if target is src:
        raise TypeError(f"{op}: the operand is {src.name} already; target_type must be a dtype other than "
                        f"{src.name}")


def deduce_cast(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    src = require_tile("tile.cast", args[0], "the operand")
    require_dtype_change("tile.cast", src.dtype, kwargs["target_type"])
    return result_tile(src.shape, kwargs["target_type"], src)


def _same_dims(a: Sequence[Expr], b: Sequence[Expr]) -> bool:
    return len(a) == len(b) and all(same_dim(x, y) for x, y in zip(a, b))


def deduce_div(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """OPS.md tile.div: same dtype in DIV_DTYPES, identical physical and valid shapes (no broadcast)."""
    op = "tile.div"
    lhs, rhs = require_tile(op, args[0], "lhs"), require_tile(op, args[1], "rhs")
    require_dtype_in(op, lhs.dtype, DIV_DTYPES, "lhs")
    if rhs.dtype is not lhs.dtype:
        raise TypeError(f"{op}: rhs is {rhs.dtype.name} but lhs is {lhs.dtype.name}; both operands must have "
                        f"one dtype of {', '.join(d.name for d in DIV_DTYPES)}")
    if not _same_dims(lhs.shape, rhs.shape):
        raise TypeError(f"{op}: shapes {shape_text(lhs.shape)} and {shape_text(rhs.shape)} differ; tile.div does "
                        f"not broadcast")
    if not _same_dims(lhs.valid_shape, rhs.valid_shape):
        raise TypeError(f"{op}: valid shapes {shape_text(lhs.valid_shape)} and {shape_text(rhs.valid_shape)} "
                        f"differ; both operands must have the same valid region")
    if kwargs.get("high_precision"):  # OPS.md: "high_precision only for float"
        require_high_precision(op, lhs.dtype)
    return result_tile(lhs.shape, lhs.dtype, lhs)


def deduce_sel(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    require_tile("tile.sel", args[0], "the mask")
    lhs, rhs = require_tile("tile.sel", args[1], "lhs"), require_tile("tile.sel", args[2], "rhs")
    require_tile("tile.sel", args[3], "tmp")
    shape = broadcast_shapes(lhs.shape, rhs.shape, "tile.sel")
    return result_tile(shape, promote_dtypes(lhs.dtype, rhs.dtype, "tile.sel"), lhs, rhs)


MASK_CARRIERS = (DataType.INT8, DataType.UINT8, DataType.INT16, DataType.UINT16, DataType.INT32, DataType.UINT32)
SELS_DTYPES = (*MASK_CARRIERS, DataType.FP16, DataType.FP32)


def deduce_sels(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """OPS.md tile.sels: a 2-D mask of an 8/16/32-bit int carrier whose rows hold >= ceil(valid cols / 8)
    bytes and cover src's valid rows (its bytes are read as packed bits, whatever the carrier dtype)."""
    op = "tile.sels"
    mask = require_tile(op, args[0], "the mask")
    src = require_tile(op, args[1], "src")
    require_tile(op, args[2], "tmp")
    require_scalar(op, args[3], "the scalar")
    if len(mask.shape) != 2 or len(src.shape) != 2:
        raise TypeError(f"{op}: the mask and src must be 2-D tiles, got {shape_text(mask.shape)} and "
                        f"{shape_text(src.shape)}")
    require_dtype_in(op, mask.dtype, MASK_CARRIERS, "the mask")
    require_dtype_in(op, src.dtype, SELS_DTYPES, "src")
    rows, need = static_int(mask.shape[0]), static_int(src.valid_shape[0])
    if rows is not None and need is not None and rows < need:
        raise TypeError(f"{op}: the mask has {rows} rows but src has {need} valid rows")
    cols, valid_cols = static_int(mask.shape[1]), static_int(src.valid_shape[1])
    if cols is not None and valid_cols is not None and cols * mask.dtype.get_byte() < -(-valid_cols // 8):
        raise TypeError(f"{op}: the mask rows hold {cols * mask.dtype.get_byte()} bytes but src has {valid_cols} "
                        f"valid columns, which need {-(-valid_cols // 8)} bytes of packed bits")
    return result_tile(src.shape, src.dtype, src)


def _op(name: str, deduce: Any, args: tuple[ArgSpec, ...], doc: str, vec: tuple[int, ...] = (0,),
        **extra: Any) -> OpDef:
    """A Vec -> Vec op; `vec` lists its tile operands (the others are scalars)."""
    return OpDef(f"tile.{name}", deduce, args=args, output_memory=_VEC, input_memory=vec_operands(*vec), doc=doc,
                 **extra)


_CAST_MODES = tuple(int(m) for m in CastMode)
CMP_TYPE = KwargSpec("cmp_type", (int,), 0, choices=tuple(range(len(CMP_MODES))), recorded=True)

# What the ops with a scratch tile compute beyond their name (docs/reference/ops.md).
_WITH_TMP_NOTES = {"rem": "; the remainder takes the divisor's sign, as numpy / torch remainder (tile.fmod takes the "
                          "dividend's); x rem 0 is 0 for integers"}

OPDEFS = [
    *[_op(n, binary_deducer(f"tile.{n}"), (ArgSpec("lhs"), ArgSpec("rhs")),
          f"Element-wise {n} of two tiles (numpy broadcasting).", vec=(0, 1)) for n in BINARY
      if n not in ("div", *WITH_TMP)],
    *[_op(n, binary_deducer(f"tile.{n}"), (ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("tmp", optional=True)),
          f"Element-wise {n} of two tiles (numpy broadcasting{_WITH_TMP_NOTES.get(n, '')}); tmp is the hardware "
          f"scratch PyPTO passes.", vec=(0, 1, 2),
          lane_invariant={2: LaneCategory.SCRATCH}) for n in BINARY if n in WITH_TMP],
    _op("div", deduce_div, (ArgSpec("lhs"), ArgSpec("rhs")),
        "Element-wise lhs / rhs of two tiles of one shape and dtype (integers truncate; x / 0 is 0).", vec=(0, 1),
        kwargs=(KwargSpec("high_precision", (bool,), False),)),
    _op("log", deduce_log, (ArgSpec("tile"),), "Element-wise natural logarithm of an FP16 / FP32 tile.",
        kwargs=(KwargSpec("high_precision", (bool,), False),)),
    *[_op(n, scalar_deducer(f"tile.{n}"), (ArgSpec("lhs"), ArgSpec("rhs")),
          f"Element-wise {n[:-1]} of a tile and a scalar (the scalar narrowed to the tile's dtype first).")
      for n in SCALAR if n[:-1] not in WITH_TMP],
    *[_op(n, scalar_deducer(f"tile.{n}"), (ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("tmp", optional=True)),
          f"Element-wise {n[:-1]} of a tile and a scalar{_WITH_TMP_NOTES.get(n[:-1], '')}; tmp is the hardware "
          f"scratch PyPTO passes.", vec=(0, 2),
          lane_invariant={2: LaneCategory.SCRATCH}) for n in SCALAR if n[:-1] in WITH_TMP],
    *[_op(n, unary_deducer(f"tile.{n}"), (ArgSpec("tile"),), f"Element-wise {n}.") for n in UNARY],
    _op("recip", deduce_recip, (ArgSpec("tile"),), "Element-wise 1 / x.",
        kwargs=(KwargSpec("high_precision", (bool,), False),)),
    _op("rsqrt", deduce_rsqrt, (ArgSpec("tile"), ArgSpec("tmp", optional=True)), "Element-wise 1 / sqrt(x).",
        vec=(0, 1)),
    _op("cast", deduce_cast, (ArgSpec("tile"),), "Element-wise dtype conversion with a rounding mode.",
        kwargs=(KwargSpec("target_type", (DataType,), required=True),
                KwargSpec("mode", (int,), int(CastMode.round), choices=_CAST_MODES, recorded=True))),
    _op("cmp", deduce_cmp, (ArgSpec("lhs"), ArgSpec("rhs")),
        "Element-wise comparison (cmp_type 0..5 = eq, ne, lt, gt, ge, le) -> a packed UINT8 predicate, bit i of a "
        "row (LSB first) = element i.", vec=(0, 1), kwargs=(CMP_TYPE,)),
    _op("cmps", deduce_cmps, (ArgSpec("lhs"), ArgSpec("rhs")),
        "Comparison with a scalar (cmp_type 0..5 = eq, ne, lt, gt, ge, le) -> a packed UINT8 predicate.",
        kwargs=(CMP_TYPE,)),
    _op("sel", deduce_sel, (ArgSpec("mask"), ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("tmp")),
        "Pick lhs where the packed mask bit is set, else rhs (the mask's bytes are read as bits, LSB first).",
        vec=(0, 1, 2, 3), lane_invariant={3: LaneCategory.SCRATCH}),
    _op("sels", deduce_sels, (ArgSpec("mask"), ArgSpec("src"), ArgSpec("tmp"), ArgSpec("scalar")),
        "Pick src where the packed mask bit is set, else the scalar (any 8/16/32-bit mask carrier).", vec=(0, 1, 2),
        lane_invariant={2: LaneCategory.SCRATCH}),
]
