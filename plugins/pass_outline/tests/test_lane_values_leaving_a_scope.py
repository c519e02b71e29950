"""A per-lane value that leaves its scope's kernel (docs/passes/outline_incore_scopes.md, errors).

The case: `s = pl.slice(x, [16, 64], [aiv * 16, 0])` in an UP_DOWN region, used by a later scope (or a
later top-level region, which ConvertToSSA wraps in its own scope). Outlined as written, the kernel would return
`s`, each lane its own half, both written into one output: a GM race on the machine after ConvertTensorToTileOps.
Rule (plugins/pass_outline/lanes.py, asking pypto_core/analysis/lane_dependence.py): a value depending on a
region's lane index that is used after the scope is a located ValueError at OutlineIncoreScopes, like one
used after the region inside the scope; what the lanes write into a tensor at their own offsets, and what a
splitting pl.aic_gather reassembles, is not per lane and leaves freely.
"""

from __future__ import annotations

import pytest

from pypto_core.errors import UserError
from tests.fuzz.oracle import check_text

from .helpers import outline

HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
SIG = ("    def main(self, x: pl.Tensor[[32, 64], pl.FP32], o: pl.Out[pl.Tensor[[32, 64], pl.FP32]])"
       " -> pl.Tensor[[32, 64], pl.FP32]:\n")

SLICE_USED_BY_A_LATER_SCOPE = HEAD + SIG + '''        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                s = pl.slice(x, [16, 64], [aiv * 16, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                o = pl.assemble(o, pl.maximum(s, -1.5), [aiv2 * 16, 0])
        return o
'''

SLICE_USED_BY_A_LATER_TOP_LEVEL_REGION = HEAD + SIG + '''        for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            s = pl.slice(x, [16, 64], [aiv * 16, 0])
        for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            o = pl.assemble(o, pl.maximum(s, -1.5), [aiv * 16, 0])
        return o
'''

LANE_RESULT_RETURNED_BY_THE_FUNCTION = HEAD + SIG.replace("-> pl.Tensor[[32, 64], pl.FP32]",
                                                          "-> pl.Tensor[[32, 32], pl.FP32]") + '''        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                e = pl.exp(pl.slice(x, [32, 32], [0, aiv * 32]))
        return e
'''

IF_MERGE_OF_LANE_VALUES_RETURNED = HEAD + SIG.replace("-> pl.Tensor[[32, 64], pl.FP32]",
                                                      "-> pl.Tensor[[16, 64], pl.FP32]") + '''        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                if aiv == 0:
                    h = pl.yield_(pl.slice(x, [16, 64], [0, 0]))
                else:
                    h = pl.yield_(pl.slice(x, [16, 64], [16, 0]))
        return h
'''


@pytest.mark.parametrize("src, name, line", [
    (SLICE_USED_BY_A_LATER_SCOPE, "s", 8),
    (SLICE_USED_BY_A_LATER_TOP_LEVEL_REGION, "s", 7),
    (LANE_RESULT_RETURNED_BY_THE_FUNCTION, "e", 8),
    (IF_MERGE_OF_LANE_VALUES_RETURNED, "h", 8),
], ids=["later-scope", "later-top-level-region", "returned-by-the-function", "if-merge-returned"])
def test_a_per_lane_value_leaving_its_kernel_is_located(src: str, name: str, line: int) -> None:
    with pytest.raises(UserError, match=rf"'{name}' is computed per lane in the pl.split_aiv.*(leaves its kernel|"
                                        rf"is used after that region)") as caught:
        outline(src)
    assert caught.value.span.begin_line >= line  # type: ignore[attr-defined]
    assert caught.value.span.begin_line <= line + 4  # type: ignore[attr-defined]


def test_a_slice_used_by_a_later_top_level_region_is_rejected_not_miscompiled() -> None:
    outcome = check_text(SLICE_USED_BY_A_LATER_TOP_LEVEL_REGION, "Ascend950")
    assert outcome.finding is None, outcome.finding
    # Rejected before any pass could miscompile it (the outline rule itself is tested on the passes directly
    # above; a region whose only lane reference is a store's destination is LowerAutoVectorSplit's error).
    assert outcome.status in ("pipeline-rejected", "input-rejected"), outcome


# -- what is not per lane leaves freely ---------------------------------------------------------------------

LANE_WINDOWS_WRITTEN_INTO_A_TENSOR = HEAD + SIG + '''        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                s = pl.slice(x, [16, 64], [aiv * 16, 0])
                o = pl.assemble(o, pl.exp(s), [aiv * 16, 0])
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.slice(o, [16, 64], [aiv2 * 16, 0])
                o = pl.assemble(o, pl.neg(t), [aiv2 * 16, 0])
        return o
'''

GATHERED_PARTS_USED_AFTER_THE_SCOPE = HEAD + '''    def main(self, x: pl.Tensor[[32, 64], pl.FP32], w: pl.Tensor[[64, 32], pl.FP32],
             o: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                s = pl.slice(x, [16, 64], [aiv * 16, 0])
                full = pl.aic_gather(pl.exp(s))
        with pl.at(level=pl.Level.CORE_GROUP):
            o = pl.assemble(o, pl.matmul(full, w), [0, 0])
        return o
'''


@pytest.mark.parametrize("src", [LANE_WINDOWS_WRITTEN_INTO_A_TENSOR, GATHERED_PARTS_USED_AFTER_THE_SCOPE],
                         ids=["lane-windows-written", "gathered-parts"])
@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_values_that_are_not_per_lane_leave_freely(src: str, backend: str) -> None:
    outline(src)
    outcome = check_text(src, backend)
    assert outcome.finding is None, outcome.finding
