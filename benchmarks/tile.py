"""Time each pass of the `tile` preset on K tensor-level scopes (K = 50, 200, 800 by default).

Workload: one program, one Opaque function with K sequential `pl.at(level=pl.Level.CORE_GROUP)`
scopes on [16, 16] FP32 tensors. The scopes cycle through three kinds -- element-wise
(`pl.add` / `pl.mul` / `pl.exp`), reduction + broadcast (`pl.row_max` / `pl.row_expand_sub` /
`pl.col_sum` / `pl.col_expand_mul`) and matmul + vector epilogue (`pl.matmul` / `pl.add`) -- and each
scope's result feeds the next one through the orchestration function, so every outlined kernel gets
an output added by convert_tensor_to_tile_ops. The program is parsed once per K; then the preset's
passes run in order (Ascend910B backend, no instruments, no verification), each timed on its own,
three times; the median per pass is printed with its growth per 4x step of K against the target
"linear, under 4.5x", and one JSON line per pass and run:
    {"bench": "tile", "K": ..., "pass": ..., "seconds": ...}
The garbage collector is paused while a chain runs, as in outline.py: its cost depends on everything
the process holds, not on the algorithms measured here.

    python benchmarks/tile.py [K ...]
"""

from __future__ import annotations

import gc
import json
import statistics
import sys
import time
from typing import Any

from pypto_core.language.api import parse
from pypto_core.passes.context import PassContext
from pypto_core.passes.registry import PIPELINES, pass_class
from pypto_core.passes.verification_level import VerificationLevel
from pypto_core.plugins.host import ensure_plugins_loaded

BACKEND = "Ascend910B"
PRESET = "tile"
RUNS = 3
GROWTH_TARGET = 4.5
T = "pl.Tensor[[16, 16], pl.FP32]"

SCOPE_KINDS = (
    # element-wise chain
    ["t = pl.add(x, y)", "x = pl.exp(pl.mul(t, 0.5))"],
    # reduction + broadcast
    ["m = pl.row_max(x)", "c = pl.col_sum(y)", "x = pl.col_expand_mul(pl.row_expand_sub(x, m), c)"],
    # matmul + vector epilogue
    ["p = pl.matmul(x, w)", "x = pl.add(p, y)"],
)


def workload(k: int) -> str:
    lines = [
        "import pypto.language as pl",
        "",
        "",
        "@pl.program",
        "class TileChain:",
        "    @pl.function",
        f"    def main(self, x: {T}, y: {T}, w: {T}) -> {T}:",
    ]
    for i in range(k):
        lines.append("        with pl.at(level=pl.Level.CORE_GROUP):")
        lines += [f"            {stmt}" for stmt in SCOPE_KINDS[i % len(SCOPE_KINDS)]]
    lines.append("        return x")
    return "\n".join(lines) + "\n"


def preset_passes() -> list[Any]:
    ensure_plugins_loaded()
    names = PIPELINES.get(PRESET)
    if names is None:
        raise SystemExit(f"no pipeline preset '{PRESET}' is registered")
    return [pass_class(name)() for name in names]


def _chain(program: Any, passes: list[Any]) -> list[tuple[str, float]]:
    times: list[tuple[str, float]] = []
    with PassContext([], VerificationLevel.NONE, backend=BACKEND):
        for p in passes:
            t0 = time.perf_counter()
            program = p(program)
            times.append((p.factory_name or p.get_name(), time.perf_counter() - t0))
    return times


def measure(k: int) -> dict[str, float]:
    """Median seconds per pass over RUNS chains on one parsed program."""
    program = parse(workload(k), f"<tile benchmark K={k}>")
    samples: dict[str, list[float]] = {}
    for _ in range(RUNS):
        gc.collect()
        gc.disable()
        try:
            times = _chain(program, preset_passes())
        finally:
            gc.enable()
        for name, seconds in times:
            samples.setdefault(name, []).append(seconds)
            print(json.dumps({"bench": "tile", "K": k, "pass": name, "seconds": round(seconds, 6)}))
    return {name: statistics.median(values) for name, values in samples.items()}


def _growth(now: float, before: float | None) -> str:
    if before is None:
        return "-"
    ratio = now / before if before > 0 else float("inf")
    return f"{ratio:.2f}x {'met' if ratio < GROWTH_TARGET else 'MISSED'}"


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [50, 200, 800]
    _chain(parse(workload(6), "<warm-up>"), preset_passes())  # imports, plugin loading, caches
    results = {k: measure(k) for k in sizes}
    names = list(next(iter(results.values())))
    width = max(len(n) for n in [*names, "total"])
    print(f"\nmedian seconds of {RUNS} runs per pass ({BACKEND}); growth per 4x K, target linear "
          f"(under {GROWTH_TARGET}x)")
    print(f"{'pass':<{width}} " + " ".join(f"{'K=' + str(k):>10} {'growth':>13}" for k in sizes))
    for name in [*names, "total"]:
        row, previous = [], None
        for k in sizes:
            seconds = sum(results[k].values()) if name == "total" else results[k][name]
            row.append(f"{seconds:10.4f} {_growth(seconds, previous):>13}")
            previous = seconds
        print(f"{name:<{width}} " + " ".join(row))


if __name__ == "__main__":
    main(sys.argv[1:])
