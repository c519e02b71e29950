"""PyPTO-style kernels of the system_matmul family: launch queries, barriers / flags / task ids,
matmuls with out_dtype / a_trans / b_trans, and MX matmuls. Each builder reads its closure values; the
expected outputs are numpy formulas written here."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import pypto.language as pl

from .harness import check_kernel

# MX block-scale matmuls exist on Ascend950 only (insert_mx_scale_addr refuses them elsewhere).
MX_BACKEND = "Ascend950"

F8, E8 = ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e8m0fnu
RNG = np.random.default_rng(14)


def normal(shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def small_ints(shape, dtype=np.float16):
    """Integers in [-4, 4]: products and their FP32 sums are exact, so no rounding hides in the compare."""
    return RNG.integers(-4, 5, shape).astype(np.float32).astype(dtype)


# -- launch queries ------------------------------------------------------------------------------------
def build_block_offset(rows, cols, scale):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                b = pl.get_block_idx()
                y = pl.mul(x, scale)
                out = pl.assemble(out, y, [b * rows, 0])
            return out
    return P


@pytest.mark.parametrize("rows,cols,scale", [(16, 64, 2.0), (32, 32, -0.5)])
def test_block_idx_offsets_the_block(rows, cols, scale):
    x = normal((rows, cols))
    check_kernel(build_block_offset(rows, cols, scale), {"x": x, "out": np.zeros_like(x)}, {"out": x * scale})


def build_tile_block_queries(rows, cols):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            n = pl.tile.get_block_num()
            b = pl.tile.get_block_idx()
            t = pl.load(x, [b * rows, 0], [rows, cols])
            y = pl.tile.adds(t, 1.0)
            out = pl.store(y, [(n - 1) * rows, 0], out)
            return out
    return P


@pytest.mark.parametrize("rows,cols", [(16, 128), (8, 64)])
def test_tile_block_num_is_one_block(rows, cols):
    x = normal((rows, cols))
    check_kernel(build_tile_block_queries(rows, cols), {"x": x, "out": np.zeros_like(x)}, {"out": x + 1.0})


def build_tensor_block_num(rows, cols):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                n = pl.get_block_num()
                y = pl.exp(x)
                out = pl.assemble(out, y, [(n - 1) * rows, 0])
            return out
    return P


def test_tensor_block_num():
    x = normal((16, 64))
    check_kernel(build_tensor_block_num(16, 64), {"x": x, "out": np.zeros_like(x)}, {"out": np.exp(x)})


def build_aiv_count(rows, cols):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            k = pl.system.available_aiv_count()
            t = pl.load(x, [0, 0], [rows, cols])
            y = pl.tile.muls(t, pl.cast(k, pl.FP32))
            out = pl.store(y, [0, 0], out)
            return out
    return P


def build_cluster_count(rows, cols):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            k = pl.system.available_cluster_count()
            t = pl.load(x, [0, 0], [rows, cols])
            y = pl.tile.muls(t, pl.cast(k, pl.FP32))
            out = pl.store(y, [0, 0], out)
            return out
    return P


@pytest.mark.parametrize("build,count", [(build_aiv_count, 2), (build_cluster_count, 1)])
def test_available_core_counts(build, count):
    # One cluster (one AIC and its two AIV lanes) per launch on the reference machine.
    x = normal((16, 64))
    check_kernel(build(16, 64), {"x": x, "out": np.zeros_like(x)}, {"out": x * count})


def build_subblock_rows(rows, cols):
    half = rows // 2

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    lane = pl.get_subblock_idx()
                    t = pl.load(x, [lane * half, 0], [half, cols])
                    y = pl.tile.muls(t, 3.0)
                    out = pl.store(y, [lane * half, 0], out)
            return out
    return P


@pytest.mark.parametrize("rows,cols", [(16, 64), (32, 32)])
def test_subblock_idx_picks_each_lanes_rows(rows, cols):
    x = normal((rows, cols))
    # compile=False: the region path of LowerAutoVectorSplit (plugins/pass_split, not this family's files) takes
    # a body as per lane only when its offsets use the region's `aiv_id`; a second get_subblock_idx() call
    # is read as full width and halved again, so lane 1's rows are never written after the pipeline.
    check_kernel(build_subblock_rows(rows, cols), {"x": x, "out": np.zeros_like(x)}, {"out": x * 3.0},
                 compile=False)


def build_tensor_subblock(rows, cols):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                s = pl.get_subblock_idx()
                y = pl.add(x, 1.0)
                out = pl.assemble(out, y, [s * 0, 0])
            return out
    return P


def test_tensor_subblock_idx_outside_a_split_is_lane_zero():
    x = normal((16, 32))
    check_kernel(build_tensor_subblock(16, 32), {"x": x, "out": np.zeros_like(x)}, {"out": x + 1.0})


# -- barriers, fences, flags, task ids --------------------------------------------------------------------
def build_bar_all(rows, cols):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            a = pl.load(x, [0, 0], [rows, cols])
            b = pl.load(y, [0, 0], [rows, cols])
            pl.system.bar_all()
            c = pl.tile.mul(a, b)
            out = pl.store(c, [0, 0], out)
            return out
    return P


def build_bar_v(rows, cols):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            a = pl.load(x, [0, 0], [rows, cols])
            pl.system.bar_v()
            b = pl.load(y, [0, 0], [rows, cols])
            pl.system.bar_v()
            c = pl.tile.mul(a, b)
            out = pl.store(c, [0, 0], out)
            return out
    return P


def build_fence(rows, cols):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32], y: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                c = pl.mul(x, y)
                pl.system.fence()
                out = pl.assemble(out, c, [0, 0])
            return out
    return P


@pytest.mark.parametrize("build", [build_bar_all, build_bar_v, build_fence])
@pytest.mark.parametrize("rows,cols", [(16, 64), (8, 128)])
def test_barriers_change_no_value(build, rows, cols):
    x, y = normal((rows, cols)), normal((rows, cols))
    check_kernel(build(rows, cols), {"x": x, "y": y, "out": np.zeros_like(x)}, {"out": x * y})


def build_flags(rows, cols, event):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            a = pl.load(x, [0, 0], [rows, cols])
            pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=event)
            pl.system.sync_dst(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=event)
            c = pl.tile.exp(a)
            pl.system.sync_src(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=event)
            pl.system.sync_dst(set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=event)
            out = pl.store(c, [0, 0], out)
            return out
    return P


@pytest.mark.parametrize("event", [0, 7])
def test_pipe_flags_change_no_value(event):
    x = normal((16, 32))
    check_kernel(build_flags(16, 32, event), {"x": x, "out": np.zeros_like(x)}, {"out": np.exp(x)})


def build_barrier_in_matmul(m, k, n):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, k], pl.FP16], b: pl.Tensor[[k, n], pl.FP16],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            am = pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], [k, n], target_memory=pl.Mem.Mat)
            pl.system.bar_m()
            c = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
            pl.system.bar_all()
            out = pl.store(c, [0, 0], out)
            return out
    return P


def test_barriers_around_a_matmul():
    a, b = normal((16, 32), np.float16), normal((32, 32), np.float16)
    want = a.astype(np.float32) @ b.astype(np.float32)
    check_kernel(build_barrier_in_matmul(16, 32, 32), {"a": a, "b": b, "out": np.zeros((16, 32), np.float32)},
                 {"out": want})


def build_task_valid(rows, cols, dummy):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            if dummy:
                t = pl.system.task_dummy()
            else:
                t = pl.system.task_invalid()
            ok = pl.system.task_is_valid(t)
            a = pl.load(x, [0, 0], [rows, cols])
            if ok:
                r = pl.tile.muls(a, 2.0)
                out = pl.store(r, [0, 0], out)
            else:
                r2 = pl.tile.neg(a)
                out = pl.store(r2, [0, 0], out)
            return out
    return P


@pytest.mark.parametrize("dummy", [True, False])
def test_task_is_valid(dummy):
    x = normal((16, 32))
    check_kernel(build_task_valid(16, 32, dummy), {"x": x, "out": np.zeros_like(x)},
                 {"out": x * 2.0 if dummy else -x})


def build_set_ffts(rows, cols):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, ws: pl.Tensor[[256], pl.INT64], x: pl.Tensor[[rows, cols], pl.FP32],
                 out: pl.Out[pl.Tensor[[rows, cols], pl.FP32]]) -> pl.Tensor[[rows, cols], pl.FP32]:
            pl.system.set_ffts(ws)
            a = pl.load(x, [0, 0], [rows, cols])
            out = pl.store(pl.tile.abs(a), [0, 0], out)
            return out
    return P


def test_set_ffts_changes_no_value():
    x = normal((16, 32))
    check_kernel(build_set_ffts(16, 32), {"ws": np.zeros(256, np.int64), "x": x, "out": np.zeros_like(x)},
                 {"out": np.abs(x)})


# -- matmuls with out_dtype / a_trans / b_trans ----------------------------------------------------------
def build_matmul_trans(m, k, n, a_trans, b_trans, out_dtype):
    a_shape = [k, m] if a_trans else [m, k]
    b_shape = [n, k] if b_trans else [k, n]

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[a_shape, pl.FP16], b: pl.Tensor[b_shape, pl.FP16],
                 out: pl.Out[pl.Tensor[[m, n], out_dtype]]) -> pl.Tensor[[m, n], out_dtype]:
            am = pl.load(a, [0, 0], a_shape, target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], b_shape, target_memory=pl.Mem.Mat)
            al = pl.move(am, target_memory=pl.Mem.Left)
            br = pl.move(bm, target_memory=pl.Mem.Right)
            c = pl.matmul(al, br, out_dtype=out_dtype, a_trans=a_trans, b_trans=b_trans)
            out = pl.store(c, [0, 0], out)
            return out
    return P


_NP = {pl.FP32: np.float32, pl.FP16: np.float16, pl.BF16: ml_dtypes.bfloat16}


@pytest.mark.parametrize("m,k,n,a_trans,b_trans,out_dtype", [
    (16, 32, 32, False, True, pl.FP32), (16, 64, 16, True, False, pl.FP32), (32, 32, 16, True, True, pl.FP32),
    (16, 32, 32, False, False, pl.FP16), (16, 64, 32, False, True, pl.BF16), (32, 16, 16, True, True, pl.FP16),
])
def test_tile_matmul_transposed_operands_and_out_dtype(m, k, n, a_trans, b_trans, out_dtype):
    a = small_ints((k, m) if a_trans else (m, k))
    b = normal((n, k) if b_trans else (k, n), np.float16)
    lhs = a.astype(np.float64).T if a_trans else a.astype(np.float64)
    rhs = b.astype(np.float64).T if b_trans else b.astype(np.float64)
    want = (lhs @ rhs).astype(np.float32).astype(_NP[out_dtype])
    check_kernel(build_matmul_trans(m, k, n, a_trans, b_trans, out_dtype),
                 {"a": a, "b": b, "out": np.zeros((m, n), _NP[out_dtype])}, {"out": want})


def build_matmul_acc_btrans(m, k, n, steps):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, k * steps], pl.FP16], b: pl.Tensor[[n, k * steps], pl.FP16],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            a0 = pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat)
            b0 = pl.load(b, [0, 0], [n, k], target_memory=pl.Mem.Mat)
            acc0 = pl.matmul(pl.move(a0, target_memory=pl.Mem.Left), pl.move(b0, target_memory=pl.Mem.Right),
                             b_trans=True)
            for i, (acc,) in pl.range(1, steps, init_values=(acc0,)):
                ai = pl.load(a, [0, i * k], [m, k], target_memory=pl.Mem.Mat)
                bi = pl.load(b, [0, i * k], [n, k], target_memory=pl.Mem.Mat)
                nxt = pl.matmul_acc(acc, pl.move(ai, target_memory=pl.Mem.Left),
                                    pl.move(bi, target_memory=pl.Mem.Right), b_trans=True)
                res = pl.yield_(nxt)
            out = pl.store(res, [0, 0], out)
            return out
    return P


@pytest.mark.parametrize("m,k,n,steps", [(16, 32, 32, 3), (32, 64, 16, 2)])
def test_matmul_acc_with_b_trans_over_k(m, k, n, steps):
    a, b = small_ints((m, k * steps)), small_ints((n, k * steps))
    want = (a.astype(np.float64) @ b.astype(np.float64).T).astype(np.float32)
    check_kernel(build_matmul_acc_btrans(m, k, n, steps), {"a": a, "b": b, "out": np.zeros((m, n), np.float32)},
                 {"out": want})


def build_tensor_matmul_trans(m, k, n):
    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[k, m], pl.FP32], b: pl.Tensor[[n, k], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.system.bar_all()
                c = pl.matmul(a, b, a_trans=True, b_trans=True)
                out = pl.assemble(out, c, [0, 0])
            return out
    return P


def test_tensor_matmul_both_transposed():
    a, b = normal((32, 16)), normal((32, 32))
    check_kernel(build_tensor_matmul_trans(16, 32, 32), {"a": a, "b": b, "out": np.zeros((16, 32), np.float32)},
                 {"out": (a.astype(np.float64).T @ b.astype(np.float64).T).astype(np.float32)})


# -- MX matmul ---------------------------------------------------------------------------------------------
def mx_inputs(m, k, n, lo=-3, hi=4):
    kb = -(-k // 32)
    a, b = small_ints((m, k), np.float32).astype(F8), small_ints((k, n), np.float32).astype(F8)
    sa = (2.0 ** RNG.integers(lo, hi, (m, kb))).astype(E8)
    sb = (2.0 ** RNG.integers(lo, hi, (kb, n))).astype(E8)
    return a, sa, b, sb


def mx_formula(a, sa, b, sb):
    """(a * scale_a) @ (b * scale_b), one scale per 32 elements along K, in float64."""
    k = a.shape[1]
    ea = np.repeat(sa.astype(np.float64), 32, axis=1)[:, :k]
    eb = np.repeat(sb.astype(np.float64), 32, axis=0)[:k]
    return (a.astype(np.float64) * ea) @ (b.astype(np.float64) * eb)


def build_mx(m, k, n, explicit_moves):
    kb = -(-k // 32)

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, k], pl.FP8E4M3FN], sa: pl.Tensor[[m, kb], pl.FP8E8M0],
                 b: pl.Tensor[[k, n], pl.FP8E4M3FN], sb: pl.Tensor[[kb, n], pl.FP8E8M0],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            am = pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], [k, n], target_memory=pl.Mem.Mat)
            sam = pl.load(sa, [0, 0], [m, kb], target_memory=pl.Mem.Mat)
            sbm = pl.load(sb, [0, 0], [kb, n], target_memory=pl.Mem.Mat)
            if explicit_moves:
                c = pl.matmul_mx(pl.move(am, target_memory=pl.Mem.Left), pl.move(sam, target_memory=pl.Mem.LeftScale),
                                 pl.move(bm, target_memory=pl.Mem.Right),
                                 pl.move(sbm, target_memory=pl.Mem.RightScale))
            else:
                c = pl.tile.matmul_mx(am, sam, bm, sbm)
            out = pl.store(c, [0, 0], out)
            return out
    return P


@pytest.mark.parametrize("m,k,n", [(16, 64, 32), (32, 128, 64), (48, 192, 32)])
def test_matmul_mx(m, k, n):
    a, sa, b, sb = mx_inputs(m, k, n)
    want = mx_formula(a, sa, b, sb).astype(np.float32)
    inputs = {"a": a, "sa": sa, "b": b, "sb": sb, "out": np.zeros((m, n), np.float32)}
    check_kernel(build_mx(m, k, n, True), inputs, {"out": want}, backend=MX_BACKEND)


@pytest.mark.parametrize("m,k,n", [(16, 64, 32), (32, 64, 64)])
def test_matmul_mx_operands_placed_by_the_pipeline(m, k, n):
    # Mat operands: InferTileMemorySpace moves them to Left / LeftScale / Right / RightScale.
    a, sa, b, sb = mx_inputs(m, k, n)
    inputs = {"a": a, "sa": sa, "b": b, "sb": sb, "out": np.zeros((m, n), np.float32)}
    check_kernel(build_mx(m, k, n, False), inputs, {"out": mx_formula(a, sa, b, sb).astype(np.float32)}, backend=MX_BACKEND)


def build_mx_acc(m, k, n, steps):
    kb = k // 32

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, k * steps], pl.FP8E4M3FN], sa: pl.Tensor[[m, kb * steps], pl.FP8E8M0],
                 b: pl.Tensor[[k * steps, n], pl.FP8E4M3FN], sb: pl.Tensor[[kb * steps, n], pl.FP8E8M0],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            a0 = pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat)
            s0 = pl.load(sa, [0, 0], [m, kb], target_memory=pl.Mem.Mat)
            b0 = pl.load(b, [0, 0], [k, n], target_memory=pl.Mem.Mat)
            t0 = pl.load(sb, [0, 0], [kb, n], target_memory=pl.Mem.Mat)
            acc0 = pl.matmul_mx(a0, s0, b0, t0)
            for i, (acc,) in pl.range(1, steps, init_values=(acc0,)):
                ai = pl.load(a, [0, i * k], [m, k], target_memory=pl.Mem.Mat)
                si = pl.load(sa, [0, i * kb], [m, kb], target_memory=pl.Mem.Mat)
                bi = pl.load(b, [i * k, 0], [k, n], target_memory=pl.Mem.Mat)
                ti = pl.load(sb, [i * kb, 0], [kb, n], target_memory=pl.Mem.Mat)
                nxt = pl.matmul_mx_acc(acc, ai, si, bi, ti)
                res = pl.yield_(nxt)
            out = pl.store(res, [0, 0], out)
            return out
    return P


@pytest.mark.parametrize("m,k,n,steps", [(16, 64, 32, 2), (32, 128, 32, 3)])
def test_matmul_mx_acc_over_k(m, k, n, steps):
    a, sa, b, sb = mx_inputs(m, k * steps, n)
    inputs = {"a": a, "sa": sa, "b": b, "sb": sb, "out": np.zeros((m, n), np.float32)}
    check_kernel(build_mx_acc(m, k, n, steps), inputs, {"out": mx_formula(a, sa, b, sb).astype(np.float32)}, backend=MX_BACKEND)


def build_mx_bias(m, k, n):
    kb = k // 32

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, k], pl.FP8E4M3FN], sa: pl.Tensor[[m, kb], pl.FP8E8M0],
                 b: pl.Tensor[[k, n], pl.FP8E4M3FN], sb: pl.Tensor[[kb, n], pl.FP8E8M0],
                 bias: pl.Tensor[[1, n], pl.FP32],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            am = pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat)
            sam = pl.load(sa, [0, 0], [m, kb], target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], [k, n], target_memory=pl.Mem.Mat)
            sbm = pl.load(sb, [0, 0], [kb, n], target_memory=pl.Mem.Mat)
            bias_m = pl.load(bias, [0, 0], [1, n], target_memory=pl.Mem.Mat)
            c = pl.matmul_mx_bias(am, sam, bm, sbm, pl.move(bias_m, target_memory=pl.Mem.Bias))
            out = pl.store(c, [0, 0], out)
            return out
    return P


@pytest.mark.parametrize("m,k,n", [(16, 64, 32), (32, 128, 64)])
def test_matmul_mx_bias(m, k, n):
    a, sa, b, sb = mx_inputs(m, k, n)
    bias = small_ints((1, n), np.float32)
    inputs = {"a": a, "sa": sa, "b": b, "sb": sb, "bias": bias, "out": np.zeros((m, n), np.float32)}
    check_kernel(build_mx_bias(m, k, n), inputs, {"out": (mx_formula(a, sa, b, sb) + bias).astype(np.float32)}, backend=MX_BACKEND)


def build_mx_scale_addr(m, k, n):
    kb = k // 32

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, k], pl.FP8E4M3FN], sa: pl.Tensor[[m, kb], pl.FP8E8M0],
                 b: pl.Tensor[[k, n], pl.FP8E4M3FN], sb: pl.Tensor[[kb, n], pl.FP8E8M0],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            al = pl.move(pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
            br = pl.move(pl.load(b, [0, 0], [k, n], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
            sal = pl.move(pl.load(sa, [0, 0], [m, kb], target_memory=pl.Mem.Mat), target_memory=pl.Mem.LeftScale)
            sbr = pl.move(pl.load(sb, [0, 0], [kb, n], target_memory=pl.Mem.Mat), target_memory=pl.Mem.RightScale)
            sal2 = pl.tile.tget_scale_addr(sal, al)
            sbr2 = pl.tile.tget_scale_addr(sbr, br)
            c = pl.matmul_mx(al, sal2, br, sbr2)
            out = pl.store(c, [0, 0], out)
            return out
    return P


def test_tget_scale_addr_keeps_the_scales():
    a, sa, b, sb = mx_inputs(16, 128, 32)
    inputs = {"a": a, "sa": sa, "b": b, "sb": sb, "out": np.zeros((16, 32), np.float32)}
    check_kernel(build_mx_scale_addr(16, 128, 32), inputs, {"out": mx_formula(a, sa, b, sb).astype(np.float32)}, backend=MX_BACKEND)


def build_mx_then_vector(m, k, n):
    """A mixed kernel: the MX product on the cube, an exp on the vector lanes, a fence between."""
    kb = k // 32

    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, a: pl.Tensor[[m, k], pl.FP8E4M3FN], sa: pl.Tensor[[m, kb], pl.FP8E8M0],
                 b: pl.Tensor[[k, n], pl.FP8E4M3FN], sb: pl.Tensor[[kb, n], pl.FP8E8M0],
                 out: pl.Out[pl.Tensor[[m, n], pl.FP32]]) -> pl.Tensor[[m, n], pl.FP32]:
            am = pl.load(a, [0, 0], [m, k], target_memory=pl.Mem.Mat)
            sam = pl.load(sa, [0, 0], [m, kb], target_memory=pl.Mem.Mat)
            bm = pl.load(b, [0, 0], [k, n], target_memory=pl.Mem.Mat)
            sbm = pl.load(sb, [0, 0], [kb, n], target_memory=pl.Mem.Mat)
            c = pl.matmul_mx(am, sam, bm, sbm)
            pl.system.fence()
            v = pl.move(c, target_memory=pl.Mem.Vec)
            e = pl.tile.muls(v, 0.5)
            out = pl.store(e, [0, 0], out)
            return out
    return P


def test_mx_product_scaled_on_the_vector_side():
    a, sa, b, sb = mx_inputs(16, 64, 32)
    inputs = {"a": a, "sa": sa, "b": b, "sb": sb, "out": np.zeros((16, 32), np.float32)}
    check_kernel(build_mx_then_vector(16, 64, 32), inputs, {"out": (mx_formula(a, sa, b, sb) * 0.5).astype(np.float32)}, backend=MX_BACKEND)
