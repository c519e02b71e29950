"""Lane barriers: the AIV lanes of one split execution exchanging values (tile.aic_gather).

Before ExpandMixedKernel turns a gather into a V->C FIFO transfer, `aic_gather` inside a split
region (or a split_aiv function) assembles one full tile from both lanes' halves (docs/passes/lower_auto_vector_split.md, split
codes). The lanes run as coroutines; the k-th exchange at a call site of lane 0 pairs with
the k-th one of lane 1. A barrier is a happens-before edge between the lanes (gm_race.py), inside a
core group and in a fork outside one: each lane leaves it knowing everything every
lane did before arriving.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pypto_core.interp.context import EvalContext


class LaneSet:
    """The lanes of one split execution and their pending exchanges."""

    def __init__(self, lanes: int) -> None:
        self.lanes = lanes
        self._counts: list[dict[int, int]] = [{} for _ in range(lanes)]
        self._slots: dict[tuple[int, int], list[Any]] = {}
        self._clocks: dict[tuple[int, int], list[Any]] = {}  # the lanes' clocks at the barrier (gm_race.py)
        self._taken: dict[tuple[int, int], int] = {}

    def exchange(self, ctx: EvalContext, site: object, what: str, value: Any) -> list[Any]:
        """Contribute `value` for this lane; return every lane's value (blocks for the others)."""
        lane = ctx.lane
        counts = self._counts[lane]
        occurrence = counts.get(id(site), 0)
        counts[id(site)] = occurrence + 1
        key = (id(site), occurrence)
        values = self._slots.setdefault(key, [_MISSING] * self.lanes)
        values[lane] = value
        race = ctx.race
        if race is not None:
            self._clocks.setdefault(key, [None] * self.lanes)[lane] = race.release(ctx.task)

        def ready() -> bool:
            return all(v is not _MISSING for v in values)

        def describe() -> str:
            missing = [str(i) for i, v in enumerate(values) if v is _MISSING]
            return (f"{what} (call #{occurrence + 1} on lane {lane}) waits at the lane barrier for "
                    f"lane {', '.join(missing)}")

        if not ready():
            ctx.wait(ready, describe)
        if race is not None:
            for clock in self._clocks[key]:
                race.acquire(ctx.task, clock)
        taken = self._taken.get(key, 0) + 1
        if taken == self.lanes:  # every lane has its copy: forget the exchange
            self._slots.pop(key, None)
            self._clocks.pop(key, None)
            self._taken.pop(key, None)
        else:
            self._taken[key] = taken
        return list(values)


_MISSING = object()
