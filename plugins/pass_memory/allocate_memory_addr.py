"""AllocateMemoryAddr (docs/passes/allocate_memory_addr.md): every on-chip MemRef gets its byte address.

Per kernel function (InCore, AIC, AIV; other functions are returned unchanged): the reserve buffers get a
concrete base (reserve_buffers.py), the MemRefs of each space are placed one base after the other from the
reserved windows' end (sequential_placement.py), and a space needing more bytes than the backend's capacity
is the located overflow ValueError (docs/memory_planning.md, when a kernel does not fit). Tile and tensor
variables get the placed MemRefs; allocation statements and DDR MemRefs stay as they are. Under the DSA_RP
planner a capacity-bounded solver places one buffer per allocation instead (dsa_rp/placement.py), then unused
allocations are deleted and the pipeline_membership attr is removed.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pypto_core.analysis.memory import capacity_error
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import KERNEL_TYPES
from pypto_core.ir.types import TileType, Type
from pypto_core.passes.context import PassContext
from pypto_core.passes.memory_planner import MemoryPlanner, active_memory_planner
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_memory.dsa_rp.placement import place_dsa_rp
from pypto_plugins.pass_memory.memrefs import allocations, memref_key, on_chip_memref, retype
from pypto_plugins.pass_memory.reserve_buffers import (
    cross_core_ring_note,
    resolve_windows,
    with_resolved_bases,
)
from pypto_plugins.pass_memory.reuse.fixups import drop_unused_allocs, strip_pipeline_membership
from pypto_plugins.pass_memory.sequential_placement import Placement, place_sequentially


class AllocateMemoryAddr(Pass):
    """Place every on-chip MemRef at a 32-byte aligned address and check each space against the backend."""

    name = "AllocateMemoryAddr"
    factory_name = "allocate_memory_addr"
    required = ("SplitIncoreOrch", "HasMemRefs", "IncoreTileOps", "TileOps2D")
    produced = ("AllocatedMemoryAddr",)
    # The planners whose pipelines run this pass (docs/memory_planning.md, planners); PTOAS leaves addresses
    # to the assembler.
    planners: ClassVar[tuple[MemoryPlanner, ...]] = (MemoryPlanner.PYPTO, MemoryPlanner.DSA_RP)
    description = ("Give every on-chip MemRef a 32-byte aligned byte address per memory space (above the "
                   "system.reserve_buffer windows) and reject a kernel that needs more bytes than the backend has.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        backend = ctx.backend
        if active_memory_planner(ctx) is MemoryPlanner.DSA_RP:
            # the split-AIV hazard is a hard separation only inside a PassContext, as in MemoryReuse
            hazard = bool(backend is not None and backend.fact("split_load_tpop_hazard", False)) \
                and PassContext.current() is not None
            funcs = [allocate_function_dsa_rp(f, backend, hazard) if f.func_type in KERNEL_TYPES else f
                     for f in program.functions.values()]
        else:
            funcs = [allocate_function(f, backend) if f.func_type in KERNEL_TYPES else f
                     for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)


def allocate_function(func: F.Function, backend: Any) -> F.Function:
    reserved = resolve_windows(func)
    func = with_resolved_bases(func, reserved)
    placement = place_sequentially(func, allocations(func), {reserved.space: reserved.end})
    check_placement(func, placement, reserved, backend)
    return retype(func, lambda var: _placed_type(var, placement))


def allocate_function_dsa_rp(func: F.Function, backend: Any, hazard: bool) -> F.Function:
    """DSA_RP: the capacity-bounded placement (dsa_rp/placement.py), then allocations nothing uses any more are
    deleted and the pipeline_membership attr is removed."""
    reserved = resolve_windows(func)
    func = with_resolved_bases(func, reserved)
    placement = place_dsa_rp(func, backend, hazard, reserved)
    func = retype(func, lambda var: _placed_type(var, placement))
    return strip_pipeline_membership(drop_unused_allocs(func))


def _placed_type(var: E.Var, placement: Placement) -> Type | None:
    m = on_chip_memref(var)
    if m is None:
        return None
    new = placement.memrefs.get(memref_key(m))
    if new is None or new is m:
        return None
    t = var.type
    assert isinstance(t, TileType)
    return t.with_fields(memref=new)  # type: ignore[return-value]


def check_placement(func: F.Function, placement: Placement, reserved: Any, backend: Any) -> None:
    """The overflow error of the first space whose placed bytes exceed the backend's capacity (0: unbounded)."""
    if backend is None:
        return
    for space, plan in placement.spaces.items():
        limit = backend.capacity(space)
        if not limit or plan.end <= limit:
            continue
        in_reserved_space = space is reserved.space and reserved.end > 0
        culprit = plan.first_over(limit)
        span = culprit.first_user.span if culprit is not None else func.span
        raise capacity_error(space, plan.end, limit, func.name, backend, span,
                             reserved=reserved.end if in_reserved_space else 0,
                             note=cross_core_ring_note(func, reserved) if in_reserved_space else "")
