"""Split forms of the ops whose values depend on where an element sits: the positional generators (tile.ci,
tile.random, tile.tri) and the packed compares (tile.cmp, tile.cmps) (rules: __init__.py)."""

from __future__ import annotations

from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.types import TileType
from pypto_core.ops.split_form import SplitLowering
from pypto_plugins.pass_split.split_forms.common import (
    split_axis_of_rank,
    tile_type,
    unchanged_for_every_lane,
)
from pypto_plugins.pass_split.split_forms.windows import one_element_deep_is_a_broadcast_read


def position_dependent_values_cannot_be_halved(ctx: SplitLowering, call: Call,
                                               args: list[Expr]) -> tuple[Expr, int | None]:
    """A halved type would give both lanes the first half's values: rejected unless nothing is cut."""
    t = tile_type(call)
    axis = split_axis_of_rank(ctx, len(t.shape))
    if axis is None or one_element_deep_is_a_broadcast_read(t.shape[axis]):
        return unchanged_for_every_lane(call, args)
    raise ctx.reject(f"{call.op.name} generates values from the element position, so halving its type on the split "
                     f"axis would give both lanes the first half's values: it cannot take part in automatic "
                     f"split-axis halving; move it out of the split function (compute it outside and pass it in)")


def compare_the_lanes_part(ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
    """A lane's packed predicate is the compare of its part, re-typed by the deducer (tile.sel / sels of that
    lane read it with the lane's own element indices); full-width operands: every lane computes the whole."""
    axis = next((ctx.split_axis(a) for a in args if isinstance(a.type, TileType) and ctx.split_axis(a) is not None),
                None)
    if axis is None and all(a is b for a, b in zip(args, call.args)):
        return call, None
    return ctx.call(call.op.name, args, dict(call.kwargs)), axis
