"""Audit of the scalar operand of tile / tensor ops: tile.adds / muls / divs / maximums ... give
Tile[lhs.shape; lhs.dtype], the scalar narrowed to the tile's dtype; a tensor op promotes (tensor dtype,
scalar dtype) (INT32 tensor + 1.5 -> FP32), a tile op keeps the tile's dtype (docs/dsl.md, functions)."""

from __future__ import annotations

import numpy as np
import pytest

from .test_op_semantics_audit_helpers import check_exact, tensor_program, tile_program

F16, F32, I32, I16 = np.float16, np.float32, np.int32, np.int16


# Fixed defect (audit): the machine computed tile (op) FP32 scalar in float, then converted the result to the tile
# dtype (INT32 7 * 1.5 -> 10 instead of 7 * int32(1.5) = 7; FP16 tiles 1 ulp off).


def ints(dtype=I32):
    return np.resize(np.array([7, -7, 10, -10, 3, -3, 0, 1, 100, -100, 5, -5]), 64).reshape(2, 32).astype(dtype)


# == tile ops: the scalar is narrowed to the tile dtype first ================================================
@pytest.mark.parametrize("op,scalar,narrow,fn", [
    ("muls", 1.5, 1, lambda a, s: a * s),
    ("adds", 2.75, 2, lambda a, s: a + s),
    ("subs", -0.5, 0, lambda a, s: a - s),
    ("maximums", 2.5, 2, np.maximum),
    ("minimums", -2.5, -2, np.minimum),
])
def test_int_tile_with_a_float_scalar_uses_the_narrowed_scalar(op, scalar, narrow, fn):
    """FP32 scalar narrowed to INT32 (truncation toward zero, the C conversion), then the integer op."""
    a = ints()
    prog = tile_program({"a": a}, {"out": (a.shape, I32)}, f"r = pl.tile.{op}(a_t, {scalar})\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a}, {"out": fn(a.astype(np.int64), narrow).astype(I32)})


def test_int_tile_divs_by_a_float_scalar_uses_the_narrowed_scalar():
    a = ints()
    prog = tile_program({"a": a}, {"out": (a.shape, I32)}, "r = pl.tile.divs(a_t, 2.5)\nout = pl.store(r, [0, 0], out)")
    a64 = a.astype(np.int64)
    q = np.abs(a64) // 2
    check_exact(prog, {"a": a}, {"out": np.where(a64 < 0, -q, q).astype(I32)})


@pytest.mark.parametrize("op,fn", [("adds", np.add),
                                   ("muls", np.multiply),
                                   ("subs", np.subtract), ("divs", np.divide)])
def test_fp16_tile_with_an_fp32_scalar_narrows_the_scalar_to_fp16(op, fn):
    """0.1 narrowed to FP16 is 0.0999755859375; the op then rounds once into FP16."""
    rng = np.random.default_rng(11)
    a = rng.uniform(-100, 100, (2, 32)).astype(F16)
    prog = tile_program({"a": a}, {"out": (a.shape, F16)}, f"r = pl.tile.{op}(a_t, 0.1)\nout = pl.store(r, [0, 0], out)")
    s = np.float64(F16(0.1))
    want = fn(a.astype(np.float64), s).astype(np.float32).astype(F16)
    check_exact(prog, {"a": a}, {"out": want})


def test_int16_tile_adds_keeps_int16_and_wraps():
    a = np.resize(np.array([32767, 32000, -32768, 0, 1]), 64).reshape(2, 32).astype(I16)
    prog = tile_program({"a": a}, {"out": (a.shape, I16)}, "r = pl.tile.adds(a_t, 1000)\nout = pl.store(r, [0, 0], out)")
    want = ((a.astype(np.int64) + 1000 + 2**15) % 2**16 - 2**15).astype(I16)
    check_exact(prog, {"a": a}, {"out": want})


# == tensor ops: tensor dtype and scalar dtype are promoted ==================================================
@pytest.mark.parametrize("op,fn", [("add", np.add), ("mul", np.multiply), ("div", np.divide)])
def test_int32_tensor_with_a_float_literal_is_computed_in_fp32(op, fn):
    """(not sub: tensor.subs keeps the tensor dtype)"""
    a = ints()
    prog = tensor_program({"a": a}, {"out": (a.shape, F32)}, f"r = pl.{op}(a, 2.5)\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a}, {"out": fn(a.astype(np.float64), 2.5).astype(F32)})


def test_int32_tensor_divided_by_an_int_literal_truncates():
    a = ints()
    prog = tensor_program({"a": a}, {"out": (a.shape, I32)}, "r = pl.div(a, 4)\nout = pl.assemble(out, r, [0, 0])")
    a64 = a.astype(np.int64)
    q = np.abs(a64) // 4
    check_exact(prog, {"a": a}, {"out": np.where(a64 < 0, -q, q).astype(I32)})


def test_int32_tensor_maximum_with_a_float_scalar_is_fp32():
    a = ints()
    prog = tensor_program({"a": a}, {"out": (a.shape, F32)}, "r = pl.tensor.maximum(a, 2.5)\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a}, {"out": np.maximum(a.astype(np.float64), 2.5).astype(F32)})


def test_int32_tensor_subs_float_keeps_int32():
    """tensor.subs gives Tensor[lhs.shape; lhs.dtype]: the scalar does not promote."""
    a = ints()
    prog = tensor_program({"a": a}, {"out": (a.shape, I32)}, "r = pl.tensor.subs(a, 2)\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a}, {"out": (a - 2).astype(I32)})


def test_tensor_expands_keeps_the_target_dtype():
    """tensor.expands gives Tensor[target.shape; target.dtype]: 2.75 into an INT32 tensor."""
    a = ints()
    prog = tensor_program({"a": a}, {"out": (a.shape, I32)}, "r = pl.tensor.expands(a, 2)\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a}, {"out": np.full(a.shape, 2, I32)})


def test_tile_expands_promotes_target_and_scalar():
    """tile.expands gives Tile[target.shape; promote(target, scalar)]: FP16 target, FP32 literal -> FP32."""
    a = np.zeros((2, 32), F16)
    prog = tile_program({"a": a}, {"out": (a.shape, F32)}, "r = pl.tile.expands(a_t, 0.1)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"a": a}, {"out": np.full(a.shape, F32(0.1), F32)})


# == mixed-dtype binary ops: promote(a, b) = same dtype -> it; float beats int; else more bits wins;
#    equal bits -> the signed int ==========================================================================
def _mixed(values, dtype):
    return np.resize(np.array(values, dtype=object), 64).reshape(2, 32).astype(dtype)


@pytest.mark.parametrize("kind", ["tile", "tensor"])
@pytest.mark.parametrize("da,db,dr,va,vb", [
    (I32, F16, F16, [70000, -3, 5, 2049, 65504, -1], [1.5, 0.25, 0.5, 0.0, 16.0, 0.1]),
    (np.int8, np.uint8, np.int8, [100, -100, 127, -1, 0, 5], [200, 255, 1, 0, 128, 3]),
    (I16, np.uint16, I16, [30000, -1, 5, 0, -32768, 7], [60000, 65535, 3, 1, 32768, 2]),
    (np.uint8, I16, I16, [200, 255, 0, 1, 128, 9], [-300, 1, 2, 3, 32767, -9]),
    (F16, F32, F32, [1.0, 65504.0, 3.0, 1e-3, -2.5, 0.1], [1e-8, 65504.0, 0.1, 1.0, 3.0, 0.2]),
])
@pytest.mark.parametrize("op,fn", [("add", lambda a, b: a + b), ("mul", lambda a, b: a * b),
                                   ("sub", lambda a, b: a - b)])
def test_mixed_dtype_binary_ops_promote(kind, da, db, dr, va, vb, op, fn):
    a, b = _mixed(va, da), _mixed(vb, db)
    if np.dtype(dr).kind == "f":
        with np.errstate(all="ignore"):
            want = fn(a.astype(np.float64), b.astype(np.float64)).astype(np.float32).astype(dr)
    else:
        bits = np.dtype(dr).itemsize * 8
        raw = fn(a.astype(np.int64), b.astype(np.int64))
        want = ((raw + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1)).astype(dr)
    if kind == "tile":
        prog = tile_program({"a": a, "b": b}, {"out": (a.shape, dr)}, f"r = pl.tile.{op}(a_t, b_t)\nout = pl.store(r, [0, 0], out)")
    else:
        prog = tensor_program({"a": a, "b": b}, {"out": (a.shape, dr)}, f"r = pl.tensor.{op}(a, b)\nout = pl.assemble(out, r, [0, 0])")
    check_exact(prog, {"a": a, "b": b}, {"out": want})
