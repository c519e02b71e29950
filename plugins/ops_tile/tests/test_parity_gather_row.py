"""tile.gather_row with valid_shape (docs/reference/ops.md): the result is exactly dst's type; the valid_shape
window (default `shapes`) of src at src_offset is copied to dst_offset and the rest of dst keeps its data. No
offset is bounded when the program is built (a `shapes` window may overhang dst); the program keeps
dst_offset + valid_shape within dst, and the machine reports a located error otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.interp import run_program
from pypto_core.interp.errors import MachineError

from .parity_helpers import BACKENDS, HEADER, as_written, compiled

PL = {np.float32: "pl.FP32", np.float16: "pl.FP16", np.int32: "pl.INT32"}

RUNTIME = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[8, 8], _DT_], r: pl.Scalar[pl.INDEX],
          out: pl.Out[pl.Tensor[[4, 8], _DT_]]) -> pl.Tensor[[4, 8], _DT_]:
        acc = pl.tile.load(src, [4, 0], [4, 8], target_memory=pl.Mem.Vec)
        acc2 = pl.tile.gather_row(acc, src, [_DO_, 0], [0, 0], [4, 8], valid_shape=[_VR_, 8])
        out = pl.store(acc2, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[8, 8], _DT_], r: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[4, 8], _DT_]]) -> pl.Tensor[[4, 8], _DT_]:
        out = self.k(src, r, out)
        return out
"""


def program(dtype: type, dst_row: int = 0, valid_rows: str = "r") -> str:
    return (RUNTIME.replace("_DT_", PL[dtype]).replace("_DO_", str(dst_row)).replace("_VR_", valid_rows))


def expected(src: np.ndarray, dst_row: int, rows: int) -> np.ndarray:
    """acc = src[4:8]; then rows [dst_row, dst_row + rows) get src[0:rows]."""
    want = src[4:8].copy()
    rows = max(0, min(rows, 4))
    want[dst_row: dst_row + rows] = src[:rows]
    return want


def source(dtype: type) -> np.ndarray:
    return np.arange(64).reshape(8, 8).astype(dtype)


def test_the_sections_example() -> None:
    src = source(np.float32)
    want = expected(src, 0, 3)
    assert want[:, 0].tolist() == [0, 8, 16, 56]
    prog = as_written(program(np.float32), {"src": src, "r": 3, "out": np.zeros((4, 8), np.float32)}, {"out": want})
    assert "acc2: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.gather_row(" in ir.python_print(prog)
    want = expected(src, 1, 3)
    assert want[:, 0].tolist() == [32, 0, 8, 16]
    as_written(program(np.float32, 1, "3"), {"src": src, "r": 0, "out": np.zeros((4, 8), np.float32)},
               {"out": want})


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
@pytest.mark.parametrize("rows", [0, 1, 3, 4])
def test_a_runtime_valid_shape_narrows_only_the_transfer(rows: int, dtype: type) -> None:
    src = source(dtype)
    as_written(program(dtype), {"src": src, "r": rows, "out": np.zeros((4, 8), dtype)},
               {"out": expected(src, 0, rows)})


@pytest.mark.parametrize("dst_row,rows", [(1, 3), (2, 2), (3, 1), (0, 4)])
def test_a_shapes_window_may_overhang_dst(dst_row: int, rows: int) -> None:
    src = source(np.float32)
    as_written(program(np.float32, dst_row, str(rows)), {"src": src, "r": 0, "out": np.zeros((4, 8), np.float32)},
               {"out": expected(src, dst_row, rows)})


def test_a_transfer_past_dst_is_a_located_machine_error() -> None:
    prog = pl.parse(HEADER + program(np.float32, 2))  # 2 + r rows: past dst's 4 when r = 3
    with pytest.raises(MachineError, match=r"tile.gather_row writes past the end of dimension 0: offset 2 \+ "
                                           r"extent 3 exceeds the target extent 4") as info:
        run_program(prog, {"src": source(np.float32), "r": 3, "out": np.zeros((4, 8), np.float32)})
    assert info.value.span is not None and "acc2 = pl.tile.gather_row(" in str(info.value)  # located


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("dst_row", "rows", "dtype"), [(0, "r", np.float32), (1, "3", np.float16),
                                                        (0, "r", np.int32)])
def test_compiled(dst_row: int, rows: str, dtype: type, backend: str) -> None:
    src = source(dtype)
    for r in (1, 3):
        compiled(program(dtype, dst_row, rows), {"src": src, "r": r, "out": np.zeros((4, 8), dtype)},
                 {"out": expected(src, dst_row, r if rows == "r" else int(rows))}, backend)


TRANSPOSED = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, src: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 4], pl.FP32]]) -> pl.Tensor[[8, 4], pl.FP32]:
        acc = pl.tile.load(src, [0, 4], [8, 4], target_memory=pl.Mem.Vec)
        acc2 = pl.tile.gather_row(acc, src, [0, 1], [2, 0], [4, 8], True, valid_shape=[2, 8])
        out = pl.store(acc2, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, src: pl.Tensor[[8, 8], pl.FP32], out: pl.Out[pl.Tensor[[8, 4], pl.FP32]]) -> pl.Tensor[[8, 4], pl.FP32]:
        out = self.k(src, out)
        return out
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_transposed_with_a_static_valid_shape(backend: str) -> None:
    src = source(np.float32)
    want = src[:, 4:8].copy()
    want[:, 1:3] = src[2:4].T  # a [4, 8] window at column 1 would overhang the 4 columns; 2 rows fit
    as_written(TRANSPOSED, {"src": src, "out": np.zeros((8, 4), np.float32)}, {"out": want}, backend)
    compiled(TRANSPOSED, {"src": src, "out": np.zeros((8, 4), np.float32)}, {"out": want}, backend)
