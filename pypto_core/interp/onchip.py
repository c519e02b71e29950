"""Address-accurate on-chip memory: tiles with MemRefs live in bytes (docs/memory_planning.md, execution by address).

Once a function's tiles carry MemRefs, the machine models each core's on-chip memory as bytes per space:
the AIC's Mat / Left / Right / Acc / Bias (/ LeftScale / RightScale), and each AIV lane's Vec. A tile with
a MemRef is written into those bytes when it is defined (an assignment, a yield into a carried value, a
parameter) and read back from them whenever it is used, so tiles whose MemRefs overlap really alias. Tiles
without a MemRef (and DDR MemRefs: tensors) keep value semantics.

* Byte image: row-major in the tile's dtype (numpy's itemsize: a 4-bit element takes a byte here). A window or
  relabel view whose MemRef spans more bytes than its dense image (a slice: its size is the byte span it can
  touch inside its parent, docs/memory_planning.md, sizes) is read with its parent's row pitch; any other tile
  (a reshape included) is dense; an Acc tile's padded rows follow its dense rows.
* Addresses: a function whose MemRefs are placed (AllocateMemoryAddr's output, or written so by hand) runs
  by address: the byte offset is the address in the space, so any two tiles whose ranges overlap alias. A
  function whose allocations are not placed yet (InitMemRef's output: every allocation of a space starts at
  offset 0) runs each allocation in bytes of its own, offset relative to it.
* Capacity: bytes beyond the backend's capacity of a space are a MachineError naming the space, the bytes
  and the capacity; a space of capacity 0 (the backend states none) is unbounded here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from pypto_core.interp.dtypes import np_dtype
from pypto_core.interp.errors import MachineError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.function import Function
from pypto_core.ir.types import TileType

if TYPE_CHECKING:
    from pypto_core.interp.code import FunctionCode

_FILL = 0xFF  # fresh memory reads as NaN / -1: a tile read before anything wrote its bytes shows it


class OnChipMemory:
    """The on-chip bytes of one machine run: a region per (space, lane for Vec, allocation when unplaced)."""

    def __init__(self, backend: Any) -> None:
        self.backend = backend
        self.regions: dict[tuple[Any, ...], bytearray] = {}

    def capacity(self, space: MemorySpace) -> int:
        if self.backend is None:
            return 0
        return int(self.backend.capacity(space))

    def region(self, key: tuple[Any, ...], space: MemorySpace, end: int) -> bytearray:
        data = self.regions.get(key)
        if data is None:
            data = self.regions[key] = bytearray([_FILL]) * max(self.capacity(space), end)
        elif len(data) < end:  # a space without a stated capacity grows as it is used
            data.extend(bytearray([_FILL]) * (end - len(data)))
        return data


class Placement:
    """Where one tile variable lives: space, offset (constant or computed per use), image shape and pitch."""

    __slots__ = ("name", "space", "base_key", "offset", "shape", "dtype", "pitch", "span", "backend_name")

    def __init__(self, name: str, space: MemorySpace, base_key: Any, offset: Callable[[list[Any]], int],
                 shape: tuple[int, ...], dtype: np.dtype, pitch: int | None, span: Any, backend_name: str) -> None:
        self.name, self.space, self.base_key, self.offset = name, space, base_key, offset
        self.shape, self.dtype, self.pitch, self.span, self.backend_name = shape, dtype, pitch, span, backend_name

    def view(self, fr: list[Any]) -> np.ndarray:
        """The tile's bytes as a writable array of its shape."""
        ctx = fr[0]
        memory: OnChipMemory = ctx.machine.onchip
        offset = int(self.offset(fr))
        isz = self.dtype.itemsize
        rows = math.prod(self.shape[:-1]) if len(self.shape) > 1 else 1
        cols = self.shape[-1] if self.shape else 1
        pitch = self.pitch or cols
        end = offset + ((rows - 1) * pitch + cols) * isz
        limit = memory.capacity(self.space)
        if offset < 0 or (limit and end > limit):
            raise MachineError(
                f"tile '{self.name}' occupies {self.space.name} bytes [{offset}, {end}), beyond the {self.space.name} "
                f"capacity of {limit} bytes on {self.backend_name}: its MemRef lies outside the space; place it "
                f"inside (AllocateMemoryAddr) or use smaller tiles", self.span)
        lane = ctx.lane if self.space is MemorySpace.Vec else 0
        data = memory.region((self.space, lane, self.base_key), self.space, end)
        flat = np.ndarray((rows, cols), dtype=self.dtype, buffer=data, offset=offset,
                          strides=(pitch * isz, isz))
        return flat.reshape(self.shape) if pitch == cols else flat

    def write(self, fr: list[Any], value: Any) -> None:
        target = self.view(fr)
        source = np.asarray(value)
        if source.dtype != self.dtype:
            source = source.astype(self.dtype)
        target[...] = source.reshape(target.shape)

    def read(self, fr: list[Any]) -> np.ndarray:
        return np.array(self.view(fr), copy=True).reshape(self.shape)


