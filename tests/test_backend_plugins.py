"""The backend interface, its two bundled implementations, `pypto.backend` and `PassContext.backend`."""

from __future__ import annotations

import pytest

from pypto import backend, ir, passes
from pypto.backend import BackendType
from pypto_core.backend import CAPABILITIES, Backend, CoreGroup, active_backend
from pypto_core.backend.registry import BACKENDS, get_backend
from pypto_core.plugins.host import reload_plugins

from .test_pipeline_toys import support

clean_backend = support.clean_backend  # shared fixture
clean_plugins = support.clean_plugins  # shared fixture


def test_the_two_backends_state_opposite_flags(clean_backend):
    b910, b950 = get_backend("Ascend910B"), get_backend("Ascend950")
    assert (b910.requires_no_split_dual_aiv_dispatch, b910.requires_vtoc_fractal_adapt,
            b910.requires_gm_pipe_buffer) == (True, False, True)
    assert (b950.requires_no_split_dual_aiv_dispatch, b950.requires_vtoc_fractal_adapt,
            b950.requires_gm_pipe_buffer) == (False, True, False)
    assert BACKENDS.owner("Ascend910B") == "backend_ascend910b"
    assert BACKENDS.owner("Ascend950") == "backend_ascend950"


def test_core_group_and_memory(clean_backend):
    for name in ("Ascend910B", "Ascend950"):
        b = get_backend(name)
        assert (b.core_group.aic_cores, b.core_group.aiv_lanes) == (1, 2)
        assert b.core_group.default_fifo_depth >= 1
        assert b.capacity(ir.MemorySpace.Vec) > 0 and b.capacity(ir.MemorySpace.Acc) > 0
        assert b.capacity(ir.MemorySpace.DDR) == 0  # not an on-chip space
    assert get_backend("Ascend950").capacity(ir.MemorySpace.Vec) > get_backend("Ascend910B").capacity(ir.MemorySpace.Vec)


def test_cross_core_transfer_view_is_nz_for_cube_spaces_and_kept_for_vec(clean_backend):
    b = get_backend("Ascend910B")
    source = ir.TileType([128, 64], ir.DataType.FP32, tile_view=ir.TileView(valid_shape=[127, 64]),
                         memory_space=ir.MemorySpace.Vec)
    for space in (ir.MemorySpace.Mat, ir.MemorySpace.Left, ir.MemorySpace.Right):
        view = b.cross_core_transfer_view(source, space)
        assert (view.blayout, view.slayout) == (ir.TileLayout.col_major, ir.TileLayout.row_major)
        assert [d.value for d in view.valid_shape] == [127, 64]
    kept = b.cross_core_transfer_view(source, ir.MemorySpace.Vec)
    assert ir.structural_equal(kept, source.tile_view)


def test_capabilities_are_named_and_complete():
    b = get_backend("Ascend910B")
    assert b.capability("requires_gm_pipe_buffer") is True
    with pytest.raises(KeyError, match="did you mean 'requires_gm_pipe_buffer'"):
        b.capability("requires_gm_pipe_bufer")
    with pytest.raises(ValueError, match=r"missing \['requires_gm_pipe_buffer'\]"):
        Backend("Half", {k: False for k in CAPABILITIES if k != "requires_gm_pipe_buffer"}, {})
    with pytest.raises(ValueError, match=r"unknown \['fast'\]"):
        Backend("Extra", {**{k: False for k in CAPABILITIES}, "fast": True}, {}, CoreGroup())


# -- pypto.backend ------------------------------------------------------------------------------------
def test_backend_type_members():
    assert list(BackendType.__members__) == ["Ascend910B", "Ascend950"]
    assert BackendType.Ascend950.name == "Ascend950"


def test_set_get_reset(clean_backend):
    assert not backend.is_backend_configured()
    with pytest.raises(ValueError, match="no backend is configured"):
        backend.get_backend_type()
    backend.set_backend_type(BackendType.Ascend950)
    backend.set_backend_type(BackendType.Ascend950)  # idempotent
    assert backend.get_backend_type() is BackendType.Ascend950
    with pytest.raises(ValueError, match="already set to Ascend950; cannot change it to Ascend910B"):
        backend.set_backend_type(BackendType.Ascend910B)
    backend.reset_for_testing()
    assert not backend.is_backend_configured()
    backend.set_backend_type(BackendType.Ascend910B)
    assert backend.get_backend_type() is BackendType.Ascend910B


def test_pass_context_backend_resolution(clean_backend):
    assert passes.PassContext([]).backend.name == "Ascend910B"  # nothing chosen: the default
    backend.set_backend_type(BackendType.Ascend950)
    assert passes.PassContext([]).backend.name == "Ascend950"  # the process-wide choice
    assert passes.PassContext([], backend="Ascend910B").backend.name == "Ascend910B"  # the context's own
    assert passes.PassContext([], backend=BackendType.Ascend910B).backend.name == "Ascend910B"
    assert active_backend("ascend950").name == "Ascend950"


def test_a_disabled_backend_plugin_is_a_clear_error(clean_backend, clean_plugins):
    reload_plugins(disabled=["backend_ascend910b"], extra=[])
    with pytest.raises(ValueError, match="unknown backend 'Ascend910B'.*is the plugin that provides it disabled"):
        passes.PassContext([]).backend  # noqa: B018
    assert passes.PassContext([], backend="Ascend950").backend.name == "Ascend950"


def test_capacities_are_the_backends_data():
    # docs/memory_planning.md, capacities per backend
    V, M, L, R, A, B, LS, RS = (ir.MemorySpace.Vec, ir.MemorySpace.Mat, ir.MemorySpace.Left, ir.MemorySpace.Right,
                                ir.MemorySpace.Acc, ir.MemorySpace.Bias, ir.MemorySpace.LeftScale,
                                ir.MemorySpace.RightScale)
    b910, b950 = get_backend("Ascend910B"), get_backend("Ascend950")
    assert [b910.capacity(s) for s in (V, M, L, R, A, B, LS, RS)] == \
        [188416, 524288, 65536, 65536, 131072, 1024, 0, 0]
    assert [b950.get_mem_size(s) for s in (V, M, L, R, A, B, LS, RS)] == \
        [245760, 524288, 65536, 65536, 262144, 4096, 4096, 4096]
    assert b910.fact("acc_row_alignment") == {ir.DataType.INT32: 32} and b950.fact("acc_row_alignment") == {}
