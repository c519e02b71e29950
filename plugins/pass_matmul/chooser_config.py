"""The L0 tile chooser's configuration for a matmul on a backend (docs/passes/auto_tile_matmul_l0.md, the
chooser's configuration): capacities, alignments and cost figures are the backend's data, never a table here,
so a third-party backend tunes the chooser by stating its own (docs/reference/backends.md)."""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.memory import acc_row_alignment
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_plugins.pass_matmul.l0_tile_chooser import COST_MODEL_FIELDS, L0TileConfig

DEFAULT_FRACTAL = 16  # the cube fractal without the backend's l0_fractal_alignment fact
DEFAULT_MIN_TILE = 16  # the smallest L0 tile dim without the backend's min_l0_tile_dim fact


def fractal_alignment(backend: Any) -> int:
    return int(backend.fact("l0_fractal_alignment", DEFAULT_FRACTAL))


def min_tile_dim(backend: Any) -> int:
    return int(backend.fact("min_l0_tile_dim", DEFAULT_MIN_TILE))


def element_bytes(dtype: DataType) -> int:
    return max(1, dtype.get_byte())


def backend_config(backend: Any, m: int, n: int, k: int, lhs: DataType, rhs: DataType, acc: DataType, *,
                   allow_stationary: bool, allow_double_buffer_c: bool, c_read: bool) -> L0TileConfig:
    """AutoTileMatmulL0's chooser configuration for an `[m, k] x [k, n]` product accumulating in `acc`."""
    cfg = L0TileConfig()
    cfg.M, cfg.N, cfg.K = m, n, k
    cfg.l0a_bytes = backend.capacity(MemorySpace.Left)
    cfg.l0b_bytes = backend.capacity(MemorySpace.Right)
    cfg.l0c_bytes = backend.capacity(MemorySpace.Acc)
    cfg.bytes_a, cfg.bytes_b, cfg.bytes_c = element_bytes(lhs), element_bytes(rhs), element_bytes(acc)
    align, least = fractal_alignment(backend), min_tile_dim(backend)
    cfg.align_m = cfg.align_n = cfg.align_k = align
    cfg.min_m = cfg.min_n = cfg.min_k = least
    cfg.l0c_align_m = acc_row_alignment(acc, backend)
    cfg.allow_a_stationary = cfg.allow_b_stationary = allow_stationary
    cfg.allow_double_buffer_c = allow_double_buffer_c
    cfg.c_read = c_read
    cfg.allow_padding = False
    cfg.allow_k_boundary = True
    for name, value in dict(backend.fact("l0_cost_model", None) or {}).items():
        if name not in COST_MODEL_FIELDS:
            raise ValueError(f"backend '{backend.name}': its l0_cost_model fact names '{name}', which is no cost "
                             f"figure of the L0 tile chooser (known: {', '.join(COST_MODEL_FIELDS)})")
        setattr(cfg, name, value)
    return cfg
