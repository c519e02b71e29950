"""Time each pass of the `default` pipeline on K generated mixed kernels (K = 50, 200, 800 by default),
next to the `outline` preset on the same programs.

Workload: one program, one Opaque function with K sequential `pl.at(level=pl.Level.CORE_GROUP)` scopes on
[32, 32] FP32 tensors, cycling through five mixed kinds: a matmul + bias split UP_DOWN, the same split
LEFT_RIGHT, an unsplit matmul + exp (Ascend910B: the no-split dual-AIV replay), a full-width
`pl.split_aiv` region after a matmul-free vector scope, and a per-lane region taking the product with
pl.aiv_shard. Each scope's result feeds the next. Ascend910B, no instruments, no verification; the
best of three runs per pass is printed with its growth per 4x K against "linear, under 4.5x", plus JSON
lines (pass_timing.py).

    python benchmarks/split_pipeline.py [K ...]
"""

from __future__ import annotations

import sys

from pass_timing import RUNS, chain, measure, preset_passes, print_table

from pypto_core.language.api import parse

BACKEND = "Ascend910B"
T = "pl.Tensor[[32, 32], pl.FP32]"

SCOPE_KINDS = (
    ("optimizations=[pl.split(pl.SplitMode.UP_DOWN)]", ["x = pl.add(pl.matmul(x, w), b)"]),
    ("optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]", ["x = pl.add(pl.matmul(x, w), b)"]),
    ("", ["x = pl.exp(pl.matmul(x, w))"]),
    ("", ["for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):", "    x = pl.exp(pl.mul(x, 0.5))"]),
    ("", ["c = pl.matmul(x, w)", "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):",
          "    h = pl.aiv_shard(c)", "    x = pl.assemble(x, pl.exp(h), [aiv_id * 16, 0])"]),
)


def workload(k: int) -> str:
    lines = ["import pypto.language as pl", "", "", "@pl.program", "class SplitChain:", "    @pl.function",
             f"    def main(self, x: {T}, w: {T}, b: {T}) -> {T}:"]
    for i in range(k):
        extra, body = SCOPE_KINDS[i % len(SCOPE_KINDS)]
        lines.append(f"        with pl.at(level=pl.Level.CORE_GROUP{', ' + extra if extra else ''}):")
        lines += [f"            {stmt}" for stmt in body]
    lines.append("        return x")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [50, 200, 800]
    for preset in ("default", "outline"):  # imports, plugins, caches
        chain(parse(workload(5), "<warm-up>"), preset_passes(preset), BACKEND)
    results = {k: measure("split_pipeline", workload(k), "default", BACKEND, k) for k in sizes}
    outline = {k: sum(measure("split_pipeline", workload(k), "outline", BACKEND, k).values()) for k in sizes}
    ratio = {k: sum(results[k].values()) / outline[k] for k in sizes}
    print_table(f"best of {RUNS} runs, seconds per pass of the default pipeline ({BACKEND})", results,
                {"outline preset total": outline, "default / outline": ratio})


if __name__ == "__main__":
    main(sys.argv[1:])
