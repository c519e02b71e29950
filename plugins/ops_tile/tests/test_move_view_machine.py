"""tile.move keeps the source's effective layout in Vec (docs/reference/ops.md): the machine computes the same
values whatever layout the type states, before and after the default pipeline, on both backends."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.interp import run_program, shape_from_backend

SRC = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(self, a: pl.Tensor[[16, 16], pl.FP16], b: pl.Tensor[[16, 16], pl.FP16],
             out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_l = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        b_r = pl.tile.load(b, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        c = pl.tile.matmul(pl.tile.move(a_l, target_memory=pl.Mem.Left), pl.tile.move(b_r, target_memory=pl.Mem.Right))
        v = pl.tile.move(c, target_memory=pl.Mem.Vec)
        w = pl.tile.add(v, v)
        out = pl.tile.store(w, [0, 0], out)
        return out
"""


def _pipeline(backend: str):
    from pypto_core.config import parse_config_text, resolve_config
    from pypto_core.passes.manager import PassManager

    loaded = parse_config_text(f'backend = "{backend}"\nverify = "basic"\n[pipeline]\npasses = ["default"]\n',
                               "<move view tests>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend, verify="basic")


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_an_acc_tile_moved_to_vec_keeps_its_layout_and_computes_the_same(backend: str):
    program = pl.parse(SRC)
    printed = ir.python_print(program)
    assert "pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = " \
           "pl.tile.add(v, v)" in printed, printed
    rng = np.random.default_rng(3)
    a = rng.standard_normal((16, 16)).astype(np.float16)
    b = rng.standard_normal((16, 16)).astype(np.float16)
    shape = shape_from_backend(backend)
    want = 2 * (a.astype(np.float64) @ b.astype(np.float64))
    before = run_program(program, {"a": a, "b": b, "out": np.zeros((16, 16), np.float32)}, None, shape)
    np.testing.assert_allclose(before["out"], want, rtol=1e-2, atol=1e-2)
    after = run_program(_pipeline(backend).run(program), {"a": a, "b": b, "out": np.zeros((16, 16), np.float32)},
                        None, shape)
    np.testing.assert_array_equal(after["out"], before["out"])
