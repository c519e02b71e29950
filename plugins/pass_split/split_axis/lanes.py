"""Where each AIV lane's part of a split axis lies (docs/passes/lower_auto_vector_split.md, lane
extents).

Lane L owns [L*S, L*S + S) of the split axis, S the stride: the lane box ceil(box / 2) (box partition)
or ceil(V / 2) for a ragged boundary (balanced partition). The physical box is ceil(box / 2) either way.
Lane L's valid extent of a full valid extent V is clamp(V - L*S, 0, S), written
`min(max(V, L*S) - L*S, S)` (docs/passes/lower_auto_vector_split.md, example); a full, even axis needs no expression (both lanes hold S).
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.ir import expr as E
from pypto_core.ir import scalar_ops
from pypto_core.ir.dtypes import DataType
from pypto_core.ops.build import ceil_half, static_int


def index(v: int) -> E.ConstInt:
    return E.ConstInt(v, DataType.INDEX)


@dataclass(frozen=True)
class LanePartition:
    """The partition of one split: the subblock index variable and, when balanced, the stride."""

    subblock: E.Var
    balanced_stride: int | None = None

    def stride(self, extent: E.Expr) -> E.Expr:
        """S for an axis of `extent`: the balanced stride, else the lane box."""
        if self.balanced_stride is not None:
            return index(self.balanced_stride)
        return ceil_half(extent)

    def lane_start(self, extent: E.Expr) -> E.Expr:
        return E.Mul(self.subblock, self.stride(extent), DataType.INDEX)

    def lane_offset(self, offset: E.Expr, extent: E.Expr) -> E.Expr:
        """offset + subblock_idx * S (kept as written: `0 + subblock_idx * 64`, docs/passes/lower_auto_vector_split.md, example)."""
        return scalar_ops.add(offset, self.lane_start(extent))

    def lane_valid(self, valid: E.Expr, extent: E.Expr) -> E.Expr:
        """clamp(V - L*S, 0, S); S itself when V is the whole of an even axis split by its box."""
        stride = self.stride(extent)
        v, n, s = static_int(valid), static_int(extent), static_int(stride)
        if v is not None and n is not None and s is not None and v == n and 2 * s == n:
            return index(s)
        start_a, start_b = self.lane_start(extent), self.lane_start(extent)
        # Built with the parser's promotion (an INT8 extent is cast to INDEX), so the printed form reads back
        # to the same tree.
        upper = scalar_ops.max_(_indexed(valid), start_a)
        return scalar_ops.min_(scalar_ops.sub(upper, start_b), _indexed(stride))


def _indexed(e: E.Expr) -> E.Expr:
    """A constant operand of a lane expression as an INDEX constant (printed `pl.const(v, pl.INDEX)`)."""
    v = static_int(e)
    return index(v) if v is not None else e


def lane_extents(valid: int, stride: int) -> tuple[int, int]:
    """(lane 0, lane 1) valid extents of a static valid extent under stride S."""
    return min(valid, stride), max(0, min(valid - stride, stride))


def placeable(e0: int, e1: int) -> bool:
    """pto-isa places lane 1's data from its own extent: e0 == e1 (even code), e0 == e1 + 1 (odd code), or
    lane 1 empty (docs/passes/lower_auto_vector_split.md, lane extents)."""
    return e0 == e1 or e0 == e1 + 1 or e1 == 0


def balanced_stride(box: int, valid: int) -> int | None:
    """S = ceil(V / 2), chosen only when it helps: S > 0 (V = 0 keeps the box partition: both lanes empty),
    V < B, and S differs from the lane box ceil(B / 2) (docs/passes/lower_auto_vector_split.md, lane extents)."""
    s = (valid + 1) // 2
    return s if s > 0 and valid < box and s != (box + 1) // 2 else None


def lane_one_may_be_empty(valid: E.Expr) -> bool:
    """Whether lane 1's valid extent, as lane_valid wrote it, can be 0 (then its stores are guarded)."""
    v = static_int(valid)
    if v is not None:
        return v == 0
    if isinstance(valid, E.Min) and isinstance(valid.left, E.Sub) and isinstance(valid.left.left, E.Max):
        full, stride = static_int(valid.left.left.left), static_int(valid.right)
        if full is not None and stride is not None:
            return lane_extents(full, stride)[1] == 0
    return True  # a runtime extent
