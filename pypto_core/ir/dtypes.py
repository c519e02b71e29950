"""Element data types (docs/architecture.md, the core)."""

from __future__ import annotations

import enum


class DataType(enum.Enum):
    """An element type. The value is (bits, kind, signed)."""

    BOOL = (1, "bool", False)
    INT4 = (4, "int", True)
    INT8 = (8, "int", True)
    INT16 = (16, "int", True)
    INT32 = (32, "int", True)
    INT64 = (64, "int", True)
    UINT4 = (4, "int", False)
    UINT8 = (8, "int", False)
    UINT16 = (16, "int", False)
    UINT32 = (32, "int", False)
    UINT64 = (64, "int", False)
    FP4 = (4, "float", True)
    FP8E4M3FN = (8, "float", True)
    FP8E5M2 = (8, "float", True)
    FP8E8M0 = (8, "float", True)
    FP16 = (16, "float", True)
    FP32 = (32, "float", True)
    BF16 = (16, "float", True)
    HF4 = (4, "float", True)
    HF8 = (8, "float", True)
    # INDEX is the machine word: 64-bit for promotion purposes (docs/architecture.md, the core).
    INDEX = (64, "index", True)
    TASK_ID = (64, "task", False)

    def __new__(cls, bits: int, kind: str, signed: bool) -> DataType:
        obj = object.__new__(cls)
        # enum values must be unique; the member name makes them so.
        obj._value_ = (len(cls.__members__), bits, kind, signed)
        return obj

    def __init__(self, bits: int, kind: str, signed: bool) -> None:
        self._bits = bits
        self._kind = kind
        self._signed = signed

    def get_bit(self) -> int:
        return self._bits

    def get_byte(self) -> int:
        return max(1, (self._bits + 7) // 8)

    def to_string(self) -> str:
        return self.name

    def is_float(self) -> bool:
        return self._kind == "float"

    def is_int(self) -> bool:
        return self._kind in ("int", "index")

    def is_signed_int(self) -> bool:
        return self.is_int() and self._signed

    def is_bool(self) -> bool:
        return self._kind == "bool"

    def int_range(self) -> tuple[int, int] | None:
        """The values an integer dtype holds (INDEX: 64-bit signed); None for other dtypes."""
        if not self.is_int():
            return None
        bits = self._bits
        return (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if self.is_signed_int() else (0, 2**bits - 1)

    def is_index_like(self) -> bool:
        """INDEX and INT64 are interchangeable for constants and loop variables (docs/architecture.md, the core)."""
        return self in (DataType.INDEX, DataType.INT64)

    @property
    def category(self) -> str:
        """Numeric category used by scalar promotion: 'int', 'float', 'bool' or 'other'."""
        if self._kind in ("int", "index"):
            return "int"
        if self._kind in ("float", "bool"):
            return self._kind
        return "other"

    def __repr__(self) -> str:
        return f"DataType.{self.name}"

    def __str__(self) -> str:
        return self.name


DEFAULT_CONST_INT = DataType.INT64
DEFAULT_CONST_FLOAT = DataType.FP32
# Also reachable as DataType.DEFAULT_CONST_INT / DEFAULT_CONST_FLOAT, as in PyPTO; not members, so iteration skips them.
DataType.DEFAULT_CONST_INT = DEFAULT_CONST_INT  # type: ignore[attr-defined]
DataType.DEFAULT_CONST_FLOAT = DEFAULT_CONST_FLOAT  # type: ignore[attr-defined]

ALL_DTYPES: tuple[DataType, ...] = tuple(DataType)


def const_problem(value: int | float, dtype: DataType) -> str | None:
    """Why `pl.const(value, dtype)` cannot hold `value`, or None: an integer dtype takes integers in its range
    (a float with an integral value is one), BOOL takes 0 or 1; a float dtype takes any number (rounding)."""
    if dtype.is_bool():
        return None if value in (0, 1) else f"{value!r} is not a BOOL value (0 or 1)"
    span = dtype.int_range()
    if span is None:
        return None
    if isinstance(value, float) and not (value == value and abs(value) != float("inf") and value.is_integer()):
        return f"{value!r} is not an integer, but {dtype.name} is an integer dtype"
    low, high = span
    if not low <= value <= high:
        shown = value if abs(value) < 1e30 else f"{value:.3g}"
        return f"{shown} does not fit in {dtype.name} ({low}..{high})"
    return None
