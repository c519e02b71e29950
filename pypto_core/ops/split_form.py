"""How an op that describes a shape or an address is halved along the split axis (docs/passes/lower_auto_vector_split.md).

LowerAutoVectorSplit halves the vector work of a split kernel: each AIV lane computes one half of
every vector tile along the split axis. Most ops need nothing but halved operands (their result type
is halved and checked against the op's own deducer). Ops whose operands *describe* the shape or the
window of their result (tile.load, tile.slice, tile.full, tile.reshape, tile.store's offsets, ...)
must rewrite those operands themselves: that rewrite is registry data, a `SplitForm` on the OpDef,
written against `SplitLowering`, the interface the pass offers. A new op needs no change in the pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from pypto_core.ir.expr import Call, Expr, Var


class SplitLowering(Protocol):
    """What the split pass offers a split form while it halves one call."""

    dim: int
    """The function's split axis (0 for UP_DOWN, 1 for LEFT_RIGHT) in 2-D tile coordinates."""

    def split_axis(self, operand: Expr) -> int | None:
        """The axis a (rewritten) operand is split on, or None when it is full width."""

    def half(self, extent: Expr) -> Expr:
        """A lane's box on the split axis for a full extent: ceil(extent / 2)."""

    def lane_valid(self, valid: Expr, extent: Expr) -> Expr:
        """This lane's valid extent of a full-width valid extent `valid` on an axis of size `extent`."""

    def lane_offset(self, offset: Expr, extent: Expr) -> Expr:
        """A full-width offset on the split axis moved to this lane's part (+ subblock_idx * stride)."""

    def call(self, op: str, args: Sequence[Expr], kwargs: Mapping[str, Any] | None = None) -> Call:
        """A call of a registered op (type deduced) at the rewritten call's source location."""

    def bind(self, value: Expr, name_hint: str) -> Var:
        """Bind a helper value to a new variable just before the rewritten statement."""

    def reject(self, message: str) -> Exception:
        """A located user error for the call being rewritten (raise what it returns)."""


class SplitForm(Protocol):
    def __call__(self, ctx: SplitLowering, call: Call, args: list[Expr]) -> tuple[Expr, int | None]:
        """(the call rewritten for one lane, the axis its result is split on; None: left full width).

        `args` are the call's operands, already rewritten (split operands replaced by their halves)."""


SplitFormFn = Callable[[SplitLowering, Call, list[Expr]], tuple[Expr, "int | None"]]

__all__ = ["SplitForm", "SplitFormFn", "SplitLowering"]
