"""Fuzz regressions around `pl.split_aiv` regions (programs the generator of tests/fuzz wrote).

* A data-parallel (UP_DOWN) region whose body distributes its work over the lanes itself through a loop
  bound made from the lane index would be halved again by LowerAutoVectorSplit (rows left unwritten). A lane
  reference is trusted only on the read offset of an address-carrying op; a loop or an if steered by the lane
  is the task-parallel form, so AivSplitValid check (k) rejects it on the input and points at
  pl.SplitMode.NONE.
* A value computed per lane in one region (a load addressed by its aiv_id) and used in a sibling region:
  the reference machine lets it leave the region as lane 0's value, the outlined kernel keeps each lane's,
  so OutlineIncoreScopes would change the outputs. Check (i) covers every per-lane value, not only shards,
  and rejects it on the input.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.fuzz.oracle import check_text  # noqa: E402

BACKENDS = ("Ascend910B", "Ascend950")

FINDING_001 = '''
import pypto.language as pl


@pl.program
class Gen31:
    @pl.function(type=pl.FunctionType.InCore)
    def helper3(self, x7: pl.Tensor[[32, 32], pl.BF16]) -> pl.Tensor[[32, 32], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k5"):
            y6 = pl.sub(x7, x7)
        return y6

    @pl.function
    def main(self, out11: pl.Out[pl.Tensor[[32, 16], pl.FP32]], out13: pl.Out[pl.Tensor[[32, 32], pl.FP32]], x18: pl.Tensor[[32, 32], pl.FP16], out19: pl.Out[pl.Tensor[[32, 32], pl.FP16]], out27: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out29: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out31: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[32, 32], pl.FP32], pl.Tensor[[32, 32], pl.FP16], pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[64, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv17 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                for i20 in pl.range(aiv17, 4, 2):
                    s21 = pl.slice(x18, [8, 32], [i20 * 8, 0])
                    out19 = pl.assemble(out19, pl.add(s21, s21), [i20 * 8, 0])
        return out11, out13, out19, out27, out29, out31
'''

FINDING_002 = '''
import pypto.language as pl


@pl.program
class Gen12:
    @pl.function
    def helper1(self, p2: pl.Tensor[[16, 32], pl.BF16]) -> pl.Tensor[[16, 32], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y3 = pl.mul(p2, p2)
        return y3

    @pl.function
    def main(self, x5: pl.Tensor[[64, 32], pl.FP32], out6: pl.Out[pl.Tensor[[64, 32], pl.FP32]], x7: pl.Tensor[[16, 32], pl.BF16], x10: pl.Tensor[[64, 64], pl.FP32], out11: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> tuple[pl.Tensor[[64, 32], pl.FP32], pl.Tensor[[64, 64], pl.FP32]]:
        h8 = self.helper1(x7)
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv9 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t12 = pl.load(x10, [aiv9 * 32, 0], [32, 64])
            for aiv9 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                out11 = pl.store(pl.tile.sub(pl.tile.neg(t12), t12), [aiv9 * 32, 0], out11)
        return out6, out11
'''

PROGRAM = '''
import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> pl.Tensor[[64, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
{body}
        return out
'''


def program(body: str) -> str:
    return PROGRAM.format(body=body.strip("\n"))


STEERING = "lane index .* pl.split_aiv region.*pl.SplitMode.NONE"
SIBLING = "is computed per lane in another pl.split_aiv region.*used in this one"


def rejected(text: str, backend: str, pattern: str, line: str) -> None:
    import re

    outcome = check_text(text, backend)
    assert outcome.status == "input-rejected", outcome
    assert "AivSplitValid" in outcome.detail
    assert re.search(pattern, outcome.detail, re.S), outcome.detail
    assert line in outcome.detail, outcome.detail  # located: the source line is quoted under its --> location
    assert "-->" in outcome.detail


def compiled(text: str, backend: str) -> None:
    outcome = check_text(text, backend)
    assert outcome.status == "compiled", outcome  # under check-run: outputs equal after every pass


# -- the lane index steering a data-parallel region's control flow ---------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lane_strided_loop_in_an_up_down_region_is_rejected(backend: str) -> None:
    rejected(FINDING_001, backend, STEERING, "for i20 in pl.range(aiv17, 4, 2):")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_loop_bound_through_a_lane_scalar_in_a_left_right_region_is_rejected(backend: str) -> None:
    text = program("""
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                n = aiv + 1
                for i in pl.range(n):
                    t = pl.load(a, [0, i * 16], [64, 16])
                    out = pl.store(pl.tile.exp(t), [0, i * 16], out)
    """)
    rejected(text, backend, STEERING, "for i in pl.range(n):")


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_if_on_the_lane_in_an_up_down_region_is_rejected(backend: str) -> None:
    text = program("""
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                if aiv == 0:
                    out = pl.assemble(out, pl.exp(a), [0, 0])
    """)
    rejected(text, backend, STEERING, "if aiv == 0:")


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_lane_strided_loop_in_a_none_region_compiles(backend: str) -> None:
    compiled(FINDING_001.replace("mode=pl.SplitMode.UP_DOWN", "mode=pl.SplitMode.NONE"), backend)


# -- a per-lane value of one region used in a sibling region -----------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_a_per_lane_load_used_in_a_sibling_region_is_rejected(backend: str) -> None:
    rejected(FINDING_002, backend, SIBLING, "out11 = pl.store(pl.tile.sub(pl.tile.neg(t12), t12)")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_lane_derived_scalar_used_in_a_sibling_none_region_is_rejected(backend: str) -> None:
    text = program("""
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                base = aiv * 32
                t = pl.load(a, [base, 0], [32, 32])
                out = pl.store(t, [base, 0], out)
            for aiv2 in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                u = pl.load(a, [base, 0], [32, 32])
                out = pl.store(pl.tile.exp(u), [base, 0], out)
    """)
    rejected(text, backend, "'base' " + SIBLING, "u = pl.load(a, [base, 0], [32, 32])")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_per_lane_tile_computed_from_a_load_reaching_a_sibling_region_is_rejected(backend: str) -> None:
    text = program("""
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                t = pl.load(a, [aiv * 32, 0], [32, 32])
                e = pl.tile.exp(t)
                out = pl.store(e, [aiv * 32, 0], out)
            for aiv2 in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                out = pl.store(pl.tile.neg(e), [aiv2 * 32, 0], out)
    """)
    rejected(text, backend, "'e' " + SIBLING, "out = pl.store(pl.tile.neg(e), [aiv2 * 32, 0], out)")


@pytest.mark.parametrize("backend", BACKENDS)
def test_each_region_loading_its_own_lane_part_compiles(backend: str) -> None:
    """The fix the message asks for: the sibling region makes its own per-lane value."""
    fixed = FINDING_002.replace("out11 = pl.store(pl.tile.sub(pl.tile.neg(t12), t12)",
                                "t13 = pl.load(x10, [aiv9 * 32, 0], [32, 64])\n"
                                "                out11 = pl.store(pl.tile.sub(pl.tile.neg(t13), t13)")
    compiled(fixed, backend)


# -- a hard barrier under the lane's control flow (fuzz campaign, seed 2) ------------------------------------
HARD_BARRIER = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.NONE})
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            for i, (count, dst) in pl.range(aiv_id, 3, 2, init_values=(0, out)):
                t = pl.tile.load(x, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
                more = count + 1
                d2 = pl.tile.store(t, [i * 16, 0], dst)
                count2, dst2 = pl.yield_(more, d2)
            BARRIER
        return dst2
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_hard_barrier_under_a_condition_on_the_lane_is_a_located_error(backend: str) -> None:
    """Only one lane would arrive: the barrier never completes. Was the verifier's "bug in that pass" after
    ExpandMixedKernel; now LowerAutoVectorSplit refuses the user's region, located at the barrier."""
    text = HARD_BARRIER.replace("BARRIER", "first = aiv_id == 0\n            if first:\n"
                                "                pl.system.syncall(core_type='aiv_only', mode='hard')")
    outcome = check_text(text, backend)
    assert outcome.status == "pipeline-rejected", outcome
    assert "LowerAutoVectorSplit: in InCore function 'k', a hard system.syncall under a condition on the lane " \
           "index of a pl.split_aiv region" in outcome.detail, outcome.detail
    assert "pl.system.syncall(core_type='aiv_only', mode='hard')" in outcome.detail  # located


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_hard_barrier_both_lanes_reach_compiles(backend: str) -> None:
    compiled(HARD_BARRIER.replace("BARRIER", "pl.system.syncall(core_type='aiv_only', mode='hard')"), backend)


# -- a mixed kernel returning another type than it declares (fuzz campaign, seed 3) ---------------------------
WRONG_RETURN = '''
import pypto.language as pl

@pl.program
class Before:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def split_auto(qk: pl.Tile[[64, 64], pl.FP32, pl.Mem.Mat], out_0: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], DTYPE]:
        popped: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        y: pl.Tile[[64, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(popped, popped)
        out_store: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(y, [0, 0], out_0)
        return out_store
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_mixed_kernel_returning_another_dtype_than_declared_is_a_located_error(backend: str) -> None:
    """The parser accepts it uncalled (as PyPTO); splitting it adds the Group wrapper's call, which would read the
    declared BOOL (was a round-trip failure after ExpandMixedKernel)."""
    outcome = check_text(WRONG_RETURN.replace("DTYPE", "pl.BOOL"), backend)
    assert outcome.status == "pipeline-rejected", outcome
    assert "ExpandMixedKernel: the return value of InCore function 'split_auto' is a pl.Tensor[[64, 64], " \
           "pl.FP32], but the function declares pl.Tensor[[64, 64], pl.BOOL]" in outcome.detail, outcome.detail
    compiled(WRONG_RETURN.replace("DTYPE", "pl.FP32"), backend)
