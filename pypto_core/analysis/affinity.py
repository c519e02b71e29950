"""Core affinity of calls (docs/plugins.md, OpDef fields, `ClassifyCallAffinity` / `CombineAffinity`), asked of the registry."""

from __future__ import annotations

from collections.abc import Iterable

from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, Expr, Op
from pypto_core.ir.types import TileType
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of


def _space_affinity(space: object) -> CoreAffinity:
    return CoreAffinity.CUBE if space is not None and space.is_cube() else CoreAffinity.VECTOR  # type: ignore[attr-defined]


def intrinsic_affinity(call: Expr) -> CoreAffinity:
    """Affinity of one call from its OpDef alone (no region placement)."""
    if not isinstance(call, Call) or type(call.op) is not Op:
        return CoreAffinity.SHARED
    opdef = opdef_of(call)
    if opdef is None:
        return CoreAffinity.SHARED
    if isinstance(opdef.affinity, CoreAffinity):
        return opdef.affinity
    if callable(opdef.affinity):
        return opdef.affinity(call)
    if opdef.output_memory is not None and isinstance(call.type, TileType) and call.type.memory_space is not None:
        return _space_affinity(call.type.memory_space)
    for arg in call.args:
        # The operand's type decides, whatever expression produces it (docs/passes/lower_auto_vector_split.md, which values are split).
        if isinstance(arg.type, TileType) and arg.type.memory_space is not None:
            return _space_affinity(arg.type.memory_space)
    return CoreAffinity.SHARED


def stated_lane(call: Expr) -> CoreAffinity | None:
    """The lane a call states itself (docs/passes/expand_mixed_kernel.md, regions), or None.

    An op registered with a fixed affinity states it (tile.create is SHARED by declaration); an op
    with a lane kwarg (`core_type` of syncall / sync_set / sync_wait) states its lane when the kwarg
    is given. Region placement respects a stated lane instead of pinning the call to AIV.
    """
    opdef = opdef_of(call)
    if opdef is None:
        return None
    if isinstance(opdef.affinity, CoreAffinity):
        return opdef.affinity
    if opdef.lane_kwarg is not None and opdef.lane_kwarg in call.kwargs:  # type: ignore[attr-defined]
        return intrinsic_affinity(call)
    return None


def classify_call_affinity(call: Expr) -> CoreAffinity:
    """Intrinsic affinity, with the placement stamp: a call with attr `core_placement="aiv"` is VECTOR, whatever
    its op (docs/passes/expand_mixed_kernel.md, placement)."""
    if isinstance(call, Call) and call.attrs.get("core_placement") == "aiv":
        return CoreAffinity.VECTOR
    return intrinsic_affinity(call)


def combine_affinity(a: CoreAffinity, b: CoreAffinity) -> CoreAffinity:
    """Equal -> same; SHARED with X -> X; otherwise MIXED."""
    if a is b:
        return a
    if a is CoreAffinity.SHARED:
        return b
    if b is CoreAffinity.SHARED:
        return a
    return CoreAffinity.MIXED


def combine_all(affinities: Iterable[CoreAffinity]) -> CoreAffinity:
    out = CoreAffinity.SHARED
    for a in affinities:
        out = combine_affinity(out, a)
    return out


def landing_side(call: Expr) -> CoreAffinity:
    """The core a call runs on: its intrinsic affinity, except that a MIXED call which is not a region
    boundary (a cross-side tile.move) counts on the side its result lands (docs/passes/
    lower_auto_vector_split.md, outside the regions); the boundary ops (`traits.split_boundary`) stay MIXED."""
    affinity = intrinsic_affinity(call)
    if affinity is CoreAffinity.MIXED:
        opdef = opdef_of(call)
        if opdef is None or opdef.traits.split_boundary is None:
            space = getattr(call.type, "memory_space", None)
            if space is not None:
                return _space_affinity(space)
    return affinity


def needs_a_region(call: Expr) -> bool:
    """Vector work that a `pl.split_aiv` region must hold once its function has one: it runs on the
    vector cores, states no lane of its own, and is not a GM load / store (`traits.gm_transfer`, which
    may stay outside) nor a region boundary (docs/passes/lower_auto_vector_split.md, outside the regions)."""
    opdef = opdef_of(call)
    if opdef is None or opdef.traits.gm_transfer or opdef.traits.split_boundary is not None:
        return False
    return landing_side(call) is CoreAffinity.VECTOR and stated_lane(call) is None


def is_cube_work(call: Expr) -> bool:
    """Work that runs on the cube and so may not sit inside a `pl.split_aiv` region: its landing side is the
    cube, and it is neither a GM load / store (runs on the core its tile is on) nor a region boundary
    (docs/passes/lower_auto_vector_split.md)."""
    opdef = opdef_of(call)
    if opdef is None or opdef.traits.gm_transfer or opdef.traits.split_boundary is not None:
        return False
    return landing_side(call) is CoreAffinity.CUBE


def boundary_operand_spaces(call: Expr) -> tuple[MemorySpace, ...]:
    """Where the operand of a region boundary (`traits.split_boundary`) must be: the registry's input_memory
    when it states one, else the producing side's space (docs/passes/lower_auto_vector_split.md: aiv_shard takes
    its operand in Acc, the cube's output; aic_gather gathers Vec). Empty for a call that is no boundary."""
    opdef = opdef_of(call)
    if opdef is None or opdef.traits.split_boundary is None:
        return ()
    declared = opdef.accepted_spaces(0)
    if declared:
        return tuple(declared)
    return (MemorySpace.Acc,) if opdef.traits.split_boundary == "c2v" else (MemorySpace.Vec,)


def is_gm_transfer(value: Expr) -> bool:
    """A DMA between a GM tensor and a tile, and nothing else (`traits.gm_transfer`: tile.load, tile.store):
    the loads and stores the compiler materialises outside split regions
    (docs/passes/lower_auto_vector_split.md, outside the regions)."""
    opdef = opdef_of(value) if isinstance(value, Call) else None
    return opdef is not None and opdef.traits.gm_transfer