def _placed_tiles(func: Function) -> tuple[list[E.Var], dict[int, E.Var]]:
    """The MemRef-carrying on-chip tile variables a function binds (parameters first), and for each one a window
    or relabel view defines (the registry's `buffer_view`: a slice, a set_validshape) the tile it views. A view
    that reads the bytes with another shape (a reshape) is dense: its rows do not keep the operand's pitch."""
    from pypto_core.analysis.walk import statements
    from pypto_core.ops.registry import opdef_of

    bound: list[E.Var] = list(func.params)
    source: dict[int, E.Var] = {}
    for stmt in statements(func.body):
        if isinstance(stmt, S.AssignStmt):
            bound.append(stmt.var)
            value = stmt.value
            first = value.args[0] if isinstance(value, E.Call) and value.args else None
            opdef = opdef_of(value) if isinstance(first, E.Var) and isinstance(first.type, TileType) else None
            if opdef is not None and opdef.traits.buffer_view in ("window", "relabel"):
                source[id(stmt.var)] = first
        for name in ("iter_args", "return_vars"):
            bound.extend(getattr(stmt, name, ()) or ())
    out = []
    for var in bound:
        t = var.type
        # A declaration not resolved yet (`pl.MemRef("ring", slots=2)[1]` before InitMemRef: pinned, size 0) has
        # no slot offsets: its tiles stay values until InitMemRef gives each slot its bytes.
        if isinstance(t, TileType) and t.memref is not None and t.memory_space not in (None, MemorySpace.DDR) \
                and not t.memref.is_pinned:
            out.append(var)
    return out, source


def _unplaced_spaces(tiles: list[E.Var]) -> set[MemorySpace]:
    """Spaces whose allocations are not placed yet: two or more, each starting at offset 0."""
    lowest: dict[MemorySpace, dict[int, int]] = {}
    for var in tiles:
        t = var.type
        m = t.memref
        offset = m.static_offset
        per_base = lowest.setdefault(t.memory_space, {})
        key = id(m.base)
        per_base[key] = min(per_base.get(key, 0 if offset is None else offset), 0 if offset is None else offset)
    return {space for space, bases in lowest.items() if len(bases) > 1 and all(v == 0 for v in bases.values())}


def plan_placements(code: FunctionCode, backend: Any) -> dict[int, Placement]:
    """id(var) -> Placement for every MemRef-carrying on-chip tile of the function (static shapes only)."""
    from pypto_core.analysis.memory import tile_bytes
    from pypto_core.interp.exprs import compile_expr

    tiles, source = _placed_tiles(code.func)
    if not tiles:
        return {}
    unplaced = _unplaced_spaces(tiles)
    backend_name = getattr(backend, "name", "this machine")
    out: dict[int, Placement] = {}
    for var in tiles:
        t = var.type
        m = t.memref
        if not all(isinstance(d, E.ConstInt) for d in t.shape):
            continue  # a dynamic tile keeps value semantics
        shape = tuple(d.value for d in t.shape)
        dtype = np_dtype(t.dtype)
        static = m.static_offset
        offset = (lambda fr, v=static: v) if static is not None else _int_of(compile_expr(code, m.byte_offset))
        out[id(var)] = Placement(var.name_hint, t.memory_space, id(m.base) if t.memory_space in unplaced else None,
                                 offset, shape, dtype, _pitch(var, source, backend, tile_bytes),
                                 var.span, backend_name)
    return out


def _int_of(fn: Callable[[list[Any]], Any]) -> Callable[[list[Any]], int]:
    return lambda fr: int(fn(fr))


def _pitch(var: E.Var, source: dict[int, E.Var], backend: Any, tile_bytes: Any) -> int | None:
    """Elements per row of a view into a wider parent: a tile whose MemRef is not its full size, defined as a
    window (a slice) or a relabel of a tile of the same allocation, keeps that parent's row pitch; any other
    tile is dense."""
    t = var.type
    parent = source.get(id(var))
    if len(t.shape) < 2 or t.memref.size == tile_bytes(t, backend) or parent is None:
        return None
    pt = parent.type
    if not isinstance(pt, TileType) or pt.memref is None or pt.memref.base is not t.memref.base \
            or not isinstance(pt.shape[-1], E.ConstInt):
        return None
    pitch = _pitch(parent, source, backend, tile_bytes) or pt.shape[-1].value
    return pitch if pitch > t.shape[-1].value else None
