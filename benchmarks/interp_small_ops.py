"""Reference-machine overhead per executed op on small tiles: loops of ITERS iterations over
16x16 and 32x32 FP32 tiles, next to the same arithmetic written as a plain Python + numpy loop.

Workloads (each op counted once per execution):
* `elementwise`: x = muls(exp(add(x, y)), 0.01) carried through the loop (3 ops per iteration);
* `matmul`: acc = matmul_acc(acc, l, r) on Left / Right tiles (1 op per iteration);
* `cross_core`: a Group whose AIC pushes a tile per iteration and whose two AIV lanes pop, add and free
  it (AIC: 1 push; each lane: pop, add, tfree: 7 ops per iteration over the three tasks).

The machine's time per op minus numpy's time per op is the fixed cost the interpreter adds. Timings are the
best of ROUNDS runs of CPU time (the least disturbed on a shared machine; the machine and these small numpy
operations run on one thread, so unloaded, CPU time is their wall time). Targets (16x16 tiles): the element-wise overhead
at most 1 us per op, the cross-core one at most 2 us. One JSON line per workload and tile size.

    python benchmarks/interp_small_ops.py [--iters N] [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import numpy as np
from targets import Target, report

import pypto.language as pl
from pypto_core.interp import Machine, make_inputs

ELEMENTWISE = """
import pypto.language as pl

@pl.program
class Elementwise:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[SIZE, SIZE], pl.FP32], b: pl.Tensor[[SIZE, SIZE], pl.FP32], out: pl.Out[pl.Tensor[[SIZE, SIZE], pl.FP32]]) -> pl.Tensor[[SIZE, SIZE], pl.FP32]:
        x0 = pl.load(a, [0, 0], [SIZE, SIZE])
        y = pl.load(b, [0, 0], [SIZE, SIZE])
        for i, (x,) in pl.range(ITERS, init_values=(x0,)):
            nxt = pl.muls(pl.exp(pl.add(x, y)), 0.01)
            res = pl.yield_(nxt)
        out = pl.store(res, [0, 0], out)
        return out
"""

MATMUL = """
import pypto.language as pl

