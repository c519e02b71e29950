"""Reference-machine speed: a tiled 1024x1024 matmul followed by an element-wise exp.

The program below (128x128 tiles in an i / j / k loop nest, the K loop carrying the Acc tile)
runs on the numpy reference machine next to the same math written directly in numpy: the one-liner
`np.exp(a @ b)` and the same loop nest over 128x128 tiles in plain numpy, loading tiles as copies
and as views (what the machine cannot do faster than: BLAS is less efficient on 128x128 tiles than
on one 1024x1024 product). Target: the machine within 1.5x of `np.exp(a @ b)` (medians). One JSON line per
side and round.

    python benchmarks/interp.py [--repeat N]
    OPENBLAS_NUM_THREADS=1 python benchmarks/interp.py   # numpy on one core too: the work per core

The machine limits BLAS to one thread while it runs (pypto_core/interp/blas.py): 128x128 products
gain little from a second thread and lose a lot when another process holds a core. The numpy sides
use BLAS as configured; with several threads the single 1024x1024 product parallelises far better
than 128x128 tile products, which no interpreter can make up for. The plain-numpy tiled sides keep
the default threads, so on a busy machine they can be much slower than the machine.
Timings on a busy machine vary a lot: the rounds interleave the sides so that they share the load;
the median and the best round of each are shown.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from functools import partial

import numpy as np
from targets import Target, report

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


def timings(repeat: int, *fns) -> list[list[float]]:
    """Each function's times, in seconds; rounds interleave them so that all see the same machine load."""
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[i].append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="rounds; each runs every side once")
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

    def tiled(copy: bool) -> np.ndarray:
        def tile(x: np.ndarray) -> np.ndarray:
            return x.copy() if copy else x

        res = np.empty((N, N), np.float32)
        for i in range(0, N, T):
            for j in range(0, N, T):
                acc = np.matmul(tile(a[i:i + T, 0:T]), tile(b[0:T, j:j + T]))
                for k in range(T, N, T):
                    p = np.matmul(tile(a[i:i + T, k:k + T]), tile(b[k:k + T, j:j + T]))
                    p += acc
                    acc = p
                res[i:i + T, j:j + T] = np.exp(acc)
        return res

    got, want = on_machine(), direct()
    err = float(np.max(np.abs(got - want) / np.maximum(np.abs(want), 1e-30)))
    if err > 1e-4:
        raise SystemExit(f"the machine's result differs from numpy: max relative error {err:.3g}")
    sides = [("reference machine", on_machine), ("numpy, np.exp(a @ b)", direct),
             ("numpy, same tiling, copies", partial(tiled, True)), ("numpy, same tiling, views", partial(tiled, False))]
    runs = timings(args.repeat, *(fn for _, fn in sides))
    med = [statistics.median(t) for t in runs]
    best = [min(t) for t in runs]
    print(f"tiled {N}x{N} matmul + exp, {T}x{T} tiles ({(N // T) ** 3} tile matmuls), {args.repeat} rounds; "
          f"max relative error {err:.2g}")
    print(f"  {'':28} {'median':>8} {'best':>8}    machine / this: median, best")
    for i, (name, _) in enumerate(sides):
        line = f"  {name + ':':28} {med[i] * 1e3:8.1f} {best[i] * 1e3:8.1f} ms"
        if i > 0:
            line += f"  {med[0] / med[i]:5.2f}x {best[0] / best[i]:5.2f}x"
        print(line)
    for i, (name, _) in enumerate(sides):
        for round_, seconds in enumerate(runs[i]):
            print(json.dumps({"bench": "interp", "kind": "run", "side": name, "round": round_,
                              "seconds": round(seconds, 5)}))
    report("interp", [Target("reference machine / np.exp(a @ b) (medians)", med[0] / med[1], 1.5)])


if __name__ == "__main__":
    main()
