"""A loop carry takes its init value's buffer only when nothing reads that buffer once the loop starts
(docs/passes/init_mem_ref.md, loops): else InitMemRef copies the init first (`<init>_mv = pl.tile.move(...)`)
and the carry starts from the copy. Two carries started from one tile, or an init read after the loop, and the
compiled kernel computes what numpy does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.interp import run_program, shape_from_backend
from pypto_core.testing import checked_pipeline

BACKENDS = ["Ascend910B", "Ascend950"]

# the tile-lowering corpus's kernel: two carries started from one loaded tile
TWO_CARRIES_ONE_INIT = (Path(__file__).resolve().parents[3] / "tests" / "tile" / "kernels" /
                        "loop_init_values.py").read_text(encoding="utf-8")

INIT_READ_AFTER_THE_LOOP = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            first = pl.slice(x, [16, 32], [0, 0])
            for i, (s,) in pl.range(1, 4, init_values=(first,)):
                blk = pl.slice(x, [16, 32], [i * 16, 0])
                s2 = pl.add(s, blk)
                total = pl.yield_(s2)
            out = pl.assemble(out, pl.sub(total, first), [0, 0])
        return out
'''


def _carries(program: ir.Program) -> list[tuple[ir.IterArg, ir.MemRef, ir.MemRef]]:
    found = []
    for func in program.functions.values():
        for s in ir.flatten_to_stmts(func.body):
            if isinstance(s, ir.ForStmt):
                for ia in s.iter_args:
                    if isinstance(ia.type, ir.TileType):
                        found.append((ia, ia.type.memref, ia.initValue.type.memref))
    return found


def _x(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((64, 32)).astype(np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_carries_started_from_one_tile_get_two_buffers(backend: str):
    compiled = checked_pipeline(backend).run(pl.parse(TWO_CARRIES_ONE_INIT))
    carries = _carries(compiled)
    assert len(carries) == 2
    (_, s_ref, _), (_, m_ref, _) = carries
    assert m_ref.base is not s_ref.base  # two carries, two buffers
    x = _x()
    got = run_program(compiled, {"x": x, "out_sum": np.zeros((16, 32), np.float32),
                                 "out_max": np.zeros((16, 32), np.float32)}, None, shape_from_backend(backend))
    blocks = x.reshape(4, 16, 32)
    np.testing.assert_allclose(got["out_sum"], blocks.sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got["out_max"], blocks.max(axis=0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_init_read_after_the_loop_keeps_its_value(backend: str):
    compiled = checked_pipeline(backend).run(pl.parse(INIT_READ_AFTER_THE_LOOP))
    x = _x(1)
    got = run_program(compiled, {"x": x, "out": np.zeros((16, 32), np.float32)}, None, shape_from_backend(backend))
    blocks = x.reshape(4, 16, 32)
    np.testing.assert_allclose(got["out"], blocks.sum(axis=0) - blocks[0], rtol=1e-5, atol=1e-5)


def _init_mem_ref(src: str) -> ir.Program:
    tiled = checked_pipeline("Ascend910B", "tile").run(pl.parse(src))
    return passes.init_mem_ref()(tiled)


def test_init_mem_ref_copies_the_init_of_the_second_carry():
    (s_ia, s_ref, s_init), (m_ia, m_ref, m_init) = _carries(_init_mem_ref(TWO_CARRIES_ONE_INIT))
    assert s_ia.initValue.name_hint.startswith("first") and s_ref.base is s_init.base
    assert m_ia.initValue.name_hint.startswith("first_mv") and m_ref.base is m_init.base
    assert m_ref.base is not s_ref.base


def test_init_mem_ref_shares_an_init_read_only_by_the_loop():
    [(ia, carried, init)] = _carries(_init_mem_ref(INIT_READ_AFTER_THE_LOOP.replace("pl.sub(total, first)", "total")))
    assert carried.base is init.base and not ia.initValue.name_hint.endswith("_mv")


def test_init_mem_ref_copies_an_init_read_after_the_loop():
    after = _init_mem_ref(INIT_READ_AFTER_THE_LOOP)
    [(ia, carried, init)] = _carries(after)
    assert ia.initValue.name_hint.endswith("_mv") and carried.base is init.base
    func = after.get_function("main_incore_0")
    copy = [s for s in ir.flatten_to_stmts(func.body) if isinstance(s, ir.AssignStmt)
            and s.var is ia.initValue][0]
    assert copy.value.op.name == "tile.move"
    assert copy.value.args[0].type.memref.base is not carried.base
