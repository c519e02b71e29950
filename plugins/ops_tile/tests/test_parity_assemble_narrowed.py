"""tensor.assemble and the subscript-write move only the source's valid region (docs/reference/ops.md): an
offset must not provably run past the target with offset + the source's *valid* extent (a symbolic extent is
trusted), and `dst[a:b, c:d] = src` whose window differs from src's static extent is accepted when src's valid
extent on that axis is the window's or dynamic; else "Subscript-write shape mismatch on source axis i"."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.language.parser.errors import ParserTypeError

from .parity_helpers import BACKENDS, HEADER, as_written, compiled

TENSOR = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, x: pl.Tensor[[16, 8], pl.FP32], n: pl.Scalar[pl.INDEX],
             out: pl.InOut[pl.Tensor[[_TR_, _TC_], pl.FP32]]) -> pl.Tensor[[_TR_, _TC_], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.slice(x, [16, 8], [0, 0], valid_shape=[_VR_, _VC_])
            y = pl.add(s, 1.0)
            _WRITE_
        return out
"""


def tensor_program(target: tuple[int, int], valid: tuple[str, str], write: str) -> str:
    return (TENSOR.replace("_TR_", str(target[0])).replace("_TC_", str(target[1])).replace("_VR_", valid[0])
            .replace("_VC_", valid[1]).replace("_WRITE_", write))


def expected(x: np.ndarray, out: np.ndarray, at: tuple[int, int], rows: int, cols: int) -> np.ndarray:
    want = out.copy()
    want[at[0]:at[0] + rows, at[1]:at[1] + cols] = x[:rows, :cols] + 1
    return want


X = np.arange(128, dtype=np.float32).reshape(16, 8)

# (target, valid, write, offset, valid extents)
CASES = {
    "section example, assemble": ((16, 4), ("16", "4"), "out = pl.assemble(out, y, [0, 0])", (0, 0), (16, 4)),
    "section example, subscript": ((16, 4), ("16", "4"), "out[0:16, 0:4] = y", (0, 0), (16, 4)),
    "rows narrowed, at an offset": ((12, 8), ("5", "8"), "out = pl.assemble(out, y, [7, 0])", (7, 0), (5, 8)),
    "rows narrowed, subscript": ((12, 8), ("5", "8"), "out[7:12, :] = y", (7, 0), (5, 8)),
    "both narrowed, subscript": ((8, 6), ("6", "3"), "out[2:8, 3:6] = y", (2, 3), (6, 3)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_narrowed_source_on_the_machine(case: str) -> None:
    target, valid, write, at, (rows, cols) = CASES[case]
    out = np.full(target, -5, np.float32)
    as_written(tensor_program(target, valid, write), {"x": X, "n": 3, "out": out},
               {"out": expected(X, out, at, rows, cols)})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", ["section example, assemble", "section example, subscript",
                                  "both narrowed, subscript"])
def test_a_narrowed_source_compiled(case: str, backend: str) -> None:
    target, valid, write, at, (rows, cols) = CASES[case]
    out = np.full(target, -5, np.float32)
    compiled(tensor_program(target, valid, write), {"x": X, "n": 3, "out": out},
             {"out": expected(X, out, at, rows, cols)}, backend)


@pytest.mark.parametrize("write", ["out[0:16, 0:4] = y", "out = pl.assemble(out, y, [0, 0])"])
def test_a_dynamic_valid_extent_is_trusted(write: str) -> None:
    out = np.full((16, 4), -5, np.float32)
    for n in (1, 4):
        as_written(tensor_program((16, 4), ("16", "n"), write), {"x": X, "n": n, "out": out},
                   {"out": expected(X, out, (0, 0), 16, n)})


def test_a_static_valid_extent_other_than_the_window_is_refused() -> None:
    with pytest.raises(ParserTypeError, match="Subscript-write shape mismatch on source axis 1: window expects 4 "
                                              "elements, source has 8"):
        pl.parse(HEADER + tensor_program((16, 4), ("16", "3"), "out[0:16, 0:4] = y"))


def test_an_offset_past_the_target_with_the_valid_extent_is_refused() -> None:
    with pytest.raises(ValueError, match=r"tensor.assemble writes past the end of dimension 0: offset 8 \+ extent "
                                         r"5 exceeds the target extent 12"):
        pl.parse(HEADER + tensor_program((12, 8), ("5", "8"), "out = pl.assemble(out, y, [8, 0])"))


TILE = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        acc = pl.tile.full([16, 8], dtype=pl.FP32, value=-5.0)
        t = pl.load(x, [0, 0], [16, 8], valid_shape=[16, 4])
        acc[0:16, 4:8] = t
        out = pl.store(acc, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        out = self.k(x, out)
        return out
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_tile_subscript_write_from_a_narrowed_tile(backend: str) -> None:
    want = np.full((16, 8), -5, np.float32)
    want[:, 4:] = X[:, :4]
    compiled(TILE, {"x": X, "out": np.zeros((16, 8), np.float32)}, {"out": want}, backend)
