"""The ragged matrix (test_ragged_matrix.py) on through ExpandMixedKernel: every case LowerAutoVectorSplit
accepts becomes AIC + AIV + Group whose transfer codes are the placeable ones, and computes the same on the
reference machine (lane 1's data found where the code says)."""

from __future__ import annotations

import pytest

from pypto_plugins.pass_split.split_axis.lanes import lane_extents, placeable

from .emk_helpers import calls_of, lavs_emk
from .helpers import function
from .test_ragged_matrix import BACK_TO_CUBE, CASES, ROWS, STORE, _program


def _expected_code(valid: int, stride: int, mode_code: int) -> int:
    e0, e1 = lane_extents(valid, stride)
    return mode_code + (2 if e0 == e1 + 1 and e1 != 0 else 0)


@pytest.mark.parametrize("backend_name", ["Ascend950", "Ascend910B"])
@pytest.mark.parametrize(("box", "valid"), CASES)
def test_up_down_ragged_rows_through_expand_mixed_kernel(box: int, valid: int, backend_name: str):
    after = lavs_emk(_program(ROWS, box, valid, "UP_DOWN", STORE), backend_name)
    (push,) = calls_of(function(after, "k_aic"), "tile.tpush_to_aiv")
    (pop,) = calls_of(function(after, "k_aiv"), "tile.tpop_from_aic")
    stride = push.kwargs.get("lane_stride") or (box + 1) // 2
    assert pop.kwargs == push.kwargs
    assert push.kwargs["split"] == _expected_code(valid, stride, 1)


@pytest.mark.parametrize(("box", "valid"), [c for c in CASES if placeable(*lane_extents(c[1], (c[0] + 1) // 2))])
def test_up_down_ragged_rows_back_to_the_cube_through_expand_mixed_kernel(box: int, valid: int):
    after = lavs_emk(_program(ROWS, box, valid, "UP_DOWN", BACK_TO_CUBE))
    (gather_pop,) = calls_of(function(after, "k_aic"), "tile.tpop_from_aiv")
    assert gather_pop.kwargs["split"] == 1  # a gather has only the even code


@pytest.mark.parametrize(("box", "valid"), CASES)
def test_left_right_with_ragged_rows_through_expand_mixed_kernel(box: int, valid: int):
    after = lavs_emk(_program(ROWS, box, valid, "LEFT_RIGHT", STORE))
    (push,) = calls_of(function(after, "k_aic"), "tile.tpush_to_aiv")
    assert push.kwargs["split"] == 2  # the 64 columns split evenly; the ragged rows are not the split axis
