"""tile.mgather (docs/reference/ops.md): a row-mode result into Vec has the valid shape [idx's valid extent
along its rows, C], so a store writes only those rows; element mode keeps idx's valid shape. Out of bounds,
the INT32 index is read as uint32 (u = idx mod 2**32, -1 is 2**32 - 1): clamp min(u, B - 1), wrap u mod B,
zero where u >= B, with B the table's rows (row mode) or its element count (element mode)."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir

from .parity_helpers import BACKENDS, as_written, compiled

IX = np.array([-1, 2, 9, -1, 7, 0, 5, -2], np.int32)

ROWS = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, table: pl.Tensor[[_B_, 8], pl.FP32], ix: pl.Tensor[[_IS_], pl.INT32],
          out: pl.InOut[pl.Tensor[[_N_, 8], pl.FP32]]) -> pl.Tensor[[_N_, 8], pl.FP32]:
        idx = pl.tile.load(ix, [0, 0], [_IS_], [_IV_], target_memory=pl.Mem.Vec)
        rows = pl.tile.mgather(table, idx, gather_oob=_OOB_)
        out = pl.store(rows, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, table: pl.Tensor[[_B_, 8], pl.FP32], ix: pl.Tensor[[_IS_], pl.INT32],
             out: pl.InOut[pl.Tensor[[_N_, 8], pl.FP32]]) -> pl.Tensor[[_N_, 8], pl.FP32]:
        out = self.k(table, ix, out)
        return out
"""


def rows_program(b: int, n: int, valid: int, oob: str, column: bool = False) -> str:
    idx_shape, idx_valid = (f"{n}, 1", f"{valid}, 1") if column else (f"1, {n}", f"1, {valid}")
    text = ROWS.replace("_IS_", idx_shape).replace("_IV_", idx_valid).replace("_OOB_", repr(oob))
    return text.replace("_B_", str(b)).replace("_N_", str(n))


def pyptos_rows(ix: np.ndarray, b: int, oob: str) -> tuple[np.ndarray, np.ndarray]:
    """(row picked, zeroed) for each index under PyPTO's rule."""
    u = ix.astype(np.int64) % 2**32
    if oob == "clamp":
        return np.minimum(u, b - 1), np.zeros(u.shape, bool)
    if oob == "wrap":
        return u % b, np.zeros(u.shape, bool)
    return np.where(u < b, u, 0), u >= b


def expected_rows(table: np.ndarray, ix: np.ndarray, valid: int, oob: str, out: np.ndarray) -> np.ndarray:
    picked, zero = pyptos_rows(ix[:valid], table.shape[0], oob)
    want = out.copy()
    want[:valid] = np.where(zero[:, None], 0, table[picked])
    return want


def table_of(b: int) -> np.ndarray:
    return np.repeat(np.arange(b, dtype=np.float32)[:, None], 8, axis=1) + np.arange(8, dtype=np.float32) / 8


def test_the_sections_example() -> None:
    table, out = table_of(6), np.full((8, 8), -7, np.float32)
    text = rows_program(6, 8, 3, "clamp")
    want = expected_rows(table, IX, 3, "clamp", out)
    assert want[:, 0].tolist() == [5, 2, 5, -7, -7, -7, -7, -7]
    program = as_written(text, {"table": table, "ix": IX.reshape(1, 8), "out": out}, {"out": want})
    assert ("rows: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[3, 8])] = "
            "pl.tile.mgather(table, idx, gather_oob=1)") in ir.python_print(program)
    wrap = expected_rows(table, IX, 8, "wrap", out)
    assert wrap[:, 0].tolist() == [3, 2, 3, 3, 1, 0, 5, 2]  # (2**32 - 1) mod 6 = 3
    as_written(rows_program(6, 8, 8, "wrap"), {"table": table, "ix": IX.reshape(1, 8), "out": out}, {"out": wrap})


def test_the_row_mode_result_type_narrows_to_the_valid_indices() -> None:
    program = pl.parse("import pypto.language as pl\n" + rows_program(6, 8, 3, "clamp", column=True))
    text = ir.python_print(program)
    assert "pl.TileView(valid_shape=[3, 8])" in text, text
    full = ir.python_print(pl.parse("import pypto.language as pl\n" + rows_program(6, 8, 8, "clamp")))
    assert "rows: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = " in full, full


