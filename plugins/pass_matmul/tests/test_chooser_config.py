"""The chooser's configuration comes from the backend's data (capacities and facts), so a third-party backend
tunes it without any change here (docs/passes/auto_tile_matmul_l0.md, the chooser's configuration); and
`passes.l0_tile_chooser` resolves through the plugin registry (docs/plugins.md, hooks)."""

from __future__ import annotations

import pytest

from pypto import passes
from pypto_core.backend.backend import CAPABILITIES, Backend
from pypto_core.backend.registry import get_backend
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.plugins.host import reload_plugins
from pypto_plugins.pass_matmul.chooser_config import backend_config

BF16, FP32, INT32, INT8 = DataType.BF16, DataType.FP32, DataType.INT32, DataType.INT8


def config(backend_name_or_object, acc=FP32, lhs=BF16, **kw):
    backend = get_backend(backend_name_or_object) if isinstance(backend_name_or_object, str) else backend_name_or_object
    options = {"allow_stationary": True, "allow_double_buffer_c": False, "c_read": False, **kw}
    return backend_config(backend, 128, 256, 512, lhs, lhs, acc, **options)


def test_910b_capacities_alignment_and_cost_figures():
    cfg = config("Ascend910B")
    assert (cfg.l0a_bytes, cfg.l0b_bytes, cfg.l0c_bytes) == (65536, 65536, 131072)
    assert (cfg.bytes_a, cfg.bytes_b, cfg.bytes_c) == (2, 2, 4)
    assert (cfg.align_m, cfg.min_m, cfg.l0c_align_m) == (16, 16, 16)
    assert (cfg.bw_a, cfg.bw_b, cfg.bw_drain, cfg.mad_head, cfg.mad_fp32_passes) == (129.7, 85.4, 118.0, 21, 2)
    assert cfg.allow_k_boundary and not cfg.allow_padding
    assert config("Ascend910B", acc=INT32, lhs=INT8).l0c_align_m == 32  # INT32 accumulators pad to 32 rows


def test_950_capacities_and_cost_figures():
    cfg = config("Ascend950")
    assert cfg.l0c_bytes == 262144
    assert (cfg.bw_a, cfg.bw_b, cfg.bw_drain, cfg.drain_fixed_cycles, cfg.drain_row_cycles,
            cfg.drain_penalty_cycles, cfg.mad_head, cfg.mad_fp32_passes) == (206.3, 223.8, 30.0, 343.4, 4.59, 0.26,
                                                                            25, 8)
    assert config("Ascend950", acc=INT32, lhs=INT8).l0c_align_m == 16


def test_the_gates_and_c_read_are_the_callers():
    cfg = config("Ascend910B", allow_stationary=False, allow_double_buffer_c=True, c_read=True)
    assert (cfg.allow_a_stationary, cfg.allow_b_stationary, cfg.allow_double_buffer_c, cfg.c_read) == \
        (False, False, True, True)


def _third_party(**facts):
    return Backend(name="TinyCube", capabilities={k: False for k in CAPABILITIES},
                   memory_capacity={MemorySpace.Vec: 65536, MemorySpace.Mat: 131072, MemorySpace.Left: 16384,
                                    MemorySpace.Right: 16384, MemorySpace.Acc: 32768},
                   facts=facts)


def test_a_third_party_backend_supplies_its_own_data():
    tiny = _third_party(l0_cost_model={"bw_a": 50.0, "mad_head": 40}, l0_fractal_alignment=32,
                        min_l0_tile_dim=32, acc_row_alignment={FP32: 32})
    cfg = config(tiny)
    assert (cfg.l0a_bytes, cfg.l0b_bytes, cfg.l0c_bytes) == (16384, 16384, 32768)
    assert (cfg.bw_a, cfg.mad_head, cfg.bw_b) == (50.0, 40, 85.4)  # a figure not stated keeps the default
    assert (cfg.align_k, cfg.min_n, cfg.l0c_align_m) == (32, 32, 32)
    result = passes.l0_tile_chooser.choose_l0_tile(cfg)
    assert result.m % 32 == 0 and result.n % 32 == 0 and result.k % 32 == 0
    assert result.m * result.k * 2 * 2 <= 16384


def test_a_backend_without_the_facts_gets_the_chooser_defaults():
    cfg = config(_third_party())
    assert (cfg.bw_a, cfg.align_m, cfg.min_k) == (129.7, 16, 16)


def test_an_unknown_cost_figure_is_named():
    with pytest.raises(ValueError, match="its l0_cost_model fact names 'bw_c', which is no cost figure"):
        config(_third_party(l0_cost_model={"bw_c": 1.0}))


def test_a_blocked_pass_matmul_plugin_is_named_when_the_chooser_is_asked_for():
    reload_plugins(disabled=["pass_matmul"], extra=[])
    try:
        with pytest.raises(AttributeError, match="l0_tile_chooser.*pass_matmul"):
            passes.l0_tile_chooser  # noqa: B018
    finally:
        reload_plugins(disabled=[], extra=[])
    assert passes.l0_tile_chooser.Stationarity.AStationary == 1
