"""Which values are split across the AIV lanes, and on which axis (docs/passes/lower_auto_vector_split.md, which values are split).

One answer for every asker: a bound variable and an inline tuple projection (`pair[0]`) are treated
alike, because each place that asked only about variables got projections wrong in its own way
(docs/passes/lower_auto_vector_split.md, which values are split: store offsets, the absolute-index gate, slice offsets, loop inits, yields, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.ir import expr as E


@dataclass(frozen=True)
class Split:
    """A split value: the axis a tile is split on, or each element's axis for a tuple (None = whole).

    `may_be_empty`: lane 1's valid extent can be 0 (a ragged or runtime extent): stores are guarded.
    `lane_extent`: a shard of a runtime extent moves the whole lane box, so its type does not say how much of
    it is valid; this is the lane's extent its first consumer must carry (docs/passes/lower_auto_vector_split.md, lane extents).
    `gathered_extent`: for a localised shard of an explicit region (and the consumers that keep its valid region),
    the split-axis extent the source had before the shard: what an aic_gather of it joins back to, the two lanes'
    parts being adjacent by construction (docs/passes/lower_auto_vector_split.md, the region path)."""

    axis: int | None
    elements: tuple[int | None, ...] | None = None
    may_be_empty: bool = False
    lane_extent: E.Expr | None = None
    gathered_extent: E.Expr | None = None


class SplitFacts:
    def __init__(self) -> None:
        self._by_id: dict[int, Split] = {}

    def record(self, value: E.Expr, split: Split | None) -> None:
        if split is not None and (split.axis is not None or split.elements is not None):
            self._by_id[id(value)] = split

    def of(self, value: E.Expr) -> Split | None:
        """The split of a (rewritten) operand: a variable, a call written inline, or a tuple projection."""
        hit = self._by_id.get(id(value))
        if hit is not None:
            return hit
        if isinstance(value, E.TupleGetItemExpr):
            whole = self._by_id.get(id(value.tuple))
            if whole is not None and whole.elements is not None and value.index < len(whole.elements):
                axis = whole.elements[value.index]
                return Split(axis, may_be_empty=whole.may_be_empty) if axis is not None else None
        return None

    def axis_of(self, value: E.Expr) -> int | None:
        split = self.of(value)
        return split.axis if split is not None else None

    def is_split(self, value: E.Expr) -> bool:
        return self.of(value) is not None
