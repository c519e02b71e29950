"""Element-wise tile ops: binary (broadcasting), tile-scalar, unary, cast and the selects.

IR layouts (API.md 3.3): `tile.add(lhs, rhs)`, `tile.adds(lhs, scalar)`, `tile.exp(x)`,
`tile.recip(x)` (+ kwarg `high_precision`), `tile.rsqrt(x[, tmp])`, `tile.cast(x)` (kwargs
`target_type`, `mode` int 0..6), `tile.cmp(lhs, rhs)` / `tile.cmps(lhs, scalar)` (kwarg `cmp_mode`
0..5 = eq, ne, lt, gt, ge, le), `tile.sel(mask, lhs, rhs, tmp)`, `tile.sels(mask, src, tmp, scalar)`.
`and`, `or` and `not` print as `pl.tile.and_` / `or_` / `not_` (API.md 8.6).
Every tile operand is declared Vec (`input_memory`, OPS.md `mem:` lines) and the result is Vec
(VECTOR affinity through the Vec output rule). The deducers accept an operand in any space:
InferTileMemorySpace moves misplaced operands and TileMemoryInferred reports what it could not.

Lanes (seed 003, "条件 2"): `tile.rsqrt`'s tmp must have exactly the input's shape, so the deducer
decides it and it carries no declaration. The `tmp` of sel / sels is Scratch. The masks of
sel / sels stay undeclared on purpose: the deducer cannot see them (sel only checks that the mask
is a tile; sels that it covers src's valid rows), and an unclassified operand is lane data.

Dtypes (OPS.md `result:` lines): a tile-scalar op keeps the tile's dtype (API.md 3.1: FP16 tile +
`1.0` is FP16); `tile.div` takes two tiles of one dtype in INT16 / INT32 / FP16 / FP32 with identical
shapes and valid shapes (no broadcast); `tile.cast` must change the dtype.

Choices where API.md is silent: bitwise / shift ops need integer (or BOOL) elements; cmp yields a
BOOL tile of the broadcast shape; a result keeps the whole view (layout and valid region) of the
first operand whose shape is the result's (Appendix A.4 prints `tile.add` keeping col_major).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CastMode, MemorySpace
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TensorType, TileType, Type, dims_equal
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
SCALAR = ("adds", "subs", "muls", "divs", "maxs", "mins", "rems", "ands", "ors", "xors", "shls", "shrs")
UNARY = ("exp", "neg", "abs", "sqrt", "log", "relu", "floor", "ceil", "sin", "cos", "tanh", "sigmoid", "square",
         "not")
# Bitwise ops need integer (or bool) elements.
INTEGER_ONLY = ("and", "or", "xor", "shl", "shr", "not")
CMP_MODES = ("eq", "ne", "lt", "gt", "ge", "le")  # pto-isa CmpMode order
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
        return result_tile(shape, promote_dtypes(lhs.dtype, rhs.dtype, op), lhs, rhs)

    return deduce


def scalar_deducer(op: str):
    integers_only = is_bitwise(op)

    def deduce(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
        lhs = require_tile(op, args[0], "lhs")
        if integers_only:
            integer_elements(op, lhs, "lhs")
        require_scalar(op, args[1], "rhs")
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


def deduce_cmp(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    lhs, rhs = require_tile("tile.cmp", args[0], "lhs"), require_tile("tile.cmp", args[1], "rhs")
    shape = broadcast_shapes(lhs.shape, rhs.shape, "tile.cmp")
    promote_dtypes(lhs.dtype, rhs.dtype, "tile.cmp")
    return result_tile(shape, DataType.BOOL, lhs, rhs)


def deduce_cmps(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    lhs = require_tile("tile.cmps", args[0], "lhs")
    require_scalar("tile.cmps", args[1], "rhs")
    return result_tile(lhs.shape, DataType.BOOL, lhs)


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
    return result_tile(lhs.shape, lhs.dtype, lhs)


def deduce_sel(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    require_tile("tile.sel", args[0], "the mask")
    lhs, rhs = require_tile("tile.sel", args[1], "lhs"), require_tile("tile.sel", args[2], "rhs")
    require_tile("tile.sel", args[3], "tmp")
    shape = broadcast_shapes(lhs.shape, rhs.shape, "tile.sel")
    return result_tile(shape, promote_dtypes(lhs.dtype, rhs.dtype, "tile.sel"), lhs, rhs)


def deduce_sels(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    mask = require_tile("tile.sels", args[0], "the mask")
    src = require_tile("tile.sels", args[1], "src")
    require_tile("tile.sels", args[2], "tmp")
    require_scalar("tile.sels", args[3], "the scalar")
    rows, need = static_int(mask.shape[0]), static_int(src.valid_shape[0])
    if rows is not None and need is not None and rows < need:
        raise TypeError(f"tile.sels: the mask has {rows} rows but src has {need} valid rows")
    return result_tile(src.shape, src.dtype, src)


def _op(name: str, deduce: Any, args: tuple[ArgSpec, ...], doc: str, vec: tuple[int, ...] = (0,),
        **extra: Any) -> OpDef:
    """A Vec -> Vec op; `vec` lists its tile operands (the others are scalars)."""
    return OpDef(f"tile.{name}", deduce, args=args, output_memory=_VEC, input_memory=vec_operands(*vec), doc=doc,
                 **extra)


_CAST_MODES = tuple(int(m) for m in CastMode)

OPDEFS = [
    *[_op(n, deduce_div if n == "div" else binary_deducer(f"tile.{n}"), (ArgSpec("lhs"), ArgSpec("rhs")),
          f"Element-wise {n} of two tiles (numpy broadcasting).", vec=(0, 1)) for n in BINARY],
    *[_op(n, scalar_deducer(f"tile.{n}"), (ArgSpec("lhs"), ArgSpec("rhs")),
          f"Element-wise {n[:-1]} of a tile and a scalar.") for n in SCALAR],
    *[_op(n, unary_deducer(f"tile.{n}"), (ArgSpec("tile"),), f"Element-wise {n}.") for n in UNARY],
    _op("recip", unary_deducer("tile.recip"), (ArgSpec("tile"),), "Element-wise 1 / x.",
        kwargs=(KwargSpec("high_precision", (bool,), False),)),
    _op("rsqrt", deduce_rsqrt, (ArgSpec("tile"), ArgSpec("tmp", optional=True)), "Element-wise 1 / sqrt(x).",
        vec=(0, 1)),
    _op("cast", deduce_cast, (ArgSpec("tile"),), "Element-wise dtype conversion with a rounding mode.",
        kwargs=(KwargSpec("target_type", (DataType,), required=True),
                KwargSpec("mode", (int,), int(CastMode.round), choices=_CAST_MODES, recorded=True))),
    _op("cmp", deduce_cmp, (ArgSpec("lhs"), ArgSpec("rhs")), "Element-wise comparison -> a BOOL mask.",
        vec=(0, 1), kwargs=(KwargSpec("cmp_mode", (int,), 0, choices=tuple(range(len(CMP_MODES))), recorded=True),)),
    _op("cmps", deduce_cmps, (ArgSpec("lhs"), ArgSpec("rhs")), "Comparison with a scalar -> a BOOL mask.",
        kwargs=(KwargSpec("cmp_mode", (int,), 0, choices=tuple(range(len(CMP_MODES))), recorded=True),)),
    _op("sel", deduce_sel, (ArgSpec("mask"), ArgSpec("lhs"), ArgSpec("rhs"), ArgSpec("tmp")),
        "Pick lhs where the mask is set, else rhs.", vec=(0, 1, 2, 3), lane_invariant={3: LaneCategory.SCRATCH}),
    _op("sels", deduce_sels, (ArgSpec("mask"), ArgSpec("src"), ArgSpec("tmp"), ArgSpec("scalar")),
        "Pick src where the mask is set, else the scalar.", vec=(0, 1, 2), lane_invariant={2: LaneCategory.SCRATCH}),
]
