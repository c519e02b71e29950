"""CanonicalizeTileSlice's first phase (docs/passes/canonicalize_tile_slice.md, rules): the plain 2-D windows of a
function, each resolved to the tile it reads (a window of a window adds the offsets), and whether a window's
start is provably 32-byte aligned.

Which calls are windows is the `tile_window` op interface (docs/plugins.md, op interfaces). Offsets that are
variables bound to a constant (or aliases of one) count as that constant; scalar definitions are kept for
the alignment proof, which knows a multiple of each dynamic offset through `+`, `-` and `*`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.walk import statements
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import ScalarType, TileType
from pypto_core.ops.build import static_int
from pypto_core.ops.registry import op_registry
from pypto_plugins.pass_tile.interfaces import TILE_WINDOW

ALIGN_BITS = 256  # a window's start must be 32-byte aligned for the vector unit to read it in place


@dataclass(frozen=True)
class SliceWindow:
    """A plain 2-D window `var = slice(source, shape, [row, col])`, resolved to the tile it reads."""

    var: E.Var
    base: E.Expr
    row: E.Expr
    col: E.Expr
    shape: tuple[E.Expr, ...]
    memory: MemorySpace | None
    copy: Any  # the op's builder of a copy of the window (tile_window's 'copy')

    @property
    def in_mat(self) -> bool:
        return self.memory is MemorySpace.Mat

    @property
    def vector_or_unplaced(self) -> bool:
        return self.memory in (MemorySpace.Vec, None)


def window_form(call: E.Expr) -> Any:
    if not isinstance(call, E.Call) or type(call.op) is not E.Op:
        return None
    return op_registry().implementation(TILE_WINDOW.name, call.op.name)


def _add(a: E.Expr, b: E.Expr) -> E.Expr:
    x, y = static_int(a), static_int(b)
    if x is not None and y is not None:
        return E.ConstInt(x + y, a.type.dtype, a.span)  # type: ignore[attr-defined]
    if y == 0:
        return a
    if x == 0:
        return b
    return E.Add(a, b, a.type.dtype, a.span)  # type: ignore[attr-defined]


class SliceWindows:
    """The windows of one function, its constant scalars and its scalar definitions."""

    def __init__(self, func: F.Function) -> None:
        self.windows: dict[int, SliceWindow] = {}
        self.constants: dict[int, E.ConstInt] = {}
        self.scalars: dict[int, E.Expr] = {}
        for s in statements(func.body):
            if isinstance(s, S.AssignStmt):
                self._note(s)

    def _note(self, s: S.AssignStmt) -> None:
        value = s.value
        if isinstance(s.var.type, ScalarType):
            self.scalars[id(s.var)] = value
            known = self.constant(value)
            if known is not None:
                self.constants[id(s.var)] = known
            return
        form = window_form(value)
        plain = form["window"](value) if form is not None else None
        if plain is None or not isinstance(plain[0], (E.Var, E.IterArg)):
            return
        source, shape, (row, col) = plain
        row, col = self.resolved(row), self.resolved(col)
        outer = self.windows.get(id(source))
        if outer is not None:
            source, row, col = outer.base, _add(outer.row, row), _add(outer.col, col)
        memory = s.var.type.memory_space if isinstance(s.var.type, TileType) else None
        self.windows[id(s.var)] = SliceWindow(s.var, source, row, col, tuple(shape), memory, form["copy"])

    def constant(self, e: E.Expr) -> E.ConstInt | None:
        if isinstance(e, E.ConstInt):
            return e
        if isinstance(e, (E.Var, E.IterArg)):
            return self.constants.get(id(e))
        return None

    def resolved(self, e: E.Expr) -> E.Expr:
        """An offset, its constant when it is a variable bound to one."""
        return self.constant(e) or e

    def of(self, e: E.Expr) -> SliceWindow | None:
        return self.windows.get(id(e)) if isinstance(e, (E.Var, E.IterArg)) else None

    # -- alignment -----------------------------------------------------------------------------------------
    def known_multiple(self, e: E.Expr, depth: int = 0) -> int:
        """A divisor of ALIGN_BITS every value of `e` is a multiple of (ALIGN_BITS for 0)."""
        if depth > 32:
            return 1
        if isinstance(e, E.ConstInt):
            return math.gcd(int(e.value), ALIGN_BITS)
        if isinstance(e, (E.Var, E.IterArg)):
            definition = self.scalars.get(id(e))
            return 1 if definition is None else self.known_multiple(definition, depth + 1)
        if isinstance(e, (E.Add, E.Sub)):
            return math.gcd(self.known_multiple(e.left, depth + 1), self.known_multiple(e.right, depth + 1))
        if isinstance(e, E.Mul):
            product = self.known_multiple(e.left, depth + 1) * self.known_multiple(e.right, depth + 1)
            return math.gcd(product, ALIGN_BITS)
        return 1

    def aligned(self, w: SliceWindow) -> bool:
        """The window's start is provably a multiple of 32 bytes from its base's (aligned) start."""
        base = w.base.type
        if not isinstance(base, TileType) or len(base.shape) != 2:
            return False
        cols = static_int(base.shape[1])
        if cols is None:
            return False
        bits = base.dtype.get_bit()
        offset = 0
        memref = base.memref
        if memref is not None:
            byte_offset = static_int(memref.byte_offset)
            offset += byte_offset * 8 if byte_offset is not None and byte_offset >= 0 else 0
        for index, stride in ((w.row, cols * bits), (w.col, bits)):
            value = static_int(index)
            if value is not None:
                offset += value * stride
            elif (self.known_multiple(index) * stride) % ALIGN_BITS:
                return False
        return offset % ALIGN_BITS == 0

    def contiguous_constant(self, w: SliceWindow) -> bool:
        """A constant origin and a window that is one run of memory (one row, or whole rows of the base)."""
        if static_int(w.row) is None or static_int(w.col) is None:
            return False
        rows, cols = (static_int(d) for d in w.shape)
        base_cols = static_int(w.base.type.shape[1]) if isinstance(w.base.type, TileType) else None
        if rows is None or cols is None or base_cols is None:
            return False
        return rows == 1 or cols == base_cols
