"""The statements after a region whose values the region retyped: uses follow the retyped variables.

A region rewriter may give a value defined in the region an exact type (LocalizeBoundaries types an aic_gather
of a localised shard with the source's extent: docs/passes/lower_auto_vector_split.md, the region path). The value leaves the region (regions
do not scope names), so the statements after it must name the retyped variable, and each call whose operands
changed takes the valid region its op's type rule now derives, as the parser does when it reads the printed
program back. Everything else of a result's type (its memory space, set by InferTileMemorySpace; its layout) is
kept: only the valid region, and the compact mode the type rule ties to it, follow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.types import TileType, dims_equal
from pypto_core.ops.retyping import FollowDerivedTypes
from pypto_plugins.pass_split.split_axis.halving import with_valid_region


def _valid_region_follows(old: TileType, derived: TileType) -> TileType | None:
    """The derived valid region and the compact mode that goes with it (a product of narrowed rows is compact
    under tile.matmul's type rule), when the shape holds."""
    if not dims_equal(derived.shape, old.shape):
        return None
    return with_valid_region(old, derived.valid_shape, derived.effective_view().compact)


def retyped_uses(func: F.Function, retyped: Mapping[int, E.Expr], stmts: Sequence[S.Stmt]) -> list[S.Stmt]:
    """`stmts` naming the retyped variables (`retyped`: an old variable's id -> its replacement)."""
    if not retyped:
        return list(stmts)
    rewriter = FollowDerivedTypes(func, _valid_region_follows, retyped)
    out: list[S.Stmt] = []
    for s in stmts:
        out.extend(rewriter.stmt(s))
    return out
