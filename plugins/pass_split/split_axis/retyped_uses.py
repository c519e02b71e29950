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
from pypto_core.ir.rewriting import BodyRewriter
from pypto_core.ir.types import TileType, dims_equal
from pypto_core.ops.registry import rededuce_call
from pypto_plugins.pass_split.split_axis.halving import with_valid_region


class _RetypedUses(BodyRewriter):
    def __init__(self, func: F.Function, retyped: Mapping[int, E.Expr]) -> None:
        super().__init__(func)
        self.subst.update(retyped)

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        if all(a is b for a, b in zip(args, call.args)):
            return call
        moved = call.with_fields(args=tuple(args))
        t = call.type
        if type(call.op) is not E.Op or not isinstance(t, TileType):
            return moved
        try:
            deduced = rededuce_call(call, args).type
        except (TypeError, ValueError):
            return moved  # the op's type rule rejects the operands: the verifiers after the pass say so
        if not isinstance(deduced, TileType) or not dims_equal(deduced.shape, t.shape):
            return moved
        # The derived valid region and the compact mode that goes with it (a product of narrowed rows is
        # compact under tile.matmul's type rule).
        return moved.with_fields(type=with_valid_region(t, deduced.valid_shape, deduced.effective_view().compact))


def retyped_uses(func: F.Function, retyped: Mapping[int, E.Expr], stmts: Sequence[S.Stmt]) -> list[S.Stmt]:
    """`stmts` naming the retyped variables (`retyped`: an old variable's id -> its replacement)."""
    if not retyped:
        return list(stmts)
    rewriter = _RetypedUses(func, retyped)
    out: list[S.Stmt] = []
    for s in stmts:
        out.extend(rewriter.stmt(s))
    return out
