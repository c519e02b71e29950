"""Uses that follow a retyped operand: the part of a result's type its op's type rule now derives.

When a pass retypes a variable (a load moved to Mat, a value given an exact valid region), the calls that read it
keep their result types — spaces and layouts later passes set — except for what the pass says follows the
operand: the space the type rule derives for a result that had none, the valid region of a result of unchanged
shape. The parser derives those parts the same way when it reads the printed program back, so the round trip
holds. `follow(old_type, derived_type)` returns the result's new type, or None to keep it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.rewriting import BodyRewriter
from pypto_core.ir.types import TileType
from pypto_core.ops.registry import rededuce_call

Follow = Callable[[TileType, TileType], "TileType | None"]


class FollowDerivedTypes(BodyRewriter):
    """A body walk in which each op call whose operands changed takes `follow`'s part of its derived type."""

    def __init__(self, func: F.Function, follow: Follow, retyped: Mapping[int, E.Expr] | None = None) -> None:
        super().__init__(func)
        self.follow = follow
        if retyped:
            self.subst.update(retyped)

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        moved = super().rewrite_call(call, args, result)
        t = call.type
        if moved is call or type(call.op) is not E.Op or not isinstance(t, TileType):
            return moved
        try:
            derived = rededuce_call(call, args).type
        except (TypeError, ValueError):
            return moved  # the op's type rule rejects the operands: the verifiers after the pass say so
        new = self.follow(t, derived) if isinstance(derived, TileType) else None
        return moved if new is None else moved.with_fields(type=new)
