"""Ascend950 (a5): the opposite flags of 910B -- V->C fractal adapter, no GM pipe buffer (docs/architecture.md, backends)."""

from __future__ import annotations

from pypto_core.backend.backend import Backend, CoreGroup
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace

KB = 1024
(BF16, FP16, FP32, FP4, FP8E4M3FN, FP8E5M2, HF8, INT16, INT32, INT64, INT8, UINT16, UINT32, UINT8) = (
    DataType.BF16,
    DataType.FP16,
    DataType.FP32,
    DataType.FP4,
    DataType.FP8E4M3FN,
    DataType.FP8E5M2,
    DataType.HF8,
    DataType.INT16,
    DataType.INT32,
    DataType.INT64,
    DataType.INT8,
    DataType.UINT16,
    DataType.UINT32,
    DataType.UINT8,
)


def _edges(*rows: tuple[DataType, tuple[DataType, ...]]) -> tuple[tuple[DataType, DataType], ...]:
    return tuple((src, dst) for src, targets in rows for dst in targets)


# The conversions one pto.tcvt makes on a5, in preference order (docs/passes/legalize_tile_cast.md).
NATIVE_TILE_CASTS = _edges(
    (FP32, (FP16, BF16, INT16, INT32, INT64, FP8E4M3FN, FP8E5M2, HF8)),
    (FP16, (FP32, INT32, INT16, INT8, UINT8, HF8)),
    (BF16, (FP32, INT32, FP16, FP4)),
    (INT16, (FP16, FP32, UINT8, UINT32, INT32)),
    (INT32, (FP32, INT16, INT64, UINT16, UINT8)),
    (INT64, (FP32, INT32)),
    (UINT8, (FP16, UINT16)),
    (INT8, (FP16, INT16, INT32)),
    (UINT32, (UINT8, UINT16, INT16)),
    (FP8E4M3FN, (FP32,)),
    (FP8E5M2, (FP32,)),
    (HF8, (FP32,)),
    (FP4, (BF16,)),
)

ASCEND950 = Backend(
    name="Ascend950",
    capabilities={
        "requires_no_split_dual_aiv_dispatch": False,
        "requires_vtoc_fractal_adapt": True,
        "supports_mx_matmul": True,
        "requires_gm_pipe_buffer": False,
    },
    # Bytes a kernel may plan in each on-chip space (docs/memory_planning.md, capacities).
    memory_capacity={
        MemorySpace.Vec: 240 * KB,  # UB: 240 KB usable of 248 KB
        MemorySpace.Mat: 512 * KB,  # L1
        MemorySpace.Left: 64 * KB,  # L0A
        MemorySpace.Right: 64 * KB,  # L0B
        MemorySpace.Acc: 256 * KB,  # L0C
        MemorySpace.Bias: 4 * KB,
        MemorySpace.LeftScale: 4 * KB,
        MemorySpace.RightScale: 4 * KB,
    },
    core_group=CoreGroup(aic_cores=1, aiv_lanes=2, default_fifo_depth=2),
    # Every accumulator's rows pad to 16 in L0C (docs/memory_planning.md, sizes).
    facts={"pto_arch": "a5", "native_tile_casts": NATIVE_TILE_CASTS, "acc_row_alignment": {},
           # The L0 tile chooser's roofline figures, measured on a5 (docs/passes/auto_tile_matmul_l0.md).
           "l0_cost_model": {"bw_a": 206.3, "bw_b": 223.8, "bw_drain": 30.0, "drain_fixed_cycles": 343.4,
                             "drain_row_cycles": 4.59, "drain_penalty_cycles": 0.26, "drain_c0_bytes": 32,
                             "mad_head": 25, "mad_k_fractal_bytes": 32, "mad_fp32_passes": 8},
           "l0_fractal_alignment": 16, "min_l0_tile_dim": 16,
           "low_precision_mat_scratch": False,
           "mat_to_bias_moves": ((FP32, FP32), (FP16, FP32), (BF16, FP32), (INT32, INT32))},
    description="Ascend 950 (a5): 1 AIC + 2 AIV per core group",
)
