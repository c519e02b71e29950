"""tile.slice keeps the rank of its shape operand; tile.store of a tile whose rank differs from its offsets /
target is accepted as the target's type and runs as a row-major flat copy (docs/dsl.md, tiles)."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.op import tile_ops as T
from pypto_core.interp import run_program, shape_from_backend
from pypto_core.interp.errors import MachineError

from .helpers import tensor, tile

SHAPE = shape_from_backend("Ascend910B")


def test_a_store_of_another_rank_is_the_target_type_unchecked():
    out = tensor([16, 64])
    stored = T.store(tile([1024]), [0, 0], out)
    assert stored.type is out.type
    # No bounds check: the window [0, 0] + [1024] would hang off dimension 1.
    assert T.store(tile([1024]), [3, 5], out).type is out.type
    assert T.store(tile([1, 16, 64]), [0, 0], out).type is out.type
    # Same ranks keep the check and the grown valid region.
    with pytest.raises(ValueError, match="writes past the end of dimension 1"):
        T.store(tile([16, 128]), [0, 0], out)


def test_a_store_with_a_shapes_operand_is_the_target_type():
    out = tensor([4, 16, 64])
    assert T.store(tile([64, 64]), [0, 0, 0], out, [4, 16, 64]).type is out.type
    with pytest.raises(TypeError, match="shapes operand .2-D. and the offsets .3-D."):
        T.store(tile([64, 64]), [0, 0, 0], out, [64, 64])


def test_the_store_of_another_rank_prints_the_target_type():
    text = """
@pl.function(type=pl.FunctionType.InCore)
def main(a: pl.Tensor[[1024], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    big = pl.load(a, [0], [1024])
    out = pl.store(big, [0, 0], out)
    return out
"""
    printed = ir.python_print(pl.parse(text))
    assert "out__ssa_v0: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(big, [0, 0], out)" in printed or \
        "out: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(big, [0, 0], out)" in printed, printed


FLAT = """
@pl.function(type=pl.FunctionType.InCore)
def main(a: pl.Tensor[[1024], pl.FP32], b: pl.Tensor[[2, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
         row: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
    big = pl.load(a, [0], [1024])
    out = pl.store(big, [0, 0], out)
    part = pl.load(a, [0], [OFF_LEN], valid_shape=[VALID])
    row = pl.store(part, [3, 10], row)
    wide = pl.load(b, [0, 0], [2, 32])
    flat = pl.tile.reshape(wide, [64])
    row = pl.store(flat, [5, 0], row)
    return out, row
"""


@pytest.mark.parametrize("length,valid", [(128, 128), (128, 100), (32, 20)])
def test_a_store_of_another_rank_copies_row_major(length: int, valid: int):
    program = pl.parse(FLAT.replace("OFF_LEN", str(length)).replace("VALID", str(valid)))
    rng = np.random.default_rng(length + valid)
    a = rng.standard_normal(1024).astype(np.float32)
    b = rng.standard_normal((2, 32)).astype(np.float32)
    out0 = rng.standard_normal((16, 64)).astype(np.float32)
    row0 = rng.standard_normal((16, 64)).astype(np.float32)
    got = run_program(program, {"a": a, "b": b, "out": out0.copy(), "row": row0.copy()}, None, SHAPE)
    np.testing.assert_array_equal(got["out"], a.reshape(16, 64))
    want = row0.copy().reshape(-1)
    start = 3 * 64 + 10
    want[start:start + valid] = a[:valid]  # past the end of row 3 when valid > 54: the next row, row-major
    want = want.reshape(16, 64)
    want[5] = b.reshape(-1)  # a [64] tile that fits row 5
    np.testing.assert_array_equal(got["row"], want)


def test_a_flat_copy_past_the_end_is_a_located_error():
    text = """
@pl.function(type=pl.FunctionType.InCore)
def main(a: pl.Tensor[[1024], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
    big = pl.load(a, [0], [1024])
    out = pl.store(big, [1, 0], out)
    return out
"""
    program = pl.parse(text)
    inputs = {"a": np.zeros(1024, np.float32), "out": np.zeros((16, 64), np.float32)}
    with pytest.raises(MachineError, match=r"tile.store at .*:5.* the 1024 valid elements of a \[1024\] tile "
                                           r"copied row-major from \[1, 0\] run past the end"):
        run_program(program, inputs, None, SHAPE)


def test_a_slice_keeps_the_rank_of_its_shape_in_a_program():
    text = """
@pl.function(type=pl.FunctionType.InCore)
def main(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[32], pl.FP32]]) -> pl.Tensor[[32], pl.FP32]:
    t = pl.load(x, [0], [64])
    s = pl.tile.slice(t, [32], [16])
    out = pl.store(s, [0], out)
    return out
"""
    program = pl.parse(text)
    printed = ir.python_print(program)
    assert "s: pl.Tile[[32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [32], [16])" in printed, printed
    x = np.arange(64, dtype=np.float32)
    got = run_program(program, {"x": x, "out": np.zeros(32, np.float32)}, None, SHAPE)
    np.testing.assert_array_equal(got["out"], x[16:48])


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_the_default_pipeline_keeps_the_row_major_store_and_the_1d_slice(backend: str):
    from pypto_core.config import parse_config_text, resolve_config
    from pypto_core.passes.manager import PassManager

    loaded = parse_config_text(f'backend = "{backend}"\nverify = "basic"\n[pipeline]\npasses = ["default"]\n',
                               "<store ranks tests>")
    resolved = resolve_config(loaded)
    manager = PassManager(resolved.passes, backend=resolved.backend, verify="basic")
    program = pl.parse(FLAT.replace("OFF_LEN", "128").replace("VALID", "100"))
    rng = np.random.default_rng(5)
    inputs = {"a": rng.standard_normal(1024).astype(np.float32), "b": rng.standard_normal((2, 32)).astype(np.float32),
              "out": np.zeros((16, 64), np.float32), "row": np.zeros((16, 64), np.float32)}
    shape = shape_from_backend(backend)
    before = run_program(program, {k: v.copy() for k, v in inputs.items()}, None, shape)
    after = run_program(manager.run(program), {k: v.copy() for k, v in inputs.items()}, None, shape)
    for name in ("out", "row"):
        np.testing.assert_array_equal(after[name], before[name])
