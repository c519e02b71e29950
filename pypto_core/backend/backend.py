"""The backend interface: what a pass or the reference machine may ask about the target (docs/architecture.md, backends).

A backend is a plugin object. Passes ask it named capabilities instead of testing the backend's name,
so a new target only has to say which behaviours it needs (docs/architecture.md, backends).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pypto_core.ir.enums import MemorySpace, TileLayout
from pypto_core.ir.types import TileType, TileView

# Every capability a backend must state, and what it changes (docs/architecture.md, backends).
CAPABILITIES: dict[str, str] = {
    "requires_no_split_dual_aiv_dispatch": (
        "ExpandMixedKernel marks no-split mixed AIV halves dual_aiv_dispatch; SplitVectorKernel then replays "
        "the AIV body on lane 1 (docs/passes/split_vector_kernel.md)"),
    "requires_vtoc_fractal_adapt": (
        "before tpush_to_aic the AIV side moves the tile to an NZ layout (V->C fractal adapter)"),
    "requires_gm_pipe_buffer": "cross-core pipes are routed through a GM buffer (InjectGMPipeBuffer)",
    "supports_mx_matmul": (
        "the cube runs MX (microscaling) matmuls; InsertMxScaleAddr rejects them on a backend without it "
        "(docs/passes/insert_mx_scale_addr.md)"),
}

# Facts a backend may state beyond its yes/no capabilities: data a pass reads (docs/architecture.md, backends).
# A backend states those it has; a pass says what it does without one.
FACTS: dict[str, str] = {
    "pto_arch": "the PTO ISA generation the backend compiles for ('a2a3', 'a5'), named in messages",
    "native_tile_casts": (
        "the (source, target) dtype pairs one pto.tcvt converts, in preference order; LegalizeTileCast chains "
        "them for every other tile.cast (docs/passes/legalize_tile_cast.md)"),
    "acc_row_alignment": (
        "{dtype: rows}: the rows an Acc (L0C) tile's M dimension is padded to, per dtype; 16 for a dtype not "
        "listed; without the fact INT32 pads to 32 (docs/memory_planning.md, sizes)"),
    "split_load_tpop_hazard": (
        "True: in a split AIV kernel a tile computed from a popped cube tile must not take the buffer of a loaded "
        "tile read last by that computation; MemoryReuse keeps them apart (docs/passes/memory_reuse.md)"),
    "l0_cost_model": (
        "{figure: value}: the cube's roofline figures the L0 tile chooser scores tiles with (bw_a, bw_b, bw_drain, "
        "drain_fixed_cycles, drain_row_cycles, drain_penalty_cycles, drain_c0_bytes, mad_head, "
        "mad_k_fractal_bytes, mad_fp32_passes); a figure not stated keeps the chooser's default "
        "(docs/passes/auto_tile_matmul_l0.md, the cost model)"),
    "l0_fractal_alignment": (
        "the cube fractal an L0 tile's m, n and k are multiples of, and the K a matmul must be a multiple of "
        "for AutoTileMatmulL0 to tile it; 16 without the fact"),
    "min_l0_tile_dim": "the smallest m, n and k of an L0 tile; 16 without the fact",
    "low_precision_mat_scratch": (
        "True when a matmul result reused as a matmul operand must be narrowed to BF16 / FP16 before it is "
        "assembled into a Mat scratch (AutoTileMatmulL0 then refuses an FP32 scratch); False without the fact"),
    "mat_to_bias_moves": (
        "the (bias dtype, accumulator dtype) pairs a Mat -> Bias move converts, for matmul_bias with a Mat bias "
        "(AutoTileMatmulL0); none without the fact"),
}

_NZ_SPACES = (MemorySpace.Mat, MemorySpace.Left, MemorySpace.Right)


@dataclass(frozen=True)
class CoreGroup:
    """One core group as the reference machine models it: cube core(s), vector lanes, FIFO depth."""

    aic_cores: int = 1
    aiv_lanes: int = 2
    default_fifo_depth: int = 2  # slots of a cross-core pipe when its setup op does not say


@dataclass(frozen=True)
class Backend:
    name: str
    capabilities: Mapping[str, bool]
    memory_capacity: Mapping[MemorySpace, int]  # bytes per core for each on-chip space
    core_group: CoreGroup = field(default_factory=CoreGroup)
    description: str = ""
    facts: Mapping[str, Any] = field(default_factory=dict)  # FACTS: those this backend states

    def __post_init__(self) -> None:
        missing = sorted(set(CAPABILITIES) - set(self.capabilities))
        unknown = sorted(set(self.capabilities) - set(CAPABILITIES))
        if missing or unknown:
            raise ValueError(f"backend '{self.name}': capabilities must state exactly {sorted(CAPABILITIES)} "
                             f"(missing {missing}, unknown {unknown})")
        unknown_facts = sorted(set(self.facts) - set(FACTS))
        if unknown_facts:
            raise ValueError(f"backend '{self.name}': unknown facts {unknown_facts} (known: {sorted(FACTS)})")

    def capability(self, name: str) -> bool:
        if name not in self.capabilities:
            hint = difflib.get_close_matches(name, list(CAPABILITIES), n=1)
            raise KeyError(f"unknown backend capability '{name}'" + (f"; did you mean '{hint[0]}'?" if hint else ""))
        return bool(self.capabilities[name])

    def fact(self, name: str, default: Any = None) -> Any:
        """A fact this backend states (FACTS), or `default` when it states none."""
        if name not in FACTS:
            hint = difflib.get_close_matches(name, list(FACTS), n=1)
            raise KeyError(f"unknown backend fact '{name}'" + (f"; did you mean '{hint[0]}'?" if hint else ""))
        return self.facts.get(name, default)

    @property
    def requires_no_split_dual_aiv_dispatch(self) -> bool:
        return self.capability("requires_no_split_dual_aiv_dispatch")

    @property
    def requires_vtoc_fractal_adapt(self) -> bool:
        return self.capability("requires_vtoc_fractal_adapt")

    @property
    def requires_gm_pipe_buffer(self) -> bool:
        return self.capability("requires_gm_pipe_buffer")

    def capacity(self, space: MemorySpace) -> int:
        """Bytes a kernel may plan in `space` (docs/memory_planning.md, capacities); 0 for a space this backend
        does not have on chip (DDR is never bounded), which no capacity check checks."""
        return int(self.memory_capacity.get(space, 0))

    def get_mem_size(self, space: MemorySpace) -> int:
        """PyPTO's name of `capacity`."""
        return self.capacity(space)

    def cross_core_transfer_view(self, source: TileType, target_memory: MemorySpace) -> TileView:
        """Layout of a tile popped on the other core: NZ for cube spaces, the source layout kept for Vec."""
        valid = source.tile_view.valid_shape if source.tile_view is not None else ()
        if target_memory in _NZ_SPACES:
            return TileView(valid_shape=valid, blayout=TileLayout.col_major, slayout=TileLayout.row_major)
        return source.effective_view()
