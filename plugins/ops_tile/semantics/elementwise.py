"""Element-wise tile.* / tensor.* ops: binary (numpy broadcasting), tile-scalar, unary, compare, select.

Low-precision float results are computed in FP32 and rounded once. Integer `div` truncates toward
zero (C semantics) and a division by zero gives 0; float division by zero gives inf / NaN.
`high_precision` changes nothing here: the machine computes in FP32 (or wider) anyway.

Masks (OPS.md tile.cmp): `tile.cmp` / `tile.cmps` pack their predicate, bit i of a row (LSB first, as
pto-isa) = element i, in UINT8 rows of roundup(ceil(N / 8), 32) bytes; bits of elements past lhs's
valid columns and the padding bytes are 0. `tile.sel` / `tile.sels` read the raw bytes of the mask
(whatever its carrier dtype: UINT8, INT16, a reinterpret_view, ...) as those bits, row by row (leading
dims merged into rows). `tensor.cmp` is not packed: 1 / 0 in its promoted dtype.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype, is_int_dtype
from pypto_core.interp.errors import MachineError
from pypto_core.ir.types import TileType
from pypto_plugins.ops_tile.semantics.cast import NONE, TRUNC, convert
from pypto_plugins.ops_tile.semantics.common import Evaluate, result_np_dtype, wide


def _div(a: Any, b: Any) -> Any:
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if is_float_dtype(a_arr.dtype) or is_float_dtype(b_arr.dtype):
        return np.true_divide(a, b)
    safe = np.where(b_arr == 0, 1, b_arr)
    q = np.abs(a_arr) // np.abs(safe)
    q = np.where((a_arr < 0) ^ (safe < 0), -q, q)
    return np.where(b_arr == 0, 0, q)


def _rem(a: Any, b: Any) -> Any:
    """The remainder with the divisor's sign (floored quotient, numpy / torch `remainder`, Python `%`); tile.fmod
    is the one with the dividend's sign. An integer remainder by 0 is 0, like integer div."""
    a_arr, b_arr = np.asarray(a), np.asarray(b)
    if is_float_dtype(a_arr.dtype) or is_float_dtype(b_arr.dtype):
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.remainder(a, b)
    safe = np.where(b_arr == 0, 1, b_arr)
    return np.where(b_arr == 0, 0, np.remainder(a_arr, safe))


def _relu(a: Any) -> Any:
    return np.maximum(a, np.zeros((), dtype=np.asarray(a).dtype))


def _rsqrt(a: Any) -> Any:
    return 1.0 / np.sqrt(a)


def _recip(a: Any) -> Any:
    arr = np.asarray(a)
    one = np.ones((), dtype=arr.dtype) if is_float_dtype(arr.dtype) else np.float32(1)
    return np.true_divide(one, arr)


BINARY_FNS: dict[str, Callable[[Any, Any], Any]] = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": _div, "maximum": np.maximum,
    "minimum": np.minimum, "rem": _rem, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor,
    "shl": np.left_shift, "shr": np.right_shift, "pow": np.power,
}
# Tile-scalar forms: `adds` is `add` with a scalar rhs.
SCALAR_FNS: dict[str, Callable[[Any, Any], Any]] = {
    "adds": np.add, "subs": np.subtract, "muls": np.multiply, "divs": _div, "maximums": np.maximum,
    "minimums": np.minimum, "rems": _rem, "ands": np.bitwise_and, "ors": np.bitwise_or, "xors": np.bitwise_xor,
    "shls": np.left_shift, "shrs": np.right_shift,
}
UNARY_FNS: dict[str, Callable[[Any], Any]] = {
    "exp": np.exp, "neg": np.negative, "abs": np.abs, "sqrt": np.sqrt, "log": np.log, "relu": _relu,
    "recip": _recip, "rsqrt": _rsqrt, "not": np.invert, "floor": np.floor, "ceil": np.ceil,
    "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda a: 1.0 / (1.0 + np.exp(-a)),
    "square": np.square,
}
# cmp_type of tile.cmp / tile.cmps (pto-isa CmpMode order): EQ, NE, LT, GT, GE, LE.
CMP_FNS: tuple[Callable[[Any, Any], Any], ...] = (np.equal, np.not_equal, np.less, np.greater,
                                                  np.greater_equal, np.less_equal)


def _finish(value: Any, dt: np.dtype, operands: tuple[Any, ...] = ()) -> np.ndarray:
    """The result as a fresh array of dtype `dt`: an array the op just made is kept as it is."""
    if (value.__class__ is np.ndarray and value.dtype == dt and value.base is None
            and all(value is not x for x in operands)):
        return value
    return np.asarray(value).astype(dt)  # astype copies: the result is always a fresh array


def _operand(x: Any, dt: np.dtype) -> Any:
    """An operand as the op computes it: low-precision floats in FP32 (`wide`), and an integer or BOOL operand
    of a float result in that float's compute type -- numpy would compute `sqrt` of an INT8 / INT4 array in FP16,
    while the tile form converts the operand first (the promoted cast ConvertTensorToTileOps writes)."""
    x = wide(x)
    xdt = getattr(x, "dtype", None)
    if xdt is not None and is_float_dtype(dt) and (is_int_dtype(xdt) or xdt == np.bool_):
        return np.asarray(x).astype(np.float64 if dt == np.float64 else np.float32)
    return x


def binary(fn: Callable[[Any, Any], Any]) -> Evaluate:
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        dt = result_np_dtype(call)
        return _finish(fn(_operand(args[0], dt), _operand(args[1], dt)), dt, (args[0], args[1]))

    return evaluate


