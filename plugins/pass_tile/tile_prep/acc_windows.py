"""CanonicalizeTileSlice's accumulator check (docs/passes/canonicalize_tile_slice.md, errors): an op that
accumulates into an operand (its effect on it is ReadWrite, docs/plugins.md, OpDef fields) cannot take as
that operand a window of an Acc tile that leaves out rows: L0C's block layout makes such a window
non-contiguous. A window inside one 16-column block is contiguous; what cannot be proven is not reported.
"""

from __future__ import annotations

from pypto_core.analysis.walk import statements
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace, TileLayout
from pypto_core.ir.types import TileType
from pypto_core.ops.build import static_int
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_tile.tile_prep.slice_windows import window_form

ACC_BLOCK_COLS = 16  # columns of one L0C fractal block


def _is_acc_2d(t: object) -> bool:
    if not isinstance(t, TileType) or len(t.shape) != 2:
        return False
    view = t.effective_view()
    return t.memory_space is MemorySpace.Acc or (view.blayout is TileLayout.col_major and view.fractal == 1024)


def _windows(func: F.Function) -> dict[int, tuple[E.Expr, list[E.Expr], list[E.Expr]]]:
    """Every window variable (plain or not) with (parent, shape, offsets) when both are 2-element lists."""
    found = {}
    for s in statements(func.body):
        if not isinstance(s, S.AssignStmt) or window_form(s.value) is None:
            continue
        call = s.value
        assert isinstance(call, E.Call)
        if len(call.args) >= 3 and isinstance(call.args[1], E.MakeTuple) and isinstance(call.args[2], E.MakeTuple):
            shape, offsets = list(call.args[1].elements), list(call.args[2].elements)
            if len(shape) == len(offsets) == 2:
                found[id(s.var)] = (call.args[0], shape, offsets)
    return found


def reject_row_windows_of_accumulators(func: F.Function) -> None:
    windows = _windows(func)
    if not windows:
        return
    for s in statements(func.body):
        if not isinstance(s, S.AssignStmt) or not isinstance(s.value, E.Call) or window_form(s.value) is not None:
            continue
        call = s.value
        opdef = opdef_of(call)
        if opdef is None:
            continue
        for index, effect in opdef.arg_effects(call.kwargs).items():
            if effect is Effect.READ_WRITE and index < len(call.args):
                _check(call, windows.get(id(call.args[index])))


def _check(call: E.Call, window: tuple[E.Expr, list[E.Expr], list[E.Expr]] | None) -> None:
    if window is None or not _is_acc_2d(window[0].type):
        return
    parent, shape, offsets = window
    rows, cols = (static_int(d) for d in shape)
    parent_rows, parent_cols = (static_int(d) for d in parent.type.shape)  # type: ignore[attr-defined]
    if rows is None or cols is None or parent_rows is None or parent_cols is None or rows == parent_rows:
        return
    col = static_int(offsets[1])
    if col is not None and cols <= ACC_BLOCK_COLS and col // ACC_BLOCK_COLS == (col + cols - 1) // ACC_BLOCK_COLS:
        return
    raise UserError(
        f"{call.op.name}: the accumulator is a {rows}x{cols} row window of a {parent_rows}x{parent_cols} Acc (L0C) "
        f"tile, which is not contiguous in L0C's block layout and cannot be a matmul destination — the cube would "
        f"write rows outside the window. Slice the accumulator along columns instead, so each window spans every "
        f"row: allocate {rows}x{(parent_rows // rows) * cols} and use tile.slice(acc, [{rows}, {cols}], "
        f"[0, i * {cols}]). A window of at most {ACC_BLOCK_COLS} columns inside one column block also works",
        call.span)
