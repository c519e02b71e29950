"""A tile larger than the backend's whole memory space is refused at compile time (docs/memory_planning.md): the
located error names the space, the function, the bytes and the backend's limit. The limit is the backend's data:
the same tile fits Ascend950's Vec (245760 bytes) and not Ascend910B's (188416)."""

from __future__ import annotations

import pytest

from pypto_plugins.pass_tile.tests.helpers import compiled, rejected

KERNEL = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [ROWS, COLS])
            u = pl.add(t, 1.0)
            out = pl.store(u, [0, 0], out)
        return out
'''


def kernel(rows: int, cols: int) -> str:
    return KERNEL.replace("ROWS", str(rows)).replace("COLS", str(cols))


@pytest.mark.parametrize("backend, limit", [("Ascend910B", 188416), ("Ascend950", 245760)])
def test_a_tile_larger_than_its_space_is_a_located_error_with_the_figures(backend: str, limit: int):
    rejected(kernel(1024, 2048), backend,
             rf"Vec buffer usage \(8388608 bytes\) exceeds platform limit \({limit} bytes\): function "
             rf"'main_incore_0' needs 8388608 bytes of Vec but backend {backend} provides {limit}.*Use smaller tiles")


def test_the_limit_is_the_backend_s():
    rejected(kernel(32, 1920), "Ascend910B", r"Vec buffer usage \(245760 bytes\) exceeds platform limit \(188416")
    compiled(kernel(32, 1920), "Ascend950")  # 245760 bytes: Ascend950's whole Vec


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_a_tile_that_fits_compiles_and_runs(backend: str):
    compiled(kernel(64, 256), backend)
