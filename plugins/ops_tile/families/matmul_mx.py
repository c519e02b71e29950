"""MX (microscaling) cube matmul: tile.matmul_mx, matmul_mx_acc, matmul_mx_bias, tget_scale_addr.

`tile.matmul_mx(lhs, lhs_scale, rhs, rhs_scale)`: lhs [M, K] and rhs [K, N] are FP8E4M3FN in Left / Right;
lhs_scale [M, ceil(K/32)] (LeftScale) and rhs_scale [ceil(K/32), N] (RightScale) are FP8E8M0 power-of-two
scales, one per 32 consecutive elements along K. The product is (lhs * scale_a) @ (rhs * scale_b) with
scale_a[m, k] = lhs_scale[m, k // 32] and scale_b[k, n] = rhs_scale[k // 32, n], accumulated in FP32 into an
Acc [M, N] tile (valid [lhs valid M, rhs valid N]). Static shapes must have M % 16 == 0, N % 32 == 0 and
K % 64 == 0 (the cube's MX fractal). `_acc` adds into an FP32 acc of the result's shape and valid region
(arg 0 ReadWrite); `_bias` adds an FP32 [1, N] Bias row to every row. A scale's valid region must cover the
scales the valid data needs (ceil(valid K / 32) blocks of the valid rows / columns).

`tile.tget_scale_addr(dst_scale, src)`: binds dst_scale to the scale region of src (Left -> LeftScale,
Right -> RightScale, checked when both spaces are known); the result is dst_scale's type, written in place
(arg 0 Write). The reference machine keeps no hidden scale region beside a tile, so the values are
dst_scale's own (an address binding moves no data).

The scale tiles hold the scales logically ([m, g] / [g, n]): a scale tensor declared `pl.MX_A_ZZ` /
`pl.MX_B_NN` keeps its bytes in 16 x 2 blocks, and tile.load reads through that order (common/mx_layout.py).

Semantics: FP8E4M3FN values times a power of two are exact in FP32; the products are summed in FP32 over
the valid K only (poison past it never reaches the product).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, ConstInt, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import TileType, Type, dims_equal
from pypto_core.ops.build import require_rank, require_tile, same_dim, shape_text, static_int
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, Effect, OpDef, OpTraits, OutputMemory
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.common.dsl import registered
from pypto_plugins.ops_tile.common.views import product_view

family = OpFamily("matmul_mx", semantics="pypto_plugins.ops_tile.semantics.matmul_mx")

LEFT, RIGHT, ACC, BIAS = MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias
LEFT_SCALE, RIGHT_SCALE = MemorySpace.LeftScale, MemorySpace.RightScale
MX_BLOCK = 32  # elements of K sharing one FP8E8M0 scale
DATA, SCALE = DataType.FP8E4M3FN, DataType.FP8E8M0
_ALIGN = (("M", 16), ("N", 32), ("K", 64))


# -- type rules ---------------------------------------------------------------------------------------------
def _mx_tile(op: str, e: Expr, what: str, dtype: DataType) -> TileType:
    t = require_tile(op, e, what)
    require_rank(op, t.shape, 2, what)
    if t.dtype is not dtype:
        raise TypeError(f"{op}: {what} must be {dtype.name}, got {t.dtype.name}")
    return t


def _blocks(k: Expr) -> Expr | None:
    """ceil(K / 32) as a constant, or None for a dynamic K."""
    sk = static_int(k)
    return None if sk is None else ConstInt(-(-sk // MX_BLOCK))


def _check_scale(op: str, scale: TileType, what: str, shape: list[Expr | None], need: list[Expr | None]) -> None:
    """The scale's physical shape is `shape`; its valid region covers `need` (dims known statically)."""
    if not all(want is None or same_dim(have, want) for have, want in zip(scale.shape, shape)):
        expected = "[" + ", ".join("?" if d is None else str(static_int(d) or d) for d in shape) + "]"
        raise TypeError(f"{op}: {what} must be {expected} (one FP8E8M0 scale per {MX_BLOCK} elements of K), "
                        f"got {shape_text(scale.shape)}")
    for have, want in zip(scale.valid_shape, need):
        sh, sw = static_int(have), static_int(want) if want is not None else None
        if sh is not None and sw is not None and sh < sw:
            raise TypeError(f"{op}: {what}'s valid region {shape_text(scale.valid_shape)} does not cover the "
                            f"scales the valid data needs")