def tile_scalar(fn: Callable[[Any, Any], Any]) -> Evaluate:
    """A tile-scalar op whose result has the tile's dtype: the scalar is narrowed to that dtype first (OPS.md
    tile.adds / muls / divs / ...: "scalar narrowed to tile dtype"), as the vector unit takes it; a float scalar
    narrowed to an integer tile truncates toward zero (C conversion, saturating)."""
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        dt = result_np_dtype(call)
        tile_dt = getattr(args[0], "dtype", None)
        scalar = args[1]
        if tile_dt == dt and getattr(scalar, "dtype", None) != dt:
            value = np.asarray(scalar)
            scalar = convert(value, dt, TRUNC if is_float_dtype(value.dtype) and is_int_dtype(dt) else NONE)[()]
        return _finish(fn(_operand(args[0], dt), _operand(scalar, dt)), dt, (args[0], args[1]))

    return evaluate


def unary(fn: Callable[[Any], Any]) -> Evaluate:
    def evaluate(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
        dt = result_np_dtype(call)
        return _finish(fn(_operand(args[0], dt)), dt, (args[0],))

    return evaluate


def _cmp_fn(mode: Any, op: str) -> Callable[[Any, Any], Any]:
    if isinstance(mode, str):
        names = ("eq", "ne", "lt", "gt", "ge", "le")
        if mode.lower() not in names:
            raise MachineError(f"{op}: unknown cmp_type '{mode}'")
        return CMP_FNS[names.index(mode.lower())]
    if not 0 <= int(mode) < len(CMP_FNS):
        raise MachineError(f"{op}: cmp_type {mode} is not one of 0..{len(CMP_FNS) - 1}")
    return CMP_FNS[int(mode)]


def _valid_columns(ctx: Any, call: Any, n: int) -> int:
    """Valid elements of a compared row: those of the first operand whose last dim is the result's."""
    for a in call.args:
        t = a.type
        if isinstance(t, TileType) and t.shape and ctx.shape(t)[-1] == n:
            return ctx.valid_shape(t)[-1]
    return n


def compare_packed(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.cmp(lhs, rhs, cmp_type=) / tile.cmps(lhs, scalar, cmp_type=): the packed predicate."""
    fn = _cmp_fn(kwargs.get("cmp_type", 0), call.op.name)
    bits = np.asarray(fn(wide(args[0]), wide(args[1])), dtype=bool)
    if bits.ndim == 0:
        raise MachineError(f"{call.op.name}: a 0-D comparison has no row to pack")
    n = bits.shape[-1]
    bits = bits.copy()
    bits[..., _valid_columns(ctx, call, n):] = False
    packed = np.packbits(bits, axis=-1, bitorder="little")
    out = np.zeros(ctx.shape(call.type), dtype=np.uint8)
    out[..., : packed.shape[-1]] = packed
    return out


def compare_values(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tensor.cmp: 1 where the comparison holds, else 0, in the result dtype."""
    fn = _cmp_fn(kwargs.get("cmp_type", 0), call.op.name)
    return _finish(fn(wide(args[0]), wide(args[1])), result_np_dtype(call))


def mask_bits(mask: Any, shape: tuple[int, ...], op: str) -> np.ndarray:
    """The packed bits of a mask tile as a bool array of `shape` (rows = leading dims merged)."""
    m = np.ascontiguousarray(np.asarray(mask))
    if m.ndim == 0 or not shape:
        raise MachineError(f"{op}: the mask and the selected tiles need at least one dimension")
    rows_m = int(np.prod(m.shape[:-1], dtype=np.int64))
    data = m.reshape(rows_m, m.shape[-1]).view(np.uint8)
    bits = np.unpackbits(data, axis=1, bitorder="little")
    rows, n = int(np.prod(shape[:-1], dtype=np.int64)), shape[-1]
    if rows_m < rows or bits.shape[1] < n:
        raise MachineError(f"{op}: the mask holds {rows_m} rows of {bits.shape[1]} bits but the selection needs "
                           f"{rows} rows of {n} bits")
    return bits[:rows, :n].astype(bool).reshape(shape)


def select(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.sel(mask, lhs, rhs, tmp): lhs where the packed mask bit is set, else rhs."""
    shape = ctx.shape(call.type)
    mask = mask_bits(args[0], shape, call.op.name)
    return _finish(np.where(mask, wide(args[1]), wide(args[2])), result_np_dtype(call))


def select_scalar(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """tile.sels(mask, src, tmp, scalar): src where the packed mask bit is set, else the scalar."""
    shape = ctx.shape(call.type)
    mask = mask_bits(args[0], shape, call.op.name)
    return _finish(np.where(mask, wide(args[1]), wide(args[3])), result_np_dtype(call))


def evaluators() -> dict[str, Evaluate]:
    out: dict[str, Evaluate] = {}
    for family in ("tile", "tensor"):
        for name, fn in BINARY_FNS.items():
            out[f"{family}.{name}"] = binary(fn)
        for name, fn in SCALAR_FNS.items():
            out[f"{family}.{name}"] = tile_scalar(fn) if family == "tile" else binary(fn)
        for name, ufn in UNARY_FNS.items():
            out[f"{family}.{name}"] = unary(ufn)
    out["tile.cmp"] = out["tile.cmps"] = compare_packed
    out["tile.sel"] = select
    out["tile.sels"] = select_scalar
    out["tensor.cmp"] = compare_values
    out["tensor.maximum"] = binary(np.maximum)  # a tensor or a scalar rhs: numpy broadcasts both
    out["tensor.minimum"] = binary(np.minimum)
    for name in ("rem", "rems", "maximums", "minimums", "relu"):  # tile-only in PyPTO (OPS.md)
        out.pop(f"tensor.{name}", None)
    return out