@pytest.mark.parametrize("column", [False, True])
@pytest.mark.parametrize("oob", ["clamp", "wrap", "zero"])
@pytest.mark.parametrize(("b", "n", "valid"), [(6, 8, 3), (6, 8, 8), (8, 16, 11), (5, 8, 1)])
def test_row_mode_on_the_machine(b: int, n: int, valid: int, oob: str, column: bool) -> None:
    ix = np.random.default_rng(b * n + valid).integers(-4, 2 * b, n).astype(np.int32)
    ix[0] = -1
    table, out = table_of(b), np.full((n, 8), -7, np.float32)
    ix2 = ix.reshape((n, 1) if column else (1, n))
    as_written(rows_program(b, n, valid, oob, column), {"table": table, "ix": ix2, "out": out},
               {"out": expected_rows(table, ix, valid, oob, out)})


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("oob", "valid", "column"), [("clamp", 3, False), ("wrap", 8, True), ("zero", 5, False)])
def test_row_mode_compiled(oob: str, valid: int, column: bool, backend: str) -> None:
    table, out = table_of(6), np.full((8, 8), -7, np.float32)
    ix2 = IX.reshape((8, 1) if column else (1, 8))
    compiled(rows_program(6, 8, valid, oob, column), {"table": table, "ix": ix2, "out": out},
             {"out": expected_rows(table, IX, valid, oob, out)}, backend)


ELEMS = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, table: pl.Tensor[[_B_], pl.INT32], ix: pl.Tensor[[4, 16], pl.INT32],
          out: pl.InOut[pl.Tensor[[4, 16], pl.INT32]]) -> pl.Tensor[[4, 16], pl.INT32]:
        idx = pl.tile.load(ix, [0, 0], [4, 16], [_VR_, _VC_], target_memory=pl.Mem.Vec)
        g = pl.tile.mgather(table, idx, coalesce="elem", gather_oob=_OOB_)
        out = pl.store(g, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, table: pl.Tensor[[_B_], pl.INT32], ix: pl.Tensor[[4, 16], pl.INT32],
             out: pl.InOut[pl.Tensor[[4, 16], pl.INT32]]) -> pl.Tensor[[4, 16], pl.INT32]:
        out = self.k(table, ix, out)
        return out
"""


def elems_program(b: int, oob: str, valid: tuple[int, int]) -> str:
    return (ELEMS.replace("_B_", str(b)).replace("_OOB_", repr(oob)).replace("_VR_", str(valid[0]))
            .replace("_VC_", str(valid[1])))


def expected_elems(table: np.ndarray, ix: np.ndarray, oob: str, valid: tuple[int, int], out: np.ndarray) -> np.ndarray:
    picked, zero = pyptos_rows(ix, table.size, oob)
    want = out.copy()
    r, c = valid
    want[:r, :c] = np.where(zero, 0, table[picked])[:r, :c]
    return want


@pytest.mark.parametrize("oob", ["clamp", "wrap", "zero"])
@pytest.mark.parametrize("b", [100, 64])  # 64 divides 2**32: wrap is then the signed modulo too
@pytest.mark.parametrize("valid", [(4, 16), (3, 10)])
def test_element_mode_on_the_machine(b: int, oob: str, valid: tuple[int, int]) -> None:
    table = np.random.default_rng(b).integers(1, 1000, b).astype(np.int32)
    ix = np.random.default_rng(7).integers(-2 * b, 2 * b, (4, 16)).astype(np.int32)
    ix[0, :3] = [-1, -2**31, 2**31 - 1]
    out = np.full((4, 16), -7, np.int32)
    as_written(elems_program(b, oob, valid), {"table": table, "ix": ix, "out": out},
               {"out": expected_elems(table, ix, oob, valid, out)})
    if oob == "clamp":
        assert expected_elems(table, ix, oob, (4, 16), out)[0, 0] == table[-1]  # -1 -> the last element


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("oob", ["clamp", "wrap"])
def test_element_mode_compiled(oob: str, backend: str) -> None:
    table = np.random.default_rng(1).integers(1, 1000, 100).astype(np.int32)
    ix = np.random.default_rng(2).integers(-200, 200, (4, 16)).astype(np.int32)
    out = np.full((4, 16), -7, np.int32)
    compiled(elems_program(100, oob, (3, 10)), {"table": table, "ix": ix, "out": out},
             {"out": expected_elems(table, ix, oob, (3, 10), out)}, backend)