def lhs_scale_shape(lhs: TileType) -> tuple[list[Expr | None], list[Expr | None]]:
    return [lhs.shape[0], _blocks(lhs.shape[1])], [lhs.valid_shape[0], _blocks(lhs.valid_shape[1])]


def rhs_scale_shape(rhs: TileType) -> tuple[list[Expr | None], list[Expr | None]]:
    return [_blocks(rhs.shape[0]), rhs.shape[1]], [_blocks(rhs.valid_shape[0]), rhs.valid_shape[1]]


def mx_product_type(op: str, args: Sequence[Expr]) -> TileType:
    lhs, rhs = _mx_tile(op, args[0], "lhs", DATA), _mx_tile(op, args[2], "rhs", DATA)
    lhs_scale, rhs_scale = _mx_tile(op, args[1], "lhs_scale", SCALE), _mx_tile(op, args[3], "rhs_scale", SCALE)
    if not same_dim(lhs.shape[1], rhs.shape[0]):
        raise TypeError(f"{op}: inner dims differ: lhs {shape_text(lhs.shape)} x rhs {shape_text(rhs.shape)}")
    for (name, align), dim in zip(_ALIGN, (lhs.shape[0], rhs.shape[1], lhs.shape[1])):
        value = static_int(dim)
        if value is not None and value % align:
            raise TypeError(f"{op}: {name} = {value} must be a multiple of {align} (the MX cube fractal)")
    _check_scale(op, lhs_scale, "lhs_scale", *lhs_scale_shape(lhs))
    _check_scale(op, rhs_scale, "rhs_scale", *rhs_scale_shape(rhs))
    shape, valid = [lhs.shape[0], rhs.shape[1]], [lhs.valid_shape[0], rhs.valid_shape[1]]
    return TileType(shape, DataType.FP32, None, product_view(shape, valid, not dims_equal(valid, shape)), ACC)


