"""Shared timing of a pipeline preset's passes for the pipeline benchmarks (tile.py, split_pipeline.py).

Each pass runs on its own under a context with no instruments and no verification, timed by
perf_counter; a chain is run RUNS times on one parsed program with the garbage collector paused (its cost
depends on everything the process holds, not on the algorithms measured) and the fastest run per pass kept (the least disturbed by other work on the machine).
Every run prints one JSON line per pass: {"bench": ..., "K": ..., "pass": ..., "seconds": ...}.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from typing import Any

from pypto_core.language.api import parse
from pypto_core.passes.context import PassContext
from pypto_core.passes.registry import PIPELINES, pass_class
from pypto_core.passes.verification_level import VerificationLevel
from pypto_core.plugins.host import ensure_plugins_loaded

RUNS = 3
GROWTH_TARGET = 4.5


def preset_passes(preset: str) -> list[Any]:
    ensure_plugins_loaded()
    names = PIPELINES.get(preset)
    if names is None:
        raise SystemExit(f"no pipeline preset '{preset}' is registered")
    return [pass_class(name)() for name in names]


def chain(program: Any, passes: list[Any], backend: str) -> list[tuple[str, float]]:
    times: list[tuple[str, float]] = []
    with PassContext([], VerificationLevel.NONE, backend=backend):
        for p in passes:
            t0 = time.perf_counter()
            program = p(program)
            times.append((p.factory_name or p.get_name(), time.perf_counter() - t0))
    return times


def measure(bench: str, source: str, preset: str, backend: str, k: int) -> dict[str, float]:
    """Median seconds per pass over RUNS chains on one parsed program."""
    program = parse(source, f"<{bench} benchmark K={k}>")
    samples: dict[str, list[float]] = {}
    for _ in range(RUNS):
        gc.collect()
        gc.disable()
        try:
            times = chain(program, preset_passes(preset), backend)
        finally:
            gc.enable()
        for name, seconds in times:
            samples.setdefault(name, []).append(seconds)
            print(json.dumps({"bench": bench, "preset": preset, "K": k, "pass": name, "seconds": round(seconds, 6)}))
    return {name: min(values) for name, values in samples.items()}  # the least disturbed run


def growth(now: float, before: float | None) -> str:
    if before is None:
        return "-"
    ratio = now / before if before > 0 else float("inf")
    return f"{ratio:.2f}x {'met' if ratio < GROWTH_TARGET else 'MISSED'}"


def print_table(title: str, results: dict[int, dict[str, float]], extra: dict[str, dict[int, float]] | None = None) -> None:
    """One row per pass, then `total`, then the `extra` rows (e.g. another preset's total)."""
    sizes = list(results)
    names = list(next(iter(results.values())))
    rows: dict[str, Callable[[int], float]] = {n: (lambda k, n=n: results[k][n]) for n in names}
    rows["total"] = lambda k: sum(results[k].values())
    for label, values in (extra or {}).items():
        rows[label] = lambda k, v=values: v[k]
    width = max(len(n) for n in rows)
    print(f"\n{title}; growth per 4x K, target linear (under {GROWTH_TARGET}x)")
    print(f"{'pass':<{width}} " + " ".join(f"{'K=' + str(k):>10} {'growth':>13}" for k in sizes))
    for name, value in rows.items():
        cells, previous = [], None
        for k in sizes:
            seconds = value(k)
            cells.append(f"{seconds:10.4f} {growth(seconds, previous):>13}")
            previous = seconds
        print(f"{name:<{width}} " + " ".join(cells))
