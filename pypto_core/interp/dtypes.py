"""DataType -> numpy dtype, and the poison value that marks elements outside a tile's valid region.

BF16 and the narrow float/int formats come from `ml_dtypes` (a maintained numpy extension), never
from hand emulation. HF4 / HF8 have no numpy counterpart: using them is a clear error.

`ml_dtypes` is imported the first time a narrow format is asked for: loading its extension costs more than
the rest of a small compile, and an array of such a dtype cannot exist before it is loaded, so the
predicates below answer correctly without it.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from pypto_core.errors import UserError
from pypto_core.ir.dtypes import DataType

_NUMPY: dict[DataType, np.dtype] = {
    DataType.BOOL: np.dtype(np.bool_),
    DataType.INT8: np.dtype(np.int8),
    DataType.INT16: np.dtype(np.int16),
    DataType.INT32: np.dtype(np.int32),
    DataType.INT64: np.dtype(np.int64),
    DataType.UINT8: np.dtype(np.uint8),
    DataType.UINT16: np.dtype(np.uint16),
    DataType.UINT32: np.dtype(np.uint32),
    DataType.UINT64: np.dtype(np.uint64),
    DataType.FP16: np.dtype(np.float16),
    DataType.FP32: np.dtype(np.float32),
    DataType.INDEX: np.dtype(np.int64),
    DataType.TASK_ID: np.dtype(np.int64),  # task ids are opaque integers
}
# The formats ml_dtypes provides, by the name of its type (added to the tables by `_load_narrow_formats`).
_NARROW = {DataType.INT4: "int4", DataType.UINT4: "uint4", DataType.FP4: "float4_e2m1fn",
           DataType.FP8E4M3FN: "float8_e4m3fn", DataType.FP8E5M2: "float8_e5m2",
           DataType.FP8E8M0: "float8_e8m0fnu", DataType.BF16: "bfloat16"}

# Low-precision floats are computed in FP32 and rounded once to the result dtype, as a vector
# unit does (and because not every numpy ufunc has a loop for the ml_dtypes types).
COMPUTE_IN_FP32 = frozenset({DataType.FP16, DataType.BF16, DataType.FP4, DataType.FP8E4M3FN,
                             DataType.FP8E5M2, DataType.FP8E8M0})


# Keyed by member name: hashing an Enum member runs Python code, and this lookup is on every op call.
_NUMPY_BY_NAME: dict[str, np.dtype] = {d._name_: t for d, t in _NUMPY.items()}
_ML_SIGNED_INTS: set[np.dtype] = set()
_ML_UNSIGNED_INTS: set[np.dtype] = set()
_ML_FLOATS: set[np.dtype] = set()
_FP4: list[np.dtype] = []  # FP4 has no NaN: its poison is its largest value


def _load_narrow_formats() -> Any:
    """Import ml_dtypes and add its formats to the tables (once)."""
    import ml_dtypes

    if not _ML_FLOATS:
        for dtype, type_name in _NARROW.items():
            _NUMPY_BY_NAME[dtype._name_] = np.dtype(getattr(ml_dtypes, type_name))
        _ML_SIGNED_INTS.add(np.dtype(ml_dtypes.int4))
        _ML_UNSIGNED_INTS.add(np.dtype(ml_dtypes.uint4))
        _ML_FLOATS.update(np.dtype(t) for t in (ml_dtypes.bfloat16, ml_dtypes.float4_e2m1fn,
                                                ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2,
                                                ml_dtypes.float8_e8m0fnu))
        _FP4.append(np.dtype(ml_dtypes.float4_e2m1fn))
    return ml_dtypes


def np_dtype(dtype: DataType) -> np.dtype:
    """The numpy dtype of a DataType (INDEX is int64)."""
    found = _NUMPY_BY_NAME.get(dtype._name_)
    if found is None and dtype in _NARROW:
        _load_narrow_formats()
        found = _NUMPY_BY_NAME.get(dtype._name_)
    if found is None:
        raise UserError(f"the reference machine has no numpy representation for dtype {dtype.name}")
    return found


def np_scalar_type(dtype: DataType) -> type:
    """The numpy scalar constructor of a DataType (`np.int64` for INDEX)."""
    return np_dtype(dtype).type


def is_float_dtype(dt: np.dtype) -> bool:
    if dt.kind == "f":
        return True
    _know_narrow(dt)
    return dt in _ML_FLOATS


def is_int_dtype(dt: np.dtype) -> bool:
    if dt.kind in "iu":
        return True
    _know_narrow(dt)
    return dt in _ML_SIGNED_INTS or dt in _ML_UNSIGNED_INTS


def _know_narrow(dt: np.dtype) -> None:
    """An ml_dtypes array made outside this module (a caller importing ml_dtypes itself) is a narrow format
    the tables must know, though nothing here asked for one yet."""
    if dt.kind == "V" and not _FP4:
        _load_narrow_formats()


def int_limits(dt: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dt) if dt.kind in "iu" else _load_narrow_formats().iinfo(dt)
    return int(info.min), int(info.max)


@cache
def poison_value(dtype: np.dtype) -> object:
    """What fills elements outside the valid region.

    Floats: NaN (every comparison then shows them; FP4 has no NaN and gets its largest value).
    Signed ints: the most negative value; unsigned ints: the largest value (values the machine's
    random inputs never take, see inputs.py). BOOL has no spare value: True is used, so poisoned
    bools cannot be told apart.
    """
    if dtype == np.bool_:
        return np.True_
    if is_int_dtype(dtype):
        lo, hi = int_limits(dtype)
        signed = dtype.kind == "i" or dtype in _ML_SIGNED_INTS
        return dtype.type(lo if signed else hi)
    if _FP4 and dtype == _FP4[0]:
        return dtype.type(6.0)
    return dtype.type(float("nan"))


def is_poison(array: np.ndarray) -> np.ndarray:
    """A boolean mask of the poisoned elements of an array (all False for BOOL)."""
    dt = array.dtype
    if dt == np.bool_:
        return np.zeros(array.shape, dtype=bool)
    p = poison_value(dt)
    if is_float_dtype(dt) and np.isnan(float(p)):
        return np.isnan(array.astype(np.float32, copy=False))
    return array == p


def poisoned(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A fresh array of `shape` whose every element is poison."""
    return np.full(shape, poison_value(dtype), dtype=dtype)