def deduce_matmul_mx(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return mx_product_type("tile.matmul_mx", args)


def deduce_matmul_mx_acc(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.matmul_mx_acc"
    acc = require_tile(op, args[0], "acc")
    require_rank(op, acc.shape, 2, "acc")
    product = mx_product_type(op, args[1:])
    if acc.dtype is not DataType.FP32:
        raise TypeError(f"{op}: acc must be FP32 (the MX accumulator), got {acc.dtype.name}")
    if not dims_equal(acc.shape, product.shape) or not dims_equal(acc.valid_shape, product.valid_shape):
        raise TypeError(f"{op}: acc is {shape_text(acc.shape)} (valid {shape_text(acc.valid_shape)}) but the "
                        f"product is {shape_text(product.shape)} (valid {shape_text(product.valid_shape)})")
    return product


def deduce_matmul_mx_bias(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.matmul_mx_bias"
    product = mx_product_type(op, args[:4])
    bias = require_tile(op, args[4], "bias")
    require_rank(op, bias.shape, 2, "bias")
    if bias.dtype is not DataType.FP32:
        raise TypeError(f"{op}: bias must be FP32, got {bias.dtype.name}")
    if (static_int(bias.shape[0]) not in (1, None) or static_int(bias.valid_shape[0]) not in (1, None)
            or not same_dim(bias.shape[1], product.shape[1]) or not same_dim(bias.valid_shape[1],
                                                                             product.valid_shape[1])):
        raise TypeError(f"{op}: bias must be one [1, N] row (valid [1, N valid]) for the product "
                        f"{shape_text(product.shape)} (valid {shape_text(product.valid_shape)}), got "
                        f"{shape_text(bias.shape)} (valid {shape_text(bias.valid_shape)})")
    return product


_SCALE_OF = {LEFT: LEFT_SCALE, RIGHT: RIGHT_SCALE}


def deduce_tget_scale_addr(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    op = "tile.tget_scale_addr"
    dst = _mx_tile(op, args[0], "dst_scale", SCALE)
    src = _mx_tile(op, args[1], "src", DATA)
    want = _SCALE_OF.get(src.memory_space)  # type: ignore[arg-type]
    if want is not None and dst.memory_space is not None and dst.memory_space is not want:
        raise TypeError(f"{op}: the scale of a {src.memory_space.name} tile lives in {want.name}, but dst_scale "
                        f"is in {dst.memory_space.name}")
    side = want or dst.memory_space
    forms = {LEFT_SCALE: lhs_scale_shape, RIGHT_SCALE: rhs_scale_shape}
    candidates = [forms[side]] if side in forms else list(forms.values())
    errors = []
    for form in candidates:
        try:
            shape, _ = form(src)
            _check_scale(op, dst, "dst_scale", shape, [None, None])
            return dst
        except TypeError as exc:
            errors.append(str(exc))
    raise TypeError(errors[0] if len(errors) == 1 else f"{op}: dst_scale {shape_text(dst.shape)} is the MX scale "
                    f"shape of src {shape_text(src.shape)} neither as a Left nor as a Right operand")


# -- ops (builders derived from their signatures; the top-level pl.matmul_mx & co. are the same) --------------
_MX_ARGS = (ArgSpec("lhs"), ArgSpec("lhs_scale"), ArgSpec("rhs"), ArgSpec("rhs_scale"))
_MX_MEMORY = {0: (LEFT,), 1: (LEFT_SCALE,), 2: (RIGHT,), 3: (RIGHT_SCALE,)}
_ACC_OUT = OutputMemory(fixed=ACC)


def _shifted(memory: Mapping[int, tuple[MemorySpace, ...]], by: int) -> dict[int, tuple[MemorySpace, ...]]:
    return {i + by: spaces for i, spaces in memory.items()}


family.op(OpDef("tile.matmul_mx", deduce_matmul_mx, args=_MX_ARGS, input_memory=_MX_MEMORY, output_memory=_ACC_OUT,
                doc="MX matmul: (lhs * lhs_scale) @ (rhs * rhs_scale), one FP8E8M0 scale per 32 elements of K; FP32 "
                    "Acc."), dsl="tile.matmul_mx")
family.op(OpDef("tile.matmul_mx_acc", deduce_matmul_mx_acc, args=(ArgSpec("acc"), *_MX_ARGS),
                input_memory={0: (ACC,), **_shifted(_MX_MEMORY, 1)}, output_memory=_ACC_OUT,
                effects={0: Effect.READ_WRITE}, doc="acc += the MX product of lhs and rhs (FP32)."),
          dsl="tile.matmul_mx_acc")
family.op(OpDef("tile.matmul_mx_bias", deduce_matmul_mx_bias, args=(*_MX_ARGS, ArgSpec("bias")),
                input_memory={**_MX_MEMORY, 4: (BIAS,)}, output_memory=_ACC_OUT,
                doc="The MX product plus an FP32 Bias row added to every row."), dsl="tile.matmul_mx_bias")
# PyPTO has only the IR builder `ir.op.tile.tget_scale_addr`; the DSL name lets printed text re-parse.
family.op(OpDef("tile.tget_scale_addr", deduce_tget_scale_addr, args=(ArgSpec("dst_scale"), ArgSpec("src")),
                output_memory=OutputMemory(inherit_input=0), effects={0: Effect.WRITE},
                traits=OpTraits(aliases_operand=True),
                doc="Bind dst_scale to src's MX scale region (values unchanged on the reference machine)."),
          dsl="tile.tget_scale_addr")
for _name in ("matmul_mx", "matmul_mx_acc", "matmul_mx_bias"):
    family.dsl_function(_name, registered(f"tile.{_name}"))


# -- what InsertMxScaleAddr asks (docs/plugins.md, op interfaces) ---------------------------------------------
def bind_scale(scale: Expr, data: Expr, span: Span | None) -> Call:
    """tile.tget_scale_addr(scale, data): the scale bound to the scale region of its data operand."""
    return create_op_call("tile.tget_scale_addr", [scale, data], span=span)


for _name, _pairs in (("tile.matmul_mx", ((0, 1), (2, 3))), ("tile.matmul_mx_bias", ((0, 1), (2, 3))),
                      ("tile.matmul_mx_acc", ((1, 2), (3, 4)))):
    family.implement("mx_scale_pairs", _name, {"pairs": _pairs, "bind": bind_scale})


# -- memory planning -----------------------------------------------------------------------------------------
# Memory planning facts (docs/memory_planning.md): where a result's buffer lives, which operands it must not share.
family.set_traits("tile.tget_scale_addr", buffer_view="view", output_reuses_input=0)
family.set_traits("tile.matmul_mx_acc", output_reuses_input=0)
