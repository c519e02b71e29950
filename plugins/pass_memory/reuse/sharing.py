"""When two intervals may share one buffer (docs/passes/memory_reuse.md, can_share). All must hold:

1. **lifetimes**: disjoint (touching allowed); overlapping intervals still may when some tile pair across them
   is in one phi family (an if result's alternative branch tiles) and no other pair overlaps;
2. **no alias**: no tile of one side is computed by an op whose result must not share a buffer with an operand
   living on the other side (the registry fact `output_must_not_alias`);
3. **split-AIV load + pop hazard** (a backend with the fact `split_load_tpop_hazard`, an active PassContext, an
   AIV function marked `split`/`split_aiv`): a tile computed from a popped cube tile does not take the buffer of
   a loaded tile (or a view of one) that the same computation reads last;
4. **pipeline stages**: tiles of one pipeline group (`pipeline_membership` call attr, `"g:s[;g:s]"`) whose dense
   stage ordinals differ modulo the group's depth F_g do not share; without a known capacity (the legacy rule)
   tiles of different stages do not share when one is a GM load, except in the L0 spaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pypto_core.analysis.walk import statements
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, MemorySpace
from pypto_core.ir.types import TileType
from pypto_core.ops.opdef import CrossCoreRole, OpDef
from pypto_core.ops.registry import op_registry
from pypto_plugins.pass_memory.reuse.intervals import Interval, overlap
from pypto_plugins.pass_memory.reuse.lifetimes import Lifetimes

PIPELINE_ATTR = "pipeline_membership"
# Spaces the legacy stage rule leaves alone: the L0 buffers are refilled per stage by the cube itself.
L0_SPACES = (MemorySpace.Left, MemorySpace.Right, MemorySpace.Acc, MemorySpace.Bias, MemorySpace.LeftScale,
             MemorySpace.RightScale)


def memberships(call: E.Expr) -> list[tuple[int, int]]:
    """The (group, stage) pairs a call is tagged with by the pipeline lowering."""
    text = call.attrs.get(PIPELINE_ATTR) if isinstance(call, E.Call) else None
    if not isinstance(text, str) or not text:
        return []
    out = []
    for part in text.split(";"):
        group, _, stage = part.partition(":")
        out.append((int(group), int(stage)))
    return out


def _opdef(value: E.Expr) -> OpDef | None:
    return op_registry().find_opdef(value.op.name) if isinstance(value, E.Call) else None


@dataclass
class StageDepths:
    """Per pipeline group: the dense ordinal of each stage and the depth F_g in force (None: legacy rule)."""

    ordinals: dict[int, dict[int, int]] = field(default_factory=dict)
    depth: dict[int, int] | None = None


class SharingRules:
    def __init__(self, func: F.Function, life: Lifetimes, intervals: list[Interval], backend: Any,
                 hazard: bool) -> None:
        self.life = life
        self.backend = backend
        self.group_of: dict[int, int] = {}  # base id -> interval index
        for i, iv in enumerate(intervals):
            self.group_of[id(iv.base)] = i
        self.intervals = intervals
        self.stages: dict[int, list[tuple[int, int]]] = {
            vid: memberships(life.stmt[vid].value) for vid in life.order}
        self.hazard = hazard and _split_aiv(func)
        # every assignment's value, tracked or not (a popped tile has no MemRef, so it is not tracked)
        self.values = {id(st.var): st.value for st in statements(func.body) if isinstance(st, S.AssignStmt)}
        self.depths = StageDepths()
        self._forbidden = {vid: self._forbidden_operands(vid) for vid in life.order}

    # -- the predicate --------------------------------------------------------------------------------
    def can_share(self, a: Interval, b: Interval) -> bool:
        return (self.lifetimes_allow(a, b) and not self.aliasing_forbidden(a, b)
                and not self.aliasing_forbidden(b, a) and not self.hazard_between(a, b)
                and not self.hazard_between(b, a) and not self.stages_apart(a, b))

    def lifetimes_allow(self, a: Interval, b: Interval) -> bool:
        if not overlap((a.start, a.end), (b.start, b.end)):
            return True
        phi_pair = False
        for x in a.vids:
            for y in b.vids:
                if self.life.same_family(x, y):
                    phi_pair = True
                elif overlap(self.life.interval(x), self.life.interval(y)):
                    return False
        return phi_pair

    def aliasing_forbidden(self, a: Interval, b: Interval) -> bool:
        """A tile of `a` is computed by an op whose result must not share a buffer with an operand on `b`."""
        target = self.group_of[id(b.base)]
        return any(target in self._forbidden[vid] for vid in a.vids)

    def _forbidden_operands(self, vid: int) -> set[int]:
        """The intervals (by index) of the operands the tile's defining op must not alias."""
        call = self.life.stmt[vid].value
        opdef = _opdef(call)
        if opdef is None:
            return set()
        out = set()
        for index in opdef.traits.no_alias_operands(call, self.backend):  # type: ignore[arg-type]
            arg = call.args[index] if index < len(call.args) else None  # type: ignore[union-attr]
            group = self._group_of_operand(arg)
            if group is not None:
                out.add(group)
        return out

    def _group_of_operand(self, arg: Any) -> int | None:
        t = getattr(arg, "type", None)
        if isinstance(arg, E.Var) and isinstance(t, TileType) and t.memref is not None:
            return self.group_of.get(id(t.memref.base))
        return None

    # -- the split-AIV load + pop hazard --------------------------------------------------------------
    def hazard_between(self, consumer: Interval, loaded: Interval) -> bool:
        if not self.hazard:
            return False
        for x in consumer.vids:
            if not self._reads_a_pop(x):
                continue
            for y in loaded.vids:
                if self._from_a_load(y, set()) and self.life.last[y] == self.life.defs[x]:
                    return True
        return False

    def _reads_a_pop(self, vid: int) -> bool:
        call = self.life.stmt[vid].value
        for arg in getattr(call, "args", ()):
            producer = self._producer(arg)
            if producer is not None and getattr(_opdef(producer), "cross_core_role", None) is CrossCoreRole.POP:
                return True
        return False

    def _producer(self, arg: Any) -> E.Expr | None:
        return self.values.get(id(arg)) if isinstance(arg, E.Var) else None

    def _from_a_load(self, vid: int, seen: set[int]) -> bool:
        """A GM load's tile, or a view chained from one."""
        if vid in seen:
            return False
        seen.add(vid)
        call = self.life.stmt[vid].value
        opdef = _opdef(call)
        if opdef is None:
            return False
        if opdef.traits.gm_transfer:
            return True
        if _is_view(opdef) and call.args and isinstance(call.args[0], E.Var):  # type: ignore[union-attr]
            src = id(call.args[0])  # type: ignore[union-attr]
            return src in self.life.stmt and self._from_a_load(src, seen)
        return False

    # -- pipeline stages -----------------------------------------------------------------------------
    def stages_apart(self, a: Interval, b: Interval) -> bool:
        for x in a.vids:
            for y in b.vids:
                for gx, sx in self.stages[x]:
                    for gy, sy in self.stages[y]:
                        if gx == gy and sx != sy and self._stage_conflict(gx, sx, sy, a, x, y):
                            return True
        return False

    def _stage_conflict(self, group: int, sx: int, sy: int, a: Interval, x: int, y: int) -> bool:
        depths = self.depths.depth
        if depths is None:  # the legacy rule
            if a.space in L0_SPACES:
                return False
            return self._is_load(x) or self._is_load(y)
        ordinals = self.depths.ordinals[group]
        depth = depths.get(group, 1)
        return ordinals[sx] % depth != ordinals[sy] % depth

    def _is_load(self, vid: int) -> bool:
        opdef = _opdef(self.life.stmt[vid].value)
        return opdef is not None and opdef.traits.gm_transfer

    # -- stage depths ---------------------------------------------------------------------------------
    def pipeline_groups(self, space: MemorySpace) -> dict[int, tuple[list[int], int]]:
        """Per group with tiles in `space`: its stages (sorted) and its largest tile's bytes."""
        out: dict[int, tuple[set[int], int]] = {}
        for iv in self.intervals:
            if iv.space is not space:
                continue
            for vid in iv.vids:
                for group, stage in self.stages[vid]:
                    stages, largest = out.get(group, (set(), 0))
                    stages.add(stage)
                    out[group] = (stages, max(largest, iv.size))
        return {g: (sorted(s), size) for g, (s, size) in out.items()}


def _is_view(opdef: OpDef) -> bool:
    """An op whose result is a view of operand 0's buffer (not a move into another space)."""
    memory = opdef.output_memory
    return opdef.traits.aliases_operand and not (memory is not None and memory.from_kwarg)


def _split_aiv(func: F.Function) -> bool:
    if func.func_type is not FunctionType.AIV:
        return False
    attrs = getattr(func, "attrs", None) or {}
    split = attrs.get("split")
    return bool(attrs.get("split_aiv")) or (split is not None and int(getattr(split, "value", split)) != 0)
