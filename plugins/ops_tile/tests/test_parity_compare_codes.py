"""Comparison codes: cmp_type of tile.cmp / tile.cmps / tensor.cmp and cmp_mode of the gather compares number
their comparisons 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE (PyPTO's order, docs/reference/ops.md); a name is stored
and printed as its code. Expected values are numpy's comparison of the same operands."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir

from .parity_helpers import BACKENDS, as_written, compiled

ORDER = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal]
NAMES = ["eq", "ne", "lt", "le", "gt", "ge"]
PL = {np.float32: "pl.FP32", np.float16: "pl.FP16", np.int32: "pl.INT32", np.int16: "pl.INT16"}
X16 = np.array([-2, -1, 0, 1, 2, 0, 3, -3, 0, 5, -5, 0, 7, 0, 1, -1], np.float32)

SELS = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[_M_, _N_], _DT_], out: pl.Out[pl.Tensor[[_M_, _N_], _DT_]]) -> pl.Tensor[[_M_, _N_], _DT_]:
        t: pl.Tile[[_M_, _N_], _DT_] = pl.load(x, [0, 0], [_M_, _N_])
        m = pl.tile.cmps(t, 0, cmp_type=_CODE_)
        tmp: pl.Tile[[_M_, _N_], _DT_] = pl.tile.create([_M_, _N_], dtype=_DT_, target_memory=pl.Mem.Vec)
        out = pl.store(pl.tile.sels(m, t, tmp, _FILL_), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[_M_, _N_], _DT_], out: pl.Out[pl.Tensor[[_M_, _N_], _DT_]]) -> pl.Tensor[[_M_, _N_], _DT_]:
        out = self.k(x, out)
        return out
"""


def sels_program(m: int, n: int, dtype: type, code: int | str, fill: int) -> str:
    code_text = repr(code) if isinstance(code, str) else str(code)
    return (SELS.replace("_CODE_", code_text).replace("_FILL_", str(fill)).replace("_DT_", PL[dtype])
            .replace("_M_", str(m)).replace("_N_", str(n)))


def ints(shape: tuple[int, int], dtype: type, seed: int) -> np.ndarray:
    """Small integers around the threshold 0, so that ties happen."""
    return np.random.default_rng(seed).integers(-3, 4, shape).astype(dtype)


@pytest.mark.parametrize("code", range(6))
def test_the_sections_example_each_code(code: int) -> None:
    x = X16.reshape(1, 16)
    want = np.where(ORDER[code](x, 0), x, np.float32(-9))
    as_written(sels_program(1, 16, np.float32, code, -9), {"x": x, "out": np.zeros_like(x)}, {"out": want})
    if code == 4:  # the example's literal row: GT
        assert want.tolist() == [[-9, -9, -9, 1, 2, -9, 3, -9, -9, 5, -9, -9, 7, -9, 1, -9]]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32, np.int16])
@pytest.mark.parametrize("shape", [(4, 40), (2, 64)])
@pytest.mark.parametrize("code", [3, 4, 5, "le", "gt", "ge"])
def test_cmps_then_sels_on_the_machine(code: int | str, shape: tuple[int, int], dtype: type) -> None:
    x = ints(shape, dtype, 7)
    fn = ORDER[code if isinstance(code, int) else NAMES.index(code)]
    want = np.where(fn(x, dtype(0)), x, dtype(-9)).astype(dtype)
    as_written(sels_program(*shape, dtype, code, -9), {"x": x, "out": np.zeros_like(x)}, {"out": want})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("code", [3, 4, 5])
def test_cmps_then_sels_compiled(code: int, backend: str) -> None:
    x = ints((4, 40), np.float32, 3)
    want = np.where(ORDER[code](x, 0), x, np.float32(-9))
    compiled(sels_program(4, 40, np.float32, code, -9), {"x": x, "out": np.zeros_like(x)}, {"out": want}, backend)


