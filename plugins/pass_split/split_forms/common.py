"""What the split forms share: the split axis of a tile of some rank, operand access, a call kept whole."""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.types import TileType
from pypto_core.ops.build import tuple_elements
from pypto_core.ops.split_form import SplitLowering


def split_axis_of_rank(ctx: SplitLowering, rank: int) -> int | None:
    """The function's split axis in a tile of this rank (right-aligned: a 1-D tile is a row)."""
    if rank == 2:
        return ctx.dim
    if rank == 1:
        return 0 if ctx.dim == 1 else None
    return None


def dims(e: Expr) -> list[Expr]:
    """The entries of a shape / offset operand."""
    return list(tuple_elements(e))


def tile_type(e: Expr) -> TileType:
    t = e.type
    assert isinstance(t, TileType)
    return t


def unchanged_for_every_lane(call: Call, args: Sequence[Expr]) -> tuple[Expr, None]:
    """The call as it is (on its rewritten operands): every lane computes the whole, full-width value."""
    same = all(a is b for a, b in zip(args, call.args))
    return (call if same else call.with_fields(args=tuple(args))), None
