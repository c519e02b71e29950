"""The verifiers of ExpandMixedKernel's properties (docs/passes/expand_mixed_kernel.md; docs/reference/properties.md): MixedKernelExpanded and
HardSyncallOccupancyValid hold on the pass's output, and each deliberately broken variant of an expanded
program is reported with its own message."""

from __future__ import annotations

import re

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

from .emk_helpers import BACKENDS, emk
from .test_expand_mixed_kernel import UNSPLIT


def findings(program: ir.Program, prop: str, severity: str = "Error") -> list[str]:
    props = passes.IRPropertySet()
    props.insert(getattr(passes.IRProperty, prop))
    return [d.message for d in PropertyVerifierRegistry.verify(props, program)
            if d.severity is getattr(passes.DiagnosticSeverity, severity)]


@pytest.fixture(scope="module")
def expanded_text() -> str:
    return ir.python_print(emk(UNSPLIT, "Ascend910B", run=False), format=False)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_the_pass_output_has_both_properties(backend_name: str):
    after = emk(UNSPLIT, backend_name)
    assert findings(after, "MixedKernelExpanded") == []
    assert findings(after, "HardSyncallOccupancyValid") == []


def test_an_incore_kernel_still_mixing_cores_is_reported():
    from .helpers import parse

    assert any("still mixes cube and vector work" in m for m in findings(parse(UNSPLIT), "MixedKernelExpanded"))


def test_a_pop_without_tfree_is_an_error(expanded_text: str):
    broken = pl.parse(expanded_text.replace("        pl.system.tfree_to_aiv(s_l_mat)\n", "", 1))
    assert "AIC function 'k_aic' uses tile.tpop_from_aiv but has no matching 'system.tfree_to_aiv' call" in \
        findings(broken, "MixedKernelExpanded")


BROKEN = [
    ("slot_size=4096, slot_num=2)\n        x:", "slot_size=4092, slot_num=2)\n        x:",
     r"pipe 0 is set up as .* \(3, 4096, 2\) by 'k_aic' but \(3, 4092, 2\) by 'k_aiv'"),
    ("pl.system.aic_initialize_pipe(k_c2v_slot_buffer_import, k_v2c_slot_buffer, dir_mask=3,",
     "pl.system.aic_initialize_pipe(k_c2v_slot_buffer_import, k_v2c_slot_buffer, dir_mask=2,",
     r"AIC function 'k_aic' uses C2V cross-core ops but no 'system.aic_initialize_pipe' sets that direction up"),
    ("c_v: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, "
     "slayout=pl.TileLayout.row_major)] = pl.tile.tpop_from_aic(split=0)",
     "c_v: pl.Tile[[32, 32], pl.FP32, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.col_major, "
     "slayout=pl.TileLayout.row_major)] = pl.tile.tpop_from_aic(split=0)",
     r"AIV function 'k_aiv' requires tile.tpop_from_aic result in MemorySpace::Vec, got MemorySpace::Mat"),
    ("        pl.tile.tpush_to_aiv(c, split=0)\n",
     "        pl.tile.tpush_to_aiv(c, split=0)\n        w: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.full([32, 32], "
     "dtype=pl.FP32, value=0.0)\n        pl.tile.tpush_to_aic(w, split=0)\n",
     r"AIC function 'k_aic' holds vector work \(tile.tpush_to_aic\)"),
]


@pytest.mark.parametrize("old, new, message", BROKEN, ids=["setups-differ", "push-without-setup",
                                                            "pop-in-wrong-space", "vector-transfer-on-aic"])
def test_a_broken_expansion_is_reported(expanded_text: str, old: str, new: str, message: str):
    assert old in expanded_text, old
    broken = pl.parse(expanded_text.replace(old, new, 1))
    found = findings(broken, "MixedKernelExpanded")
    assert any(re.search(message, m) for m in found), found


def test_a_slot_buffer_reserved_twice_is_reported(expanded_text: str):
    line = ("        k_v2c_slot_buffer: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name='k_v2c_slot_buffer', "
            "size=8192, base=-1)\n")
    assert line in expanded_text
    broken = pl.parse(expanded_text.replace(line, line + line.replace("k_v2c_slot_buffer:", "again:"), 1))
    found = findings(broken, "MixedKernelExpanded")
    assert any("reserves the slot buffer 'k_v2c_slot_buffer' 2 times" in m for m in found), found


