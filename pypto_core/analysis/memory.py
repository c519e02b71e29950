"""Sizes of on-chip buffers and the capacity check the memory passes share (docs/memory_planning.md).

* `tile_bytes(type, backend)`: the bytes a tile (or tensor) occupies in its memory space: every dim must be a
  positive constant; `ceil(prod(shape) * bits / 8)` (4-bit dtypes take half a byte, BOOL one byte); an Acc
  (L0C) tile pads its M dimension (the second-to-last) to the backend's `acc_row_alignment` fact.
* `align(n)`: the 32-byte alignment every placement keeps.
* `check_capacity(...)`: the located ValueError a pass raises when a function needs more bytes in a space
  than the backend has.

The capacities themselves are backend data (`Backend.memory_capacity`, asked with `backend.capacity(space)`);
a capacity of 0 (DDR, a space the backend lacks) is never checked.
"""

from __future__ import annotations

import math
from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import ConstInt
from pypto_core.ir.types import TensorType, TileType, Type

ALIGNMENT = 32  # bytes; every space (docs/memory_planning.md, alignment)
_DEFAULT_ACC_ROWS = 16
_NO_BACKEND_ACC_ROWS = {DataType.INT32: 32}


def align(n: int, alignment: int = ALIGNMENT) -> int:
    """`n` rounded up to a multiple of `alignment`."""
    return (n + alignment - 1) // alignment * alignment


def element_bits(dtype: DataType) -> int:
    """Storage bits of one element: 4 for the 4-bit dtypes, else 8 per byte (BOOL is one byte)."""
    return 4 if dtype.get_bit() == 4 else 8 * dtype.get_byte()


def acc_row_alignment(dtype: DataType, backend: Any = None) -> int:
    """The rows an Acc tile's M dimension pads to (the backend's `acc_row_alignment` fact)."""
    table = backend.fact("acc_row_alignment", None) if backend is not None else None
    if table is None:
        table = _NO_BACKEND_ACC_ROWS
    return int(table.get(dtype, _DEFAULT_ACC_ROWS))


def static_dims(t: Type) -> list[int] | None:
    """The dims of a tile / tensor type when all are positive constants, else None."""
    if not isinstance(t, (TileType, TensorType)):
        return None
    dims = []
    for d in t.shape:
        if not isinstance(d, ConstInt) or d.value <= 0:
            return None
        dims.append(d.value)
    return dims


def tile_bytes(t: Type, backend: Any = None, space: MemorySpace | None = None) -> int | None:
    """Bytes of a tile (or tensor) in `space` (the tile's own when None); None when a dim is not a positive
    constant (docs/memory_planning.md, sizes)."""
    dims = static_dims(t)
    if dims is None:
        return None
    assert isinstance(t, (TileType, TensorType))
    if space is None:
        space = t.memory_space if isinstance(t, TileType) else MemorySpace.DDR
    bits = element_bits(t.dtype)
    if space is MemorySpace.Acc and len(dims) >= 2:
        rows = acc_row_alignment(t.dtype, backend)
        m = -(-dims[-2] // rows) * rows
        return m * dims[-1] * math.prod(dims[:-2]) * bits // 8
    return -(-math.prod(dims) * bits // 8)


def capacity_error(space: MemorySpace, used: int, limit: int, function: str, backend: Any,
                   span: Any = None, reserved: int = 0, note: str = "") -> UserError:
    """The located ValueError of a function that needs more bytes in `space` than the backend has."""
    name = getattr(backend, "name", str(backend))
    text = (f"{space.name} buffer usage ({used} bytes) exceeds platform limit ({limit} bytes): function "
            f"'{function}' needs {used} bytes of {space.name} but backend {name} provides {limit}")
    if reserved:
        text += (f". The first {reserved} bytes of that space are reserved by system.reserve_buffer, so tiles are "
                 f"allocated above them")
    if note:
        text += note
    text += (f". Use smaller tiles (split the work into more, smaller tiles), or keep fewer tiles live at once "
             f"in {space.name}")
    return UserError(text, span)


def check_capacity(space: MemorySpace, used: int, function: str, backend: Any, span: Any = None,
                   reserved: int = 0, note: str = "") -> None:
    """Raise the capacity error when `used` bytes of `space` exceed the backend's capacity (0: unchecked)."""
    if backend is None:
        return
    limit = backend.capacity(space)
    if limit and used > limit:
        raise capacity_error(space, used, limit, function, backend, span, reserved, note)
