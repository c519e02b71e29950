"""Audit of sort / gather / scatter ops on the reference machine, on edge cases: ties in sort32 and in
merges, signed zeros and infinities, repeated gather indices, integer payloads.

Formulas: sort32 sorts each block of 32 descending (ties keep their input order) and writes
(value, index-bits) pairs (tile.sort32 doubles the last dim); a merge of sorted lists is a stable
descending sort of their concatenation (ties: the earlier list first); tensor.gather / tensor.scatter are
torch.gather / torch.scatter; tile.gather / tile.scatter / mscatter index the flat buffer."""

from __future__ import annotations

import numpy as np
import pytest

from .test_op_semantics_audit_helpers import check_exact, tensor_program, tile_program

F32, F16, I32, I16, U32 = np.float32, np.float16, np.int32, np.int16, np.uint32
R = np.random.default_rng(4242)


def as_pairs(values: np.ndarray, ids: np.ndarray) -> np.ndarray:
    out = np.empty((*values.shape[:-1], 2 * values.shape[-1]), F32)
    out[..., 0::2] = values
    out[..., 1::2] = ids.astype(U32).view(F32)
    return out


def sort_blocks(x: np.ndarray, ids: np.ndarray, block: int = 32) -> np.ndarray:
    out = []
    for b in range(0, x.shape[-1], block):
        v, i = x[..., b:b + block], ids[..., b:b + block]
        # descending and stable: sort by (-value, position) with Python's stable sort
        rows_v, rows_i = [], []
        for r in range(v.shape[0]):
            order = sorted(range(v.shape[1]), key=lambda k: -float(v[r, k]))
            rows_v.append(v[r, order])
            rows_i.append(i[r, order])
        out.append(as_pairs(np.array(rows_v, F32), np.array(rows_i, U32)))
    return np.concatenate(out, axis=-1)


def test_sort32_keeps_ties_in_input_order_and_orders_infinities():
    x = np.zeros((2, 64), F32)
    x[0, :32] = np.resize([1.0, 2.0, 1.0, 2.0, -np.inf, np.inf, 0.0, -0.0], 32)
    x[0, 32:] = 5.0                                  # an all-tie block
    x[1, :32] = np.resize([-0.0, 0.0, 3.0, -3.0, 3.0], 32)
    x[1, 32:] = R.integers(-3, 3, 32).astype(F32)
    ids = (np.arange(128).reshape(2, 64) * 7 + 1000).astype(U32)
    prog = tile_program({"x": x, "ids": ids}, {"out": ((2, 128), F32)},
                        "s = pl.tile.sort32(x_t, ids_t)\nout = pl.store(s, [0, 0], out)")
    check_exact(prog, {"x": x, "ids": ids}, {"out": sort_blocks(x, ids)})
    tprog = tensor_program({"x": x, "ids": ids}, {"out": ((2, 128), F32)},
                           "s = pl.tensor.sort32(x, ids)\nout = pl.assemble(out, s, [0, 0])")
    check_exact(tprog, {"x": x, "ids": ids}, {"out": sort_blocks(x, ids)})


def test_two_way_merge_takes_the_first_list_on_ties():
    v0 = np.array([9, 7, 7, 5, 3, 3, 1, 0] * 4, F32)
    v0 = -np.sort(-v0)
    v1 = -np.sort(-np.array([8, 7, 5, 5, 3, 2, 1, 0] * 4, F32))
    s0 = as_pairs(v0[None], np.arange(32, dtype=U32)[None])
    s1 = as_pairs(v1[None], np.arange(100, 132, dtype=U32)[None])
    both = np.concatenate([s0.reshape(-1, 2), s1.reshape(-1, 2)])
    order = sorted(range(len(both)), key=lambda k: -float(both[k, 0]))
    want = both[order].reshape(1, -1)
    prog = tensor_program({"s0": s0, "s1": s1}, {"out": ((1, 128), F32)},
                          "m = pl.mrgsort(s0, s1)\nout = pl.assemble(out, m, [0, 0])")
    check_exact(prog, {"s0": s0, "s1": s1}, {"out": want})


