"""A region boundary under control flow steered by the lane index is refused.

`pl.aic_gather` hands the lanes' values to the cube and `pl.aiv_shard` hands the cube's value to the lanes
(registry trait `split_boundary`); the cube is one core for both lanes, so it meets each boundary once per
execution that every lane makes together. In a `pl.SplitMode.NONE` region a loop or if may distribute the
work over the lanes by their index (`pl.range(aiv_id, n, 2)`); a boundary inside such a loop or if would
have the cube follow one lane's iterations only (on chip, the other lane's data never reaches the cube
or GM). Which values depend on the lane is the shared scan's answer (pypto_core/analysis/lane_dependence.py: the
results of the registry's `lane_index` ops and everything computed from them).
"""

from __future__ import annotations

from pypto_core.analysis.lane_dependence import Steering, lane_sources, scan
from pypto_core.errors import UserError
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import user_base
from pypto_core.ops.registry import opdef_of


def _kind(steering: Steering) -> str:
    if isinstance(steering.stmt, S.ForStmt):
        return "loop whose bounds read"
    if isinstance(steering.stmt, S.WhileStmt):
        return "while loop whose condition reads"
    return "if whose condition reads"


def check_lane_steered_boundaries(func: F.Function, pass_name: str) -> None:
    """A located UserError for a split boundary under a loop or if steered by the lane index."""
    facts = scan(tuple(func.params), func.body)
    for site in facts.calls:
        opdef = opdef_of(site.call)
        if opdef is None or opdef.traits.split_boundary is None:
            continue
        for steering in reversed(site.steered_by):  # the innermost lane-steered loop or if names the problem
            lane = next((d.var for d in steering.reads if lane_sources(d)), None)
            if lane is None:
                continue
            call = site.call
            to = "the cube" if opdef.traits.split_boundary == "v2c" else "the lanes"
            raise UserError(f"{pass_name}: in InCore function '{func.name}', {call.op.name} hands a value to "
                            f"{to} inside a {_kind(steering)} the "
                            f"lane index (through '{user_base(lane)}'): the cube is one core for both lanes and "
                            f"meets the boundary once per execution the lanes make together, so it would follow "
                            f"only one lane's iterations; move the boundary out of the lane-steered loop or if "
                            f"(distribute the work over the lanes after the gather / before the shard), or keep "
                            f"this work on the vector lanes without the boundary", call.span)
