"""A hand-written tile.tpush_to_aiv checks nothing of the pushed tile's valid shape, for any split: the whole
[R, C] box crosses, each lane takes its half, and the consumer annotates the popped tile's valid shape
(docs/reference/ops.md). The narrowed-column rules stay with pl.aiv_shard (tile.aiv_shard). Expected values:
numpy's a @ b inside the valid region [vr, vc]; the rest is don't-care."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import run_program, shape_from_backend
from pypto_core.testing import checked_pipeline

from .parity_helpers import BACKENDS

PROGRAM = """
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, a: pl.Tensor[[16, 16], pl.BF16], b: pl.Tensor[[16, 16], pl.BF16], vr: pl.Scalar[pl.INDEX],
             vc: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="c2v", peer_func="vec")
        pl.system.aic_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, slot_num=2)
        la = pl.move(pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        rb = pl.move(pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        part = pl.tile.set_validshape(pl.matmul(la, rb), _VR_, _VC_)
        pl.tile.tpush_to_aiv(part, split=_SPLIT_)

    @pl.function(type=pl.FunctionType.AIV, attrs={"split_aiv": True, "split": pl.SplitMode._MODE_})
    def vec(self, a: pl.Tensor[[16, 16], pl.BF16], b: pl.Tensor[[16, 16], pl.BF16], vr: pl.Scalar[pl.INDEX],
            vc: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="c2v", size=2048, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=1024, slot_num=2)
        popped: _POP_ = pl.tile.tpop_from_aic(split=_SPLIT_)
        r = pl.store(popped, _OFFSET_, out)
        pl.system.tfree_to_aic(popped)
        return r

    @pl.function(type=pl.FunctionType.Group)
    def main(self, a: pl.Tensor[[16, 16], pl.BF16], b: pl.Tensor[[16, 16], pl.BF16], vr: pl.Scalar[pl.INDEX],
             vc: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        self.cube(a, b, vr, vc, out)
        r = self.vec(a, b, vr, vc, out)
        return r
"""

V = "pl.Mem.Vec"
# each lane pops its half of the box, annotated with the valid part it uses
POPS = {1: (f"pl.Tile[[8, 16], pl.FP32, {V}, pl.TileView(valid_shape=[8, _VC_])]", "[sb * 8, 0]"),
        2: (f"pl.Tile[[16, 8], pl.FP32, {V}, pl.TileView(valid_shape=[_VR_, 8])]", "[0, sb * 8]")}


def program(split: int, vr: str, vc: str) -> str:
    pop, offset = POPS[split]
    text = PROGRAM.replace("_POP_", pop).replace("_OFFSET_", offset).replace("_SPLIT_", str(split))
    text = text.replace("_MODE_", "UP_DOWN" if split == 1 else "LEFT_RIGHT")
    return text.replace("_VR_", vr).replace("_VC_", vc)


# The three cases our check refused: runtime columns (narrowed or at full width), narrowed columns under
# LEFT_RIGHT, narrowed rows and columns together under UP_DOWN.
CASES = {
    "runtime columns, UP_DOWN": (1, "vr", "vc", 13, 10),
    "runtime full-width columns, UP_DOWN": (1, "vr", "vc", 16, 16),
    "static narrowed columns, LEFT_RIGHT": (2, "16", "12", 16, 12),
    "runtime columns, LEFT_RIGHT": (2, "vr", "vc", 11, 13),
    "static rows and columns, UP_DOWN": (1, "13", "12", 13, 12),
}


def inputs(vr: int, vc: int) -> dict:
    rng = np.random.default_rng(vr * 16 + vc)
    a = rng.integers(-3, 4, (16, 16)).astype(ml_dtypes.bfloat16)
    b = rng.integers(-3, 4, (16, 16)).astype(ml_dtypes.bfloat16)
    return {"a": a, "b": b, "vr": vr, "vc": vc, "out": np.zeros((16, 16), np.float32)}


def check(outputs: dict, feed: dict, vr: int, vc: int, label: str) -> None:
    want = feed["a"].astype(np.float32) @ feed["b"].astype(np.float32)
    np.testing.assert_array_equal(outputs["out"][:vr, :vc], want[:vr, :vc], err_msg=label)


@pytest.mark.parametrize("case", sorted(CASES))
def test_accepted_and_right_inside_the_valid_region(case: str) -> None:
    split, vr_text, vc_text, vr, vc = CASES[case]
    prog = pl.parse(program(split, vr_text, vc_text))
    feed = inputs(vr, vc)
    for backend in BACKENDS:
        check(run_program(prog, feed, "main", shape_from_backend(backend)), feed, vr, vc, f"{case} ({backend})")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", ["runtime columns, UP_DOWN", "static narrowed columns, LEFT_RIGHT"])
def test_compiled(case: str, backend: str) -> None:
    split, vr_text, vc_text, vr, vc = CASES[case]
    before = pl.parse(program(split, vr_text, vc_text))
    after = checked_pipeline(backend).run(before)
    feed = inputs(vr, vc)
    check(run_program(after, feed, "main", shape_from_backend(backend)), feed, vr, vc,
          f"{case}, after the default pipeline ({backend})")