def test_single_list_merge_of_runs_with_ties():
    runs = []
    for k in range(4):
        v = -np.sort(-R.integers(0, 6, 32).astype(F32))
        runs.append(as_pairs(v[None], np.arange(32 * k, 32 * k + 32, dtype=U32)[None]))
    x = np.concatenate(runs, axis=1)
    both = x.reshape(-1, 2)
    order = sorted(range(len(both)), key=lambda k: -float(both[k, 0]))
    want = both[order].reshape(1, -1)
    prog = tile_program({"x": x}, {"out": ((1, 256), F32)},
                        "m = pl.tile.mrgsort(x_t, block_len=64)\nout = pl.store(m, [0, 0], out)")
    check_exact(prog, {"x": x}, {"out": want})


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("dtype", [F32, I32, I16])
def test_tensor_gather_is_torch_gather_with_repeated_indices(dim, dtype):
    x = R.integers(-30000, 30000, (8, 32)).astype(dtype)
    ishape = (4, 32) if dim == 0 else (8, 16)
    index = R.integers(0, x.shape[dim], ishape).astype(I32)
    index[0, :4] = 0 if dim == 0 else index[0, 0]          # repeated picks
    want = np.empty(ishape, dtype)
    for i in range(ishape[0]):
        for j in range(ishape[1]):
            want[i, j] = x[index[i, j], j] if dim == 0 else x[i, index[i, j]]
    pln = {np.dtype(F32): "pl.FP32", np.dtype(I32): "pl.INT32", np.dtype(I16): "pl.INT16"}[np.dtype(dtype)]
    prog = tensor_program({"x": x, "index": index}, {"out": (ishape, dtype)},
                          f"g = pl.gather(x, {dim}, index)\nout = pl.assemble(out, g, [0, 0])")
    check_exact(prog, {"x": x, "index": index}, {"out": want})


def test_tensor_scatter_is_torch_scatter_on_the_last_dim():
    x = R.standard_normal((4, 32)).astype(F32)
    src = R.standard_normal((4, 8)).astype(F32)
    index = np.stack([R.permutation(32)[:8] for _ in range(4)]).astype(I32)
    want = x.copy()
    for i in range(4):
        for j in range(8):
            want[i, index[i, j]] = src[i, j]
    prog = tensor_program({"x": x, "index": index, "src": src}, {"out": (x.shape, F32)},
                          "y = pl.scatter(x, -1, index, src)\nout = pl.assemble(out, y, [0, 0])")
    check_exact(prog, {"x": x, "index": index, "src": src}, {"out": want})


@pytest.mark.parametrize("dtype", [I32, F16])
def test_tile_gather_flat_indices_with_repeats(dtype):
    x = R.integers(-1000, 1000, (4, 32)).astype(dtype)
    idx = R.integers(0, 128, (2, 32)).astype(I32)
    idx[0, :8] = 5
    pln = {np.dtype(I32): "pl.INT32", np.dtype(F16): "pl.FP16"}[np.dtype(dtype)]
    prog = tile_program({"x": x, "idx": idx}, {"out": ((2, 32), dtype)},
                        f"tmp = pl.tile.create([2, 32], dtype={pln}, target_memory=pl.Mem.Vec)\n"
                        "g = pl.tile.gather(x_t, idx_t, tmp)\nout = pl.store(g, [0, 0], out)")
    want = np.array([[x.reshape(-1)[k] for k in r] for r in idx], dtype)
    check_exact(prog, {"x": x, "idx": idx}, {"out": want})


def test_tile_scatter_int32_flat_indices():
    d = R.integers(-100, 100, (4, 32)).astype(I32)
    s = R.integers(-100, 100, (4, 8)).astype(I32)
    idx = R.permutation(128)[:32].reshape(4, 8).astype(I32)
    want = d.copy().reshape(-1)
    for v, k in zip(s.reshape(-1), idx.reshape(-1)):
        want[k] = v
    prog = tile_program({"d": d, "s": s, "idx": idx}, {"out": (d.shape, I32)},
                        "r = pl.tile.scatter(d_t, s_t, idx_t)\nout = pl.store(r, [0, 0], out)")
    check_exact(prog, {"d": d, "s": s, "idx": idx}, {"out": want.reshape(4, 32)})
