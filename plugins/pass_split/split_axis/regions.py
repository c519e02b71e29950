"""The transpose hazard of a split region (docs/passes/lower_auto_vector_split.md); what a region's values
are on the two lanes is pypto_core/analysis/region_lanes.py."""

from __future__ import annotations

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir.enums import SplitMode
from pypto_core.ops.build import static_int
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.split_axis.modes import split_dimension


def check_transpose_hazard(calls: list[E.Call], mode: SplitMode, where: str) -> None:
    """A transpose that swaps the split axis would move each lane's half onto the other axis (docs/passes/lower_auto_vector_split.md,
    FindTransposeSplitHazard): a located error naming the op and the mode."""
    if mode is SplitMode.NONE:
        return
    dim = split_dimension(mode)
    for call in calls:
        opdef = opdef_of(call)
        if opdef is None or not opdef.traits.swapped_axes_args:
            continue
        t = call.args[0].type
        rank = len(getattr(t, "shape", ())) or 2
        axes = {(static_int(call.args[i]) or 0) % rank for i in opdef.traits.swapped_axes_args if i < len(call.args)}
        if dim in axes:
            raise UserError(f"{where}: {call.op.name} swaps the split axis (dim {dim} of the {mode.name} split) with "
                            f"another axis, so each AIV lane's half would land on the wrong axis; transpose outside "
                            f"the split (on the cube side, or before the boundary), or split along the other axis",
                            call.span)