@pl.program
class Matmul:
    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[SIZE, SIZE], pl.FP32], b: pl.Tensor[[SIZE, SIZE], pl.FP32], out: pl.Out[pl.Tensor[[SIZE, SIZE], pl.FP32]]) -> pl.Tensor[[SIZE, SIZE], pl.FP32]:
        l = pl.move(pl.load(a, [0, 0], [SIZE, SIZE], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        r = pl.move(pl.load(b, [0, 0], [SIZE, SIZE], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        acc0 = pl.matmul(l, r)
        for i, (acc,) in pl.range(ITERS, init_values=(acc0,)):
            nxt = pl.matmul_acc(acc, l, r)
            res = pl.yield_(nxt)
        out = pl.store(res, [0, 0], out)
        return out
"""

CROSS_CORE = """
import pypto.language as pl

@pl.program
class CrossCore:
    @pl.function(type=pl.FunctionType.AIC)
    def k_aic(a: pl.Tensor[[SIZE, SIZE], pl.FP32], out: pl.Out[pl.Tensor[[SIZE, SIZE], pl.FP32]]):
        buf: pl.Scalar[pl.INT32] = pl.system.import_peer_buffer(name="c2v", peer_func="k_aiv")
        pl.system.aic_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=BYTES, slot_num=2)
        t = pl.load(a, [0, 0], [SIZE, SIZE], target_memory=pl.Mem.Mat)
        for i in pl.range(ITERS):
            pl.tile.tpush_to_aiv(t, split=0)

    @pl.function(type=pl.FunctionType.AIV, attrs={"dual_aiv_dispatch": True})
    def k_aiv(a: pl.Tensor[[SIZE, SIZE], pl.FP32], out: pl.Out[pl.Tensor[[SIZE, SIZE], pl.FP32]]) -> pl.Tensor[[SIZE, SIZE], pl.FP32]:
        buf: pl.Scalar[pl.INT32] = pl.system.reserve_buffer(name="c2v", size=BUF, base=-1)
        pl.system.aiv_initialize_pipe(buf, pl.const(0, pl.INT32), dir_mask=1, slot_size=BYTES, slot_num=2)
        z = pl.tile.full([SIZE, SIZE], dtype=pl.FP32, value=0.0)
        for i, (x,) in pl.range(ITERS, init_values=(z,)):
            p: pl.Tile[[SIZE, SIZE], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)
            nxt = pl.add(x, p)
            pl.system.tfree_to_aic(p)
            res = pl.yield_(nxt)
        out = pl.store(res, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Group)
    def k(a: pl.Tensor[[SIZE, SIZE], pl.FP32], out: pl.Out[pl.Tensor[[SIZE, SIZE], pl.FP32]]) -> pl.Tensor[[SIZE, SIZE], pl.FP32]:
        self.k_aic(a, out)
        self.k_aiv(a, out)
        return out
"""


def _program(template: str, size: int, iters: int) -> str:
    return (template.replace("ITERS", str(iters)).replace("BYTES", str(size * size * 4))
            .replace("BUF", str(2 * size * size * 4)).replace("SIZE", str(size)))


def numpy_elementwise(a: np.ndarray, b: np.ndarray, iters: int) -> np.ndarray:
    x = a.copy()
    for _ in range(iters):
        x = np.exp(x + b) * np.float32(0.01)
    return x


def numpy_matmul(a: np.ndarray, b: np.ndarray, iters: int) -> np.ndarray:
    acc = a @ b
    for _ in range(iters):
        acc = acc + a @ b
    return acc


def numpy_cross_core(a: np.ndarray, b: np.ndarray, iters: int) -> np.ndarray:
    x = np.zeros_like(a)
    for _ in range(iters):
        for _lane in range(2):  # both lanes add the popped tile
            p = a.copy()
            x = x + p
    return x


TARGETS = {"elementwise": 1.0, "cross_core": 2.0}  # us of overhead per op on 16x16 tiles

WORKLOADS: list[tuple[str, str, int, Callable[..., np.ndarray], str]] = [
    ("elementwise", ELEMENTWISE, 3, numpy_elementwise, "main"),
    ("matmul", MATMUL, 1, numpy_matmul, "main"),
    ("cross_core", CROSS_CORE, 7, numpy_cross_core, "k"),
]


def best_of(rounds: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(f"best of {args.rounds} runs, {args.iters} loop iterations; CPU microseconds per executed op")
    overheads: dict[tuple[str, int], float] = {}
    rows: list[dict[str, object]] = []
    print(f"  {'workload':<12} {'tile':>6} {'ops':>7} {'machine':>9} {'numpy':>8} {'overhead':>9} {'ratio':>7}")
    for name, template, ops_per_iter, reference, entry in WORKLOADS:
        for size in (16, 32):
            program = pl.parse(_program(template, size, args.iters))
            inputs = make_inputs(program.get_function(entry), seed=0)
            inputs = {k: (v * 0.01).astype(v.dtype) if isinstance(v, np.ndarray) else v for k, v in inputs.items()}
            machine = Machine(program)
            ops = ops_per_iter * args.iters
            t_machine = best_of(args.rounds, lambda: machine.run(entry, dict(inputs)))  # noqa: B023
            a, b = inputs["a"], inputs.get("b", inputs["a"])
            t_numpy = best_of(args.rounds, lambda: reference(a, b, args.iters))  # noqa: B023
            per_machine, per_numpy = t_machine / ops * 1e6, t_numpy / ops * 1e6
            print(f"  {name:<12} {size:>4}^2 {ops:>7} {per_machine:9.2f} {per_numpy:8.2f} "
                  f"{per_machine - per_numpy:9.2f} {per_machine / per_numpy:6.1f}x")
            overheads[(name, size)] = per_machine - per_numpy
            rows.append({"bench": "interp_small_ops", "kind": "workload", "workload": name, "tile": size,
                         "ops": ops, "machine_us": round(per_machine, 3), "numpy_us": round(per_numpy, 3),
                         "overhead_us": round(per_machine - per_numpy, 3)})
    for row in rows:
        print(json.dumps(row))
    report("interp_small_ops", [Target(f"{name} overhead per op, 16x16 tiles", overheads[(name, 16)], limit, " us")
                                for name, limit in TARGETS.items()])


if __name__ == "__main__":
    main()
