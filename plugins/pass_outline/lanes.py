"""Per-lane values that leave a `pl.split_aiv` region (docs/passes/outline_incore_scopes.md, errors).

Before outlining, a region forks its lanes in place and its values leave it as lane 0's; the scope's
kernel is marked `split_aiv`, so every lane runs the whole kernel, the code after the region included,
each with its own values, and each lane writes the kernel's outputs. A value that depends on a region's
lane index (pypto_core/analysis/lane_dependence.py: the region's `aiv_id`, a splitting `pl.aiv_shard`, and
what is computed from them; a splitting `pl.aic_gather` reassembles both lanes' parts) would make the
lanes compute, and write, different data after the region or out of the scope: a user error.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.analysis.lane_dependence import Region, lane_regions, scan
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.span import Span
from pypto_core.ir.utils import has_split_aiv_region

_FIX = ("Hand the lanes' parts back through a lane barrier (a pl.split_aiv region of mode UP_DOWN or LEFT_RIGHT, "
        "whose pl.aic_gather reassembles both parts)")


def _where(region: Region) -> str:
    line = region.span.begin_line if region.span is not None and region.span.is_valid() else "?"
    return (f"is computed per lane in the pl.split_aiv(2, mode=pl.SplitMode.{region.split.name}) region at line "
            f"{line} (it depends on the region's lane index)")


def check_lane_values(scope: S.InCoreScopeStmt, live_outs: Sequence[E.Var] = ()) -> None:
    """Raise a located UserError when a per-lane value of a region is used after the region, or leaves the
    scope (`live_outs`: the scope's values used after it)."""
    if not has_split_aiv_region(scope.body):
        return  # nothing is per lane without a region
    facts = scan((), scope.body)
    for use in facts.uses:
        if use.region is not None:
            continue
        regions = lane_regions(use.definition)
        if regions:
            name = user_base(use.definition.var)
            raise UserError(
                f"OutlineIncoreScopes: '{name}' {_where(regions[0])} and is used after that region; the scope "
                f"becomes a split_aiv kernel, whose every lane runs the code after the region with its own "
                f"'{name}', so the lanes would compute and write different data. {_FIX}, or keep the work that "
                f"uses '{name}' inside the region", use.span)
    for v in live_outs:
        d = facts.defined.get(v)
        regions = lane_regions(d) if d is not None else []
        if regions:
            name = user_base(v)
            span = d.var.span if d is not None and isinstance(d.var.span, Span) and d.var.span.is_valid() \
                else scope.span
            raise UserError(
                f"OutlineIncoreScopes: '{name}' {_where(regions[0])} and leaves its kernel (the pl.at scope, or the "
                f"region itself written outside one), used after it; the kernel is split_aiv and its lanes each return their own '{name}', so they would "
                f"write different data into one output. {_FIX}, write each lane's part into a tensor at its "
                f"own offset (pl.assemble(out, part, [aiv_id * HALF, 0]) inside the region), or keep the work "
                f"that uses '{name}' inside the scope", span)