CMP_SEL = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[8, 64], pl.FP32], b: pl.Tensor[[8, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        x: pl.Tile[[8, 64], pl.FP32] = pl.load(a, [0, 0], [8, 64])
        y: pl.Tile[[8, 64], pl.FP32] = pl.load(b, [0, 0], [8, 64])
        m = pl.tile.cmp(x, y, cmp_type=CODE)
        tmp = pl.tile.create([1, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        out = pl.store(pl.tile.sel(m, x, y, tmp), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8, 64], pl.FP32], b: pl.Tensor[[8, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[8, 64], pl.FP32]]) -> pl.Tensor[[8, 64], pl.FP32]:
        out = self.k(a, b, out)
        return out
"""

TENSOR_CMP = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Opaque)
    def main(self, a: pl.Tensor[[8, 32], pl.FP32], b: pl.Tensor[[8, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[8, 32], pl.FP32]]) -> pl.Tensor[[8, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            f = pl.tensor.cmp(a, b, cmp_type=CODE)
            out = pl.assemble(out, f, [0, 0])
        return out
"""


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("code", [3, 4, 5])
def test_cmp_then_sel_and_tensor_cmp(code: int, backend: str) -> None:
    a, b = ints((8, 64), np.float32, 1), ints((8, 64), np.float32, 2)
    compiled(CMP_SEL.replace("CODE", str(code)), {"a": a, "b": b, "out": np.zeros_like(a)},
             {"out": np.where(ORDER[code](a, b), a, b)}, backend)
    a, b = a[:, :32].copy(), b[:, :32].copy()
    compiled(TENSOR_CMP.replace("CODE", str(code)), {"a": a, "b": b, "out": np.zeros_like(a)},
             {"out": ORDER[code](a, b).astype(np.float32)}, backend)


GATHER_COMPARE = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[4, 32], pl.FP32], cnt: pl.Out[pl.Tensor[[1, 4], pl.INT32]]) -> pl.Tensor[[1, 4], pl.INT32]:
        t: pl.Tile[[4, 32], pl.FP32] = pl.load(a, [0, 0], [4, 32])
        u = pl.tile.create([4, 32], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        d, c = pl.tile.gather_compare(t, 1.0, u, cmp_mode=MODE, out_cols=32)
        cnt = pl.store(c, [0, 0], cnt)
        return cnt

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[4, 32], pl.FP32], cnt: pl.Out[pl.Tensor[[1, 4], pl.INT32]]) -> pl.Tensor[[1, 4], pl.INT32]:
        cnt = self.k(a, cnt)
        return cnt
"""


@pytest.mark.parametrize("mode", [3, 4, 5, "gt"])
def test_gather_compare_counts_and_printed_code(mode: int | str) -> None:
    code = mode if isinstance(mode, int) else NAMES.index(mode)
    a = ints((4, 32), np.float32, 5)
    program = as_written(GATHER_COMPARE.replace("MODE", repr(mode)), {"a": a, "cnt": np.zeros((1, 4), np.int32)},
                         {"cnt": ORDER[code](a, 1.0).sum(axis=1)[None].astype(np.int32)})
    assert f"cmp_mode={code}," in ir.python_print(program)  # "gt" is stored and printed as 4


@pytest.mark.parametrize(("written", "printed"), [("'gt'", 4), ("'ge'", 5), ("'le'", 3), ("4", 4)])
def test_a_named_cmp_type_prints_pyptos_code(written: str, printed: int) -> None:
    program = pl.parse(sels_program(1, 16, np.float32, 0, -9).replace("cmp_type=0", f"cmp_type={written}")
                       .replace("import pypto.language as pl\n", ""))
    text = ir.python_print(program)
    assert f"pl.tile.cmps(t, 0.0, cmp_type={printed})" in text or f"cmp_type={printed})" in text
    again = pl.parse(text)  # PyPTO's printed code reads back as the same comparison
    ir.assert_structural_equal(program, again)
