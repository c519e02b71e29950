"""Ascend910B (a2a3): no-split mixed kernels dispatch on both AIV lanes, pipes go through GM (docs/architecture.md, backends)."""

from __future__ import annotations

from pypto_core.backend.backend import Backend, CoreGroup
from pypto_core.ir.enums import MemorySpace

KB = 1024

ASCEND910B = Backend(
    name="Ascend910B",
    capabilities={
        "requires_no_split_dual_aiv_dispatch": True,
        "requires_vtoc_fractal_adapt": False,
        "requires_gm_pipe_buffer": True,
    },
    memory_capacity={
        MemorySpace.Vec: 192 * KB,  # UB
        MemorySpace.Mat: 512 * KB,  # L1
        MemorySpace.Left: 64 * KB,  # L0A
        MemorySpace.Right: 64 * KB,  # L0B
        MemorySpace.Acc: 128 * KB,  # L0C
        MemorySpace.Bias: 1 * KB,
    },
    core_group=CoreGroup(aic_cores=1, aiv_lanes=2, default_fifo_depth=2),
    description="Ascend 910B (a2a3): 1 AIC + 2 AIV per core group",
)
