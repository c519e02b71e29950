"""The rules the index-addressed families share (gather, scatter, sort): dtype sets, mask patterns, index
widths, merge-sort run lengths.

* `MaskPattern` (pl.tile.MaskPattern): pto-isa's gather-mask patterns, written MSB first over a group of
  2 or 4 columns. P0101 keeps the even columns, P1010 the odd ones, P0001..P1000 column 0..3 of every 4,
  P1111 every column. The IR stores the int (docs/plugins.md, OpDef fields: enum kwargs are ints); the
  DSL takes a member, its name or the int (`mask_int`).
* Sort data: `tile.sort32` writes (value, index) pairs, so a sorted list of n entries is 2n elements of
  the value dtype; merge-sort run lengths (`block_len`) count elements, i.e. 64 = one sort32 block.
"""

from __future__ import annotations

import enum
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import ConstInt, Expr
from pypto_core.ops.build import require_dtype_in, static_int, to_enum_int

D = DataType


class MaskPattern(enum.IntEnum):
    """pto-isa MaskPattern (TGATHER / TSCATTER mask form)."""

    P0101 = 1
    P1010 = 2
    P0001 = 3
    P0010 = 4
    P0100 = 5
    P1000 = 6
    P1111 = 7


# mask pattern -> (stride, column kept within each group of `stride`)
MASK_SELECT: dict[int, tuple[int, int]] = {1: (2, 0), 2: (2, 1), 3: (4, 0), 4: (4, 1), 5: (4, 2), 6: (4, 3),
                                           7: (1, 0)}

GATHER_DTYPES = (D.FP16, D.FP32, D.INT16, D.INT32)
SCATTER_DTYPES = (D.FP16, D.FP32, D.BF16, D.INT16, D.INT32, D.INT8)
SORT_DTYPES = (D.FP16, D.FP32)
GATHERB_DTYPES = (D.INT8, D.UINT8, D.INT16, D.UINT16, D.INT32, D.UINT32, D.FP16, D.BF16, D.FP32)
MGATHER_DTYPES = (*GATHERB_DTYPES, D.FP8E4M3FN, D.FP8E5M2, D.HF8)
MSCATTER_DTYPES = GATHER_DTYPES
PAGED_DTYPES = (D.FP16, D.BF16, D.FP32, D.INT8)
COUNT_DTYPES = (D.INT32, D.UINT32)

COALESCE = ("row", "elem")  # tile.mgather `coalesce` 0 / 1
GATHER_OOB = ("undefined", "clamp", "wrap", "zero")  # tile.mgather `gather_oob` 0..3 (pypto's choice)


def mask_select(op: str, pattern: int) -> tuple[int, int]:
    if pattern not in MASK_SELECT:
        raise ValueError(f"{op}: mask_pattern must be 1..7 (pl.tile.MaskPattern.P0101 .. P1111), got {pattern}")
    return MASK_SELECT[pattern]


def mask_columns(pattern: int) -> slice:
    """The columns a mask pattern selects, as a slice of the last axis."""
    stride, pick = MASK_SELECT[int(pattern)]
    return slice(pick, None, stride)


def gathered_cols(op: str, cols: Expr, pattern: int) -> Expr:
    """gather_mask's result width: cols / stride (the width must divide evenly)."""
    stride, _ = mask_select(op, pattern)
    n = static_int(cols)
    if stride == 1:
        return cols
    if n is None:
        raise TypeError(f"{op}: the source width must be static for mask_pattern {pattern}")
    if n % stride:
        raise TypeError(f"{op}: the source width {n} is not a multiple of {stride} (mask_pattern {pattern})")
    return ConstInt(n // stride)


def check_scattered_cols(op: str, narrow: Expr, wide: Expr, pattern: int, narrow_what: str, wide_what: str) -> None:
    """scatter_mask: the destination is `stride` times as wide as the source."""
    stride, _ = mask_select(op, pattern)
    n, w = static_int(narrow), static_int(wide)
    if n is not None and w is not None and n * stride != w:
        raise TypeError(f"{op}: {wide_what} has {w} columns but mask_pattern {pattern} needs {narrow_what} columns "
                        f"x {stride} = {n * stride}")


def same_bits_dtype(op: str, src: DataType, out: DataType | None) -> DataType:
    if out is None:
        return src
    if out.get_bit() != src.get_bit():
        raise TypeError(f"{op}: output_dtype {out.name} must have the source's bit width ({src.name}, "
                        f"{src.get_bit()} bits)")
    return out


def index_dtype_for(op: str, data: DataType, index: DataType, what: str) -> None:
    """scatter's index width: 2 bytes for 1-byte data, else the data's width (INT16 / INT32)."""
    require_dtype_in(op, index, (D.INT16, D.INT32), what)
    want = 16 if data.get_bit() == 8 else data.get_bit()
    if index.get_bit() != want:
        raise TypeError(f"{op}: {what} must be a {want}-bit integer for {data.name} data, got {index.name}")


def gather_index_dtype(op: str, data: DataType, index: DataType, what: str) -> None:
    """gather's index: INT32, or INT16 with 16-bit data."""
    if index is D.INT32 or (index is D.INT16 and data.get_bit() == 16):
        return
    raise TypeError(f"{op}: {what} must be INT32 (INT16 only with 16-bit data), got {index.name} for {data.name}")


def check_block_len(op: str, block_len: Expr) -> None:
    if not getattr(block_len.type, "dtype", None) or not (block_len.type.dtype.is_int()  # type: ignore[attr-defined]
                                                         or block_len.type.dtype.is_index_like()):  # type: ignore[attr-defined]
        raise TypeError(f"{op}: block_len must be an integer scalar")
    n = static_int(block_len)
    if n is not None and (n <= 0 or n % 64):
        raise ValueError(f"{op}: block_len must be a positive multiple of 64 (one sort32 block = 32 pairs), got {n}")


def mask_int(value: Any) -> int:
    """A mask pattern as its int: a MaskPattern member, its name ('P0101') or 1..7."""
    return to_enum_int(value, MaskPattern, "mask_pattern")


def dim_axis(op: str, dim: Any, rank: int) -> int:
    """The `dim` kwarg of tensor.gather / scatter as an axis of a `rank`-D input."""
    if dim is None:
        raise ValueError(f"{op}: dim is required")
    if not -rank <= int(dim) < rank:
        raise ValueError(f"{op}: dim {dim} is out of range for a {rank}-D input")
    return int(dim) % rank
