"""Reference-machine results of the row / column broadcasts and reductions and of tensor.matmul's batched /
1-D forms (the broadcasts, reductions and matmul families), each against a numpy formula written here."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import run_program

RNG = np.random.default_rng(14)
NP = {"FP32": np.float32, "FP16": np.float16, "INT32": np.int32, "INT16": np.int16, "INT8": np.int8}


def _run(params: dict[str, tuple[list[int], str]], lines: list[str], out: tuple[list[int], str],
         inputs: dict[str, np.ndarray], tile_code: bool = True) -> np.ndarray:
    """A kernel with tensor parameters `params`, body `lines` computing `y`, written to `out`."""
    sig = ", ".join(f"{n}: pl.Tensor[{s}, pl.{d}]" for n, (s, d) in params.items())
    shape, dtype = out
    kind = "InCore" if tile_code else "Opaque"
    zeros = [0] * len(shape)
    tail = [f"out = pl.store(y, {zeros}, out)"] if tile_code else [f"out = pl.assemble(out, y, {zeros})"]
    body = "".join(f"        {line}\n" for line in [*lines, *tail, "return out"])
    text = (f"import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.{kind})\n"
            f"    def main(self, {sig}, out: pl.Out[pl.Tensor[{shape}, pl.{dtype}]]) -> "
            f"pl.Tensor[{shape}, pl.{dtype}]:\n{body}")
    program = pl.parse(text)
    got = run_program(program, {**inputs, "out": np.zeros(shape, NP[dtype])})["out"]
    assert got.dtype == NP[dtype]
    return got


def _load(name: str, shape: list[int], valid: list[int] | None = None) -> str:
    extra = f", valid_shape={valid}" if valid else ""
    return f"{name}t = pl.load({name}, {[0] * len(shape)}, {shape}{extra})"


def _data(shape: tuple[int, ...], dtype: str = "FP32", low: float = -2.0, high: float = 2.0) -> np.ndarray:
    if dtype.startswith("INT"):
        return RNG.integers(-20, 20, size=shape).astype(NP[dtype])
    return RNG.uniform(low, high, size=shape).astype(NP[dtype])


EXPAND_NP: dict[str, Any] = {
    "": lambda x, v: np.broadcast_to(v, x.shape), "_max": np.maximum, "_min": np.minimum,
    "_expdif": lambda x, v: np.exp(x - v), "_add": np.add, "_sub": np.subtract, "_mul": np.multiply,
    "_div": np.divide,
}


@pytest.mark.parametrize("suffix", list(EXPAND_NP))
@pytest.mark.parametrize("d", ["row", "col"])
def test_tile_expands(d: str, suffix: str):
    x = _data((16, 64))
    vshape = [16, 1] if d == "row" else [1, 64]
    v = _data(tuple(vshape), low=0.5) if suffix == "_div" else _data(tuple(vshape))
    got = _run({"x": ([16, 64], "FP32"), "v": (vshape, "FP32")},
               [_load("x", [16, 64]), _load("v", vshape), f"y = pl.tile.{d}_expand{suffix}(xt, vt)"],
               ([16, 64], "FP32"), {"x": x, "v": v})
    np.testing.assert_allclose(got, EXPAND_NP[suffix](x, v), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("suffix", ["", "_max", "_min", "_expdif"])
@pytest.mark.parametrize("d", ["row", "col"])
def test_tensor_expands_promote(d: str, suffix: str):
    x = _data((8, 32), "FP16")
    vshape = [8, 1] if d == "row" else [1, 32]
    v = _data(tuple(vshape))
    got = _run({"x": ([8, 32], "FP16"), "v": (vshape, "FP32")}, [f"y = pl.{d}_expand{suffix}(x, v)"],
               ([8, 32], "FP32"), {"x": x, "v": v}, tile_code=False)
    np.testing.assert_allclose(got, EXPAND_NP[suffix](x.astype(np.float32), v), rtol=1e-5, atol=1e-6)


def test_row_expand_add_packed_carrier():
    x, v = _data((16, 64), "INT32"), _data((16, 8), "INT32")  # INT32: a 32-byte row is 8 elements
    got = _run({"x": ([16, 64], "INT32"), "v": ([16, 8], "INT32")},
               [_load("x", [16, 64]), _load("v", [16, 8]), "tmp = pl.tile.create([16, 64], dtype=pl.INT32)",
                "y = pl.tile.row_expand_add(xt, vt, tmp)"], ([16, 64], "INT32"), {"x": x, "v": v})
    np.testing.assert_array_equal(got, x + np.tile(v, (1, 8)))  # the 8-element block repeats from column 0


REDUCE_NP = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod, "argmax": np.argmax,
             "argmin": np.argmin}


@pytest.mark.parametrize("kind", ["prod", "argmin", "sum", "argmax"])
def test_tile_row_reductions_read_the_valid_region(kind: str):
    x = _data((16, 32), low=0.5, high=1.5)
    dtype = "INT32" if kind.startswith("arg") else "FP32"
    got = _run({"x": ([16, 32], "FP32")},
               [_load("x", [16, 32], [10, 20]), "tmp = pl.tile.create([16, 32], dtype=pl.FP32)",
                f"y = pl.tile.row_{kind}(xt, tmp)"], ([16, 1], dtype), {"x": x})
    want = REDUCE_NP[kind](x[:10, :20].astype(np.float64), axis=1)
    np.testing.assert_allclose(got[:10, 0], want.astype(NP[dtype]), rtol=1e-5)
    assert (got[10:] == 0).all()  # the store writes the valid rows only


@pytest.mark.parametrize("kind", ["prod", "argmax", "argmin"])
def test_tile_col_reductions(kind: str):
    x = _data((8, 64), "INT32") if kind == "prod" else _data((8, 64))
    dtype = "INT32"
    lines = [_load("x", [8, 64])]
    if kind == "prod":
        lines.append("y = pl.col_prod(xt)")
    else:
        lines += ["tmp = pl.tile.create([8, 64], dtype=pl.FP32)", f"y = pl.col_{kind}(xt, tmp)"]
    got = _run({"x": ([8, 64], "INT32" if kind == "prod" else "FP32")}, lines, ([1, 64], dtype), {"x": x})
    np.testing.assert_array_equal(got, REDUCE_NP[kind](x, axis=0, keepdims=True).astype(np.int32))


def test_arg_reductions_take_the_first_index_on_ties():
    x = np.zeros((4, 8), np.float32)
    x[:, 2] = x[:, 5] = 3.0
    got = _run({"x": ([4, 8], "FP32")}, [_load("x", [4, 8]), "tmp = pl.tile.create([4, 8], dtype=pl.FP32)",
                                          "y = pl.tile.row_argmax(xt, tmp)"], ([4, 1], "INT32"), {"x": x})
    assert (got == 2).all()


@pytest.mark.parametrize("name,axis,keep", [("row_prod", None, True), ("row_argmin", 0, True), ("col_prod", None, False),
                                            ("col_argmax", 1, False), ("col_argmin", None, True),
                                            ("row_sum", 0, False)])
def test_tensor_reductions_axis_and_keep_dim(name: str, axis: int | None, keep: bool):
    x = _data((8, 16), low=0.5, high=1.5)
    ax = (-1 if name.startswith("row") else -2) if axis is None else axis
    want = REDUCE_NP[name[4:]](x.astype(np.float64), axis=ax)
    want = np.expand_dims(want, ax) if keep else want
    dtype = "INT32" if "arg" in name else "FP32"
    kw = "".join([f", axis={axis}" if axis is not None else "", "" if keep else ", keep_dim=False"])
    got = _run({"x": ([8, 16], "FP32")}, [f"y = pl.tensor.{name}(x{kw})"], (list(want.shape), dtype), {"x": x},
               tile_code=False)
    np.testing.assert_allclose(got, want.astype(NP[dtype]), rtol=1e-5)


def test_fp16_products_accumulate_in_fp32():
    x = _data((4, 16), "FP16", low=0.9, high=1.1)
    got = _run({"x": ([4, 16], "FP16")}, ["y = pl.tensor.row_prod(x)"], ([4, 1], "FP16"), {"x": x}, tile_code=False)
    want = np.prod(x.astype(np.float32), axis=1, keepdims=True).astype(np.float16)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("lhs,rhs", [([2, 8, 16], [2, 16, 4]), ([3, 8, 16], [16, 4]), ([8, 16], [16]),
                                     ([16], [16, 4]), ([2, 1, 8, 16], [3, 16, 4])])
def test_tensor_matmul_ranks(lhs: list[int], rhs: list[int]):
    a, b = _data(tuple(lhs)), _data(tuple(rhs))
    want = np.matmul(a.astype(np.float64), b.astype(np.float64))
    got = _run({"a": (lhs, "FP32"), "b": (rhs, "FP32")}, ["y = pl.matmul(a, b)"], (list(want.shape), "FP32"),
               {"a": a, "b": b}, tile_code=False)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# semantics/matmul.py (not this family's file) transposes a tensor.matmul operand with `.T`, which reverses every
# axis of a 3-D operand; /work/notes_tmp/broadcast_reduce_requests.md asks for np.swapaxes(x, -1, -2).
def test_batched_matmul_transposes_the_last_two_axes():
    a, b = _data((2, 16, 8), "FP16"), _data((2, 4, 16), "FP16")
    want = np.matmul(np.swapaxes(a, 1, 2).astype(np.float32), np.swapaxes(b, 1, 2).astype(np.float32))
    got = _run({"a": ([2, 16, 8], "FP16"), "b": ([2, 4, 16], "FP16")},
               ["y = pl.tensor.matmul(a, b, out_dtype=pl.FP32, a_trans=True, b_trans=True)"], ([2, 8, 4], "FP32"),
               {"a": a, "b": b}, tile_code=False)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