# -- HardSyncallOccupancyValid -------------------------------------------------------------------------------

SYNCALL = UNSPLIT.replace("        e = pl.tile.exp(c_v)\n", "        pl.system.syncall()\n        e = pl.tile.exp(c_v)\n")


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_mix_hard_syncall_is_copied_to_both_cores(backend_name: str):
    from .emk_helpers import calls_of
    from .helpers import function

    after = emk(SYNCALL, backend_name)
    for side in ("k_aic", "k_aiv"):
        assert len(calls_of(function(after, side), "system.syncall")) == 1
    assert findings(after, "HardSyncallOccupancyValid") == []


MIX = "pl.system.syncall(core_type='mix', mode='hard')"  # as printed: both kwargs are recorded


@pytest.fixture(scope="module")
def syncall_text() -> str:
    text = ir.python_print(emk(SYNCALL, "Ascend950", run=False), format=False)
    assert text.count(MIX) == 2
    return text


def test_a_mix_syncall_reached_by_one_core_only_is_reported(syncall_text: str):
    aiv_at = syncall_text.index("def k_aiv")
    head, tail = syncall_text[:aiv_at], syncall_text[aiv_at:]
    broken = pl.parse(head + tail.replace(f"        {MIX}\n", "", 1))
    found = findings(broken, "HardSyncallOccupancyValid")
    assert any("'k_aic' reaches 1 hard mix syncall(s) but 'k_aiv' 0" in m for m in found), found


def test_a_lane_stated_syncall_on_the_other_core_is_reported(syncall_text: str):
    aiv_at = syncall_text.index("def k_aiv")
    head, tail = syncall_text[:aiv_at], syncall_text[aiv_at:]
    aiv_only = "pl.system.syncall(core_type='aiv_only', mode='hard')"
    broken = pl.parse(head.replace(MIX, aiv_only, 1) + tail.replace(MIX, aiv_only, 1))
    found = findings(broken, "HardSyncallOccupancyValid")
    assert any("AIC function 'k_aic': a hard system.syncall for the vector core" in m for m in found), found


def test_a_hard_syncall_under_a_lane_condition_is_reported(syncall_text: str):
    aiv_at = syncall_text.index("def k_aiv")
    head, tail = syncall_text[:aiv_at], syncall_text[aiv_at:]
    tail = tail.replace(f"        {MIX}\n", "        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()\n"
                        f"        if sb == 0:\n            {MIX}\n", 1)
    found = findings(pl.parse(head + tail), "HardSyncallOccupancyValid")
    assert any("under a condition on the lane index" in m for m in found), found


def _aiv_with(syncall_text: str, replacement: str) -> list[str]:
    aiv_at = syncall_text.index("def k_aiv")
    head, tail = syncall_text[:aiv_at], syncall_text[aiv_at:]
    return findings(pl.parse(head + tail.replace(f"        {MIX}\n", replacement, 1)), "HardSyncallOccupancyValid")


def test_a_hard_syncall_under_a_condition_computed_from_the_lane_index_is_reported(syncall_text: str):
    found = _aiv_with(syncall_text, "        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()\n"
                                    "        first: pl.Scalar[pl.BOOL] = sb == 0\n"
                                    f"        if first:\n            {MIX}\n")
    assert any("under a condition on the lane index" in m for m in found), found


def test_a_hard_syncall_in_a_loop_bounded_by_the_lane_index_is_reported(syncall_text: str):
    found = _aiv_with(syncall_text, "        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()\n"
                                    "        for i in pl.range(sb, 2, 1):\n"
                                    f"            {MIX}\n")
    assert any("inside a loop whose bounds read the lane index" in m for m in found), found


def test_a_hard_syncall_in_a_loop_the_lanes_share_is_not_reported(syncall_text: str):
    found = _aiv_with(syncall_text, "        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()\n"
                                    "        for i in pl.range(0, 2, 1):\n"
                                    f"            {MIX}\n")
    assert not any("lane index" in m for m in found), found
