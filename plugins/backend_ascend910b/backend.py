"""Ascend910B (a2a3): no-split mixed kernels dispatch on both AIV lanes, pipes go through GM (docs/architecture.md, backends)."""

from __future__ import annotations

from pypto_core.backend.backend import Backend, CoreGroup
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace

KB = 1024
(BF16, FP16, FP32, INT16, INT32, INT4, INT64, INT8, UINT8) = (
    DataType.BF16,
    DataType.FP16,
    DataType.FP32,
    DataType.INT16,
    DataType.INT32,
    DataType.INT4,
    DataType.INT64,
    DataType.INT8,
    DataType.UINT8,
)


def _edges(*rows: tuple[DataType, tuple[DataType, ...]]) -> tuple[tuple[DataType, DataType], ...]:
    return tuple((src, dst) for src, targets in rows for dst in targets)


# The conversions one pto.tcvt makes on a2a3, in preference order (docs/passes/legalize_tile_cast.md).
NATIVE_TILE_CASTS = _edges(
    (FP32, (FP16, BF16, INT16, INT32, INT64)),
    (FP16, (FP32, INT32, INT16, INT8, UINT8, INT4)),
    (BF16, (FP32, INT32)),
    (INT16, (FP16, FP32)),
    (INT32, (FP32, INT16, INT64, FP16)),
    (INT64, (FP32, INT32)),
    (UINT8, (FP16,)),
    (INT8, (FP16,)),
    (INT4, (FP16,)),
)

ASCEND910B = Backend(
    name="Ascend910B",
    capabilities={
        "requires_no_split_dual_aiv_dispatch": True,
        "requires_vtoc_fractal_adapt": False,
        "supports_mx_matmul": False,
        "requires_gm_pipe_buffer": True,
    },
    # Bytes a kernel may plan in each on-chip space (docs/memory_planning.md, capacities); a space not listed
    # (LeftScale, RightScale) is absent.
    memory_capacity={
        MemorySpace.Vec: 184 * KB,  # UB: 184 KB usable of 192 KB
        MemorySpace.Mat: 512 * KB,  # L1
        MemorySpace.Left: 64 * KB,  # L0A
        MemorySpace.Right: 64 * KB,  # L0B
        MemorySpace.Acc: 128 * KB,  # L0C
        MemorySpace.Bias: 1 * KB,
    },
    core_group=CoreGroup(aic_cores=1, aiv_lanes=2, default_fifo_depth=2),
    # An INT32 accumulator's rows pad to 32 in L0C, every other dtype's to 16 (docs/memory_planning.md, sizes).
    facts={"pto_arch": "a2a3", "native_tile_casts": NATIVE_TILE_CASTS, "acc_row_alignment": {INT32: 32},
           # A tile computed from a popped cube tile must not reuse a loaded tile's buffer in a split AIV kernel
           # (PyPTO's RequiresSplitLoadTpopWorkaround, docs/passes/memory_reuse.md).
           "split_load_tpop_hazard": True,
           # The L0 tile chooser's roofline figures, measured on a2a3 (docs/passes/auto_tile_matmul_l0.md).
           "l0_cost_model": {"bw_a": 129.7, "bw_b": 85.4, "bw_drain": 118.0, "drain_fixed_cycles": 164.0,
                             "drain_row_cycles": 4.45, "drain_penalty_cycles": 2.6, "drain_c0_bytes": 32,
                             "mad_head": 21, "mad_k_fractal_bytes": 32, "mad_fp32_passes": 2},
           "l0_fractal_alignment": 16, "min_l0_tile_dim": 16,
           # A matmul result reused as an operand goes back to L1 narrowed to BF16 / FP16.
           "low_precision_mat_scratch": True,
           "mat_to_bias_moves": ((FP32, FP32), (FP16, FP32), (INT32, INT32))},
    description="Ascend 910B (a2a3): 1 AIC + 2 AIV per core group",
)
