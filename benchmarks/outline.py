"""Time parse -> ConvertToSSA -> OutlineIncoreScopes -> print on the N-scope workload (issue 4).

Workload: one function with N sequential `pl.at(level=pl.Level.CORE_GROUP)` scopes, each two chained
`pl.add`/`pl.mul` on `pl.Tensor[[64], pl.FP32]`. Prints per-stage seconds and the growth factor of
the whole chain per 4x step of N (linear algorithms keep it near 4). The garbage collector is paused
while a chain runs, as in parse_print.py: its cost depends on everything the process holds, not on
the algorithms measured here.

    python benchmarks/outline.py [N ...]
"""

from __future__ import annotations

import gc
import sys
import time

import pypto.language as pl
from pypto import ir, passes


def workload(n: int) -> str:
    lines = [
        "import pypto.language as pl",
        "",
        "@pl.program",
        "class Chain:",
        "    @pl.function",
        "    def main(self, x: pl.Tensor[[64], pl.FP32], y: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:",
    ]
    for _ in range(n):
        lines += [
            "        with pl.at(level=pl.Level.CORE_GROUP):",
            "            t = pl.add(x, y)",
            "            x = pl.mul(t, y)",
        ]
    lines.append("        return x")
    return "\n".join(lines) + "\n"


def measure(n: int) -> dict[str, float]:
    text = workload(n)
    gc.collect()
    gc.disable()
    try:
        return _chain(text)
    finally:
        gc.enable()


def _chain(text: str) -> dict[str, float]:
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    program = pl.parse(text)
    t1 = time.perf_counter()
    program = passes.convert_to_ssa()(program)
    t2 = time.perf_counter()
    program = passes.outline_incore_scopes()(program)
    t3 = time.perf_counter()
    ir.python_print(program)
    t4 = time.perf_counter()
    times.update(parse=t1 - t0, ssa=t2 - t1, outline=t3 - t2, print=t4 - t3, total=t4 - t0)
    return times


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [400, 1600, 6400]
    measure(50)  # warm up imports and plugin loading
    print(f"{'N':>6} {'parse':>8} {'ssa':>8} {'outline':>8} {'print':>8} {'total':>8} {'growth':>7}")
    previous: float | None = None
    for n in sizes:
        t = measure(n)
        growth = f"{t['total'] / previous:6.2f}x" if previous else "      -"
        print(f"{n:>6} {t['parse']:8.3f} {t['ssa']:8.3f} {t['outline']:8.3f} {t['print']:8.3f} {t['total']:8.3f} {growth}")
        previous = t["total"]


if __name__ == "__main__":
    main(sys.argv[1:])
