"""Reference-machine speed: a tiled 1024x1024 matmul followed by an element-wise exp.

The program below (128x128 tiles in an i / j / k loop nest, the K loop carrying the Acc tile)
runs on the numpy reference machine next to the same math written directly in numpy: the one-liner
`np.exp(a @ b)` and the same loop nest over 128x128 tiles in plain numpy (what the machine cannot
do faster than: BLAS is less efficient on 128x128 tiles than on one 1024x1024 product, and a tile
load is a copy). Target: the machine within 3x of direct numpy.

    python benchmarks/interp.py [--repeat N]
    OPENBLAS_NUM_THREADS=1 python benchmarks/interp.py   # per-core: the fair comparison

With several BLAS threads the single 1024x1024 product parallelises far better than 128x128 tile
products, which no interpreter can make up for; one BLAS thread compares the work per core.
Timings on a busy machine vary a lot: the rounds interleave the three so they share the load.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import pypto.language as pl
from pypto_core.interp import Machine, make_inputs

N, T = 1024, 128

PROGRAM = f"""
import pypto.language as pl

@pl.program
class MatmulExp:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[{N}, {N}], pl.FP32], b: pl.Tensor[[{N}, {N}], pl.FP32], out: pl.Out[pl.Tensor[[{N}, {N}], pl.FP32]]) -> pl.Tensor[[{N}, {N}], pl.FP32]:
        for i in pl.range(0, {N}, {T}):
            for j in pl.range(0, {N}, {T}):
                a0 = pl.load(a, [i, 0], [{T}, {T}], target_memory=pl.Mem.Mat)
                b0 = pl.load(b, [0, j], [{T}, {T}], target_memory=pl.Mem.Mat)
                acc0 = pl.matmul(pl.move(a0, target_memory=pl.Mem.Left), pl.move(b0, target_memory=pl.Mem.Right))
                for k, (acc,) in pl.range({T}, {N}, {T}, init_values=(acc0,)):
                    ak = pl.load(a, [i, k], [{T}, {T}], target_memory=pl.Mem.Mat)
                    bk = pl.load(b, [k, j], [{T}, {T}], target_memory=pl.Mem.Mat)
                    nxt = pl.matmul_acc(acc, pl.move(ak, target_memory=pl.Mem.Left), pl.move(bk, target_memory=pl.Mem.Right))
                    res = pl.yield_(nxt)
                e = pl.exp(pl.move(res, target_memory=pl.Mem.Vec))
                out = pl.store(e, [i, j], out)
        return out
"""


def best_times(repeat: int, *fns) -> list[float]:
    """The best time of each function; rounds interleave them so that all see the same machine load."""
    best = [float("inf")] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="runs of each side; the best time counts")
    args = parser.parse_args()

    program = pl.parse(PROGRAM)
    inputs = make_inputs(program.get_function("main"), seed=0)
    a = (inputs["a"] * 0.1).astype(np.float32)  # keeps exp(a @ b) finite
    b = (inputs["b"] * 0.1).astype(np.float32)
    machine = Machine(program)
    out = np.empty((N, N), np.float32)

    def on_machine() -> np.ndarray:
        return machine.run(inputs={"a": a, "b": b, "out": out})

    def direct() -> np.ndarray:
        return np.exp(a @ b)

    def tiled() -> np.ndarray:
        res = np.empty((N, N), np.float32)
        for i in range(0, N, T):
            for j in range(0, N, T):
                acc = np.matmul(a[i:i + T, 0:T].copy(), b[0:T, j:j + T].copy())
                for k in range(T, N, T):
                    p = np.matmul(a[i:i + T, k:k + T].copy(), b[k:k + T, j:j + T].copy())
                    p += acc
                    acc = p
                res[i:i + T, j:j + T] = np.exp(acc)
        return res

    got, want = on_machine(), direct()
    err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-30)))
    if err > 1e-4:
        raise SystemExit(f"the machine's result differs from numpy: max relative error {err:.3g}")
    machine_s, numpy_s, tiled_s = best_times(args.repeat, on_machine, direct, tiled)
    print(f"tiled {N}x{N} matmul + exp, {T}x{T} tiles ({(N // T) ** 3} tile matmuls), best of {args.repeat}; "
          f"max relative error {err:.2g}")
    print(f"  reference machine:           {machine_s * 1e3:8.1f} ms")
    print(f"  numpy, np.exp(a @ b):        {numpy_s * 1e3:8.1f} ms   machine / this = {machine_s / numpy_s:5.2f}x "
          f"(target <= 3x)")
    print(f"  numpy, same 128x128 tiling:  {tiled_s * 1e3:8.1f} ms   machine / this = {machine_s / tiled_s:5.2f}x")


if __name__ == "__main__":
    main()
