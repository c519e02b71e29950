"""Ascend950 (a5): the opposite flags of 910B -- V->C fractal adapter, no GM pipe buffer (docs/architecture.md, backends)."""

from __future__ import annotations

from pypto_core.backend.backend import Backend, CoreGroup
from pypto_core.ir.enums import MemorySpace

KB = 1024

ASCEND950 = Backend(
    name="Ascend950",
    capabilities={
        "requires_no_split_dual_aiv_dispatch": False,
        "requires_vtoc_fractal_adapt": True,
        "requires_gm_pipe_buffer": False,
    },
    memory_capacity={
        MemorySpace.Vec: 256 * KB,  # UB
        MemorySpace.Mat: 512 * KB,  # L1
        MemorySpace.Left: 64 * KB,  # L0A
        MemorySpace.Right: 64 * KB,  # L0B
        MemorySpace.Acc: 256 * KB,  # L0C
        MemorySpace.Bias: 4 * KB,
    },
    core_group=CoreGroup(aic_cores=1, aiv_lanes=2, default_fifo_depth=2),
    description="Ascend 950 (a5): 1 AIC + 2 AIV per core group",
)
