"""Time parse -> ConvertToSSA -> OutlineIncoreScopes -> print on the N-scope workload.

Workload: one function with N sequential `pl.at(level=pl.Level.CORE_GROUP)` scopes, each two chained
`pl.add`/`pl.mul` on `pl.Tensor[[64], pl.FP32]`.

Per N (400, 1600, 6400 by default) it prints
  * the seconds of each stage of the chain and of `ast.parse` of the same text (best of --repeat rounds
    of CPU time, each round timing ast.parse and the chain back to back, so a busy spell on a shared
    machine hits both alike), and the median total; the chain's ratio to ast.parse (the median of each
    round's ratio) and the growth of the median total per step of N;
  * the peak memory of one chain (tracemalloc, in a separate untimed run: tracing slows every
    allocation) and its growth;
  * the Python calls of one chain (cProfile, untimed) and their growth: the deterministic measure of the work,
    exactly 4x per 4x N when every stage is linear (timings on a shared machine wander by 10-20%);
  * the passes of the `tile` and `default` presets (Ascend910B backend, no instruments, no verification)
    on the program parsed from the same text, CPU seconds, best of --preset-repeat runs, with their growth;
and then which targets are met or missed, judged on the medians:
  * the whole chain grows at most 4.2x per 4x N (scaled for other steps),
  * the chain takes at most 3.0x `ast.parse` at N = 1600 (when 1600 is among the sizes); beside it the
    floor: ast.parse + the printer alone + one bare visit of the input's AST, what no pure-Python chain
    that prints this text can go below,
  * peak memory grows at most 4.2x per 4x N, and each preset's total at most 4.5x (as tile.py).
Every timed run prints one JSON line, for comparisons across commits:
    {"bench": "outline", "kind": "chain", "N": ..., "run": ..., "parse": ..., ..., "ast": ...}
    {"bench": "outline", "kind": "memory", "N": ..., "peak_bytes": ...}
    {"bench": "outline", "kind": "calls", "N": ..., "calls": ...}
    {"bench": "outline", "kind": "preset", "preset": ..., "N": ..., "run": ..., "pass": ..., "seconds": ...}
The garbage collector is paused while a chain runs: its cost depends on everything the process holds,
not on the algorithms measured here. Nothing here is a test: tests never assert on time.

    python benchmarks/outline.py [N ...] [--repeat R] [--preset-repeat R] [--no-presets] [--profile]
"""

from __future__ import annotations

import argparse
import ast
import gc
import json
import statistics
import sys
import time
import tracemalloc
from typing import Any

from pass_timing import preset_passes

import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.context import PassContext
from pypto_core.passes.verification_level import VerificationLevel

STAGES = ("parse", "ssa", "outline", "print")
PRESETS = ("tile", "default")
BACKEND = "Ascend910B"
GROWTH_TARGET = 4.2  # per 4x N, for the chain and for peak memory
PRESET_GROWTH_TARGET = 4.5  # per 4x N, as tile.py
AST_RATIO_TARGET = 3.0  # chain / ast.parse at AST_RATIO_N (the printed text is 4.9x the input's)
AST_RATIO_N = 1600


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


def _chain(text: str) -> tuple[dict[str, float], str]:
    clock = time.process_time
    t0 = clock()
    program = pl.parse(text)
    t1 = clock()
    program = passes.convert_to_ssa()(program)
    t2 = clock()
    program = passes.outline_incore_scopes()(program)
    t3 = clock()
    printed = ir.python_print(program)
    t4 = clock()
    return {"parse": t1 - t0, "ssa": t2 - t1, "outline": t3 - t2, "print": t4 - t3, "total": t4 - t0}, printed


def _ast_parse(text: str) -> float:
    t0 = time.process_time()
    tree = ast.parse(text)
    seconds = time.process_time() - t0
    del tree
    return seconds


def _bare_visit(node: ast.AST) -> None:
    """The least any pure-Python pass over the parsed text does: reach every node once."""
    for field in node._fields:
        value = getattr(node, field)
        if isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    _bare_visit(item)
        elif isinstance(value, ast.AST):
            _bare_visit(value)


def floor_seconds(n: int, repeat: int) -> dict[str, float]:
    """Best CPU seconds of ast.parse, of a bare visit of its tree, and of the printer alone on the outlined
    program: the parts of the chain no pure-Python design can drop (the floor)."""
    text = workload(n)
    tree = ast.parse(text)
    program = passes.outline_incore_scopes()(passes.convert_to_ssa()(pl.parse(text)))
    best = {"ast": float("inf"), "visit": float("inf"), "print": float("inf")}
    jobs = {"ast": lambda: ast.parse(text), "visit": lambda: _bare_visit(tree),
            "print": lambda: ir.python_print(program)}
    for _ in range(repeat):
        for key, job in jobs.items():
            gc.collect()
            gc.disable()
            try:
                t0 = time.process_time()
                job()
                best[key] = min(best[key], time.process_time() - t0)
            finally:
                gc.enable()
    best["output_chars"] = len(ir.python_print(program))
    best["input_chars"] = len(text)
    return best


def measure(n: int, repeat: int) -> tuple[dict[str, float], dict[str, float]]:
    """Best (least disturbed) seconds per stage, and of ast.parse, over `repeat` rounds; and the medians
    (of each stage, and `ratio`: of each round's chain / ast.parse, both timed back to back)."""
    text = workload(n)
    best: dict[str, float] = {}
    rounds: dict[str, list[float]] = {}
    for run in range(repeat):
        gc.collect()
        gc.disable()
        try:
            seconds_ast = _ast_parse(text)
            times, _ = _chain(text)
        finally:
            gc.enable()
        times["ast"] = seconds_ast
        print(json.dumps({"bench": "outline", "kind": "chain", "N": n, "run": run,
                          **{k: round(v, 6) for k, v in times.items()}}))
        times["ratio"] = times["total"] / seconds_ast if seconds_ast else float("inf")
        for key, value in times.items():
            best[key] = min(best.get(key, float("inf")), value)
            rounds.setdefault(key, []).append(value)
    return best, {key: statistics.median(values) for key, values in rounds.items()}


def peak_memory(n: int) -> int:
    """Peak bytes traced while one chain runs (the text itself excluded)."""
    text = workload(n)
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base, _ = tracemalloc.get_traced_memory()
        _chain(text)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    print(json.dumps({"bench": "outline", "kind": "memory", "N": n, "peak_bytes": peak - base}))
    return peak - base


def python_calls(n: int) -> int:
    """Python function calls (and builtin calls) one chain makes: a deterministic measure of the work, whose
    growth per 4x N is exactly 4x for a linear algorithm, whatever the machine is doing meanwhile."""
    import cProfile
    import pstats

    text = workload(n)
    prof = cProfile.Profile()
    prof.enable()
    _chain(text)
    prof.disable()
    calls = sum(entry[1] for entry in pstats.Stats(prof).stats.values())  # type: ignore[attr-defined]
    print(json.dumps({"bench": "outline", "kind": "calls", "N": n, "calls": calls}))
    return calls


def preset_chain(program: Any, pass_list: list[Any], backend: str) -> list[tuple[str, float]]:
    """As pass_timing.chain (no instruments, no verification), timed in CPU seconds like the chain above."""
    times: list[tuple[str, float]] = []
    with PassContext([], VerificationLevel.NONE, backend=backend):
        for p in pass_list:
            t0 = time.process_time()
            program = p(program)
            times.append((p.factory_name or p.get_name(), time.process_time() - t0))
    return times


def measure_preset(preset: str, n: int, repeat: int) -> float | None:
    """Best total seconds of a preset's passes on the parsed workload; None if the preset fails."""
    program = pl.parse(workload(n))
    best = float("inf")
    for run in range(repeat):
        gc.collect()
        gc.disable()
        try:
            times = preset_chain(program, preset_passes(preset), BACKEND)
        except Exception as exc:  # a pass under development elsewhere: report it, keep measuring the rest
            print(f"preset {preset!r} failed at N={n}: {type(exc).__name__}: {exc}".splitlines()[0])
            return None
        finally:
            gc.enable()
        for name, seconds in times:
            print(json.dumps({"bench": "outline", "kind": "preset", "preset": preset, "N": n, "run": run,
                              "pass": name, "seconds": round(seconds, 6)}))
        best = min(best, sum(seconds for _, seconds in times))
    return best


def _growth_limit(target: float, n_before: int, n_now: int) -> float:
    """`target` is per 4x N; for another step scale it linearly (4.2 per 4x -> 2.1 per 2x)."""
    return target * (n_now / n_before) / 4


def _growth(values: dict[int, float | None]) -> dict[int, float | None]:
    out: dict[int, float | None] = {}
    previous: tuple[int, float] | None = None
    for n, v in values.items():
        out[n] = v / previous[1] if previous is not None and v is not None and previous[1] else None
        previous = (n, v) if v is not None else None
    return out


def _fmt_growth(g: float | None) -> str:
    return f"{g:6.2f}x" if g is not None else "      -"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sizes", nargs="*", type=int, default=[400, 1600, 6400])
    ap.add_argument("--repeat", type=int, default=5, help="rounds of the chain per N (best is kept)")
    ap.add_argument("--preset-repeat", type=int, default=2, help="runs of each preset per N (best is kept)")
    ap.add_argument("--no-presets", action="store_true", help="skip the tile and default presets")
    ap.add_argument("--profile", action="store_true", help="cProfile one chain at the last size")
    args = ap.parse_args(argv)
    sizes: list[int] = args.sizes

    _chain(workload(50))  # warm up imports and plugin loading
    measured = {n: measure(n, args.repeat) for n in sizes}
    chains = {n: best for n, (best, _) in measured.items()}
    medians = {n: median for n, (_, median) in measured.items()}
    memory = {n: peak_memory(n) for n in sizes}
    calls = {n: python_calls(n) for n in sizes}
    presets: dict[str, dict[int, float | None]] = {}
    if not args.no_presets:
        for preset in PRESETS:
            preset_chain(pl.parse(workload(6)), preset_passes(preset), BACKEND)  # warm-up
            presets[preset] = {n: measure_preset(preset, n, args.preset_repeat) for n in sizes}

    print(f"\nbest of {args.repeat} rounds, CPU seconds (median: of the totals, and of each round's chain / "
          f"ast.parse; the targets are judged on medians); peak memory of one chain (tracemalloc)")
    print(f"{'N':>6} " + " ".join(f"{s:>8}" for s in STAGES)
          + f" {'total':>8} {'median':>8} {'growth':>7} {'ast':>8} {'/ast':>6} {'peak MiB':>9} {'growth':>7}"
          + f" {'B/scope':>8} {'calls':>9} {'growth':>7}")
    chain_growth = _growth({n: medians[n]["total"] for n in sizes})
    memory_growth = _growth({n: float(memory[n]) for n in sizes})
    calls_growth = _growth({n: float(calls[n]) for n in sizes})
    for n in sizes:
        t = chains[n]
        print(f"{n:>6} " + " ".join(f"{t[s]:8.3f}" for s in STAGES)
              + f" {t['total']:8.3f} {medians[n]['total']:8.3f} {_fmt_growth(chain_growth[n])} {t['ast']:8.3f}"
              + f" {medians[n]['ratio']:5.2f}x"
              + f" {memory[n] / 2**20:9.2f} {_fmt_growth(memory_growth[n])} {memory[n] // n:8d}"
              + f" {calls[n]:9d} {_fmt_growth(calls_growth[n])}")
    print("calls: Python calls of one chain (cProfile), deterministic: growth 4.00x per 4x N is linear work, so "
          "timing growth above it comes from the machine (caches, allocation), not from the algorithms")
    preset_growth = {preset: _growth(values) for preset, values in presets.items()}
    for preset, values in presets.items():
        cells = " ".join(f"N={n}: {v:.3f}s {_fmt_growth(preset_growth[preset][n]).strip()}" if v is not None
                         else f"N={n}: failed" for n, v in values.items())
        print(f"preset {preset:<8} best of {args.preset_repeat}: {cells}")

    results: list[tuple[str, bool]] = []
    for before, now in zip(sizes, sizes[1:]):
        limit = _growth_limit(GROWTH_TARGET, before, now)
        g = chain_growth[now]
        results.append((f"chain growth N={before}->{now} (medians): {g:.2f}x <= {limit:.2f}x",
                        g is not None and g <= limit))
        g = memory_growth[now]
        results.append((f"peak memory growth N={before}->{now}: {g:.2f}x <= {limit:.2f}x",
                        g is not None and g <= limit))
        preset_limit = _growth_limit(PRESET_GROWTH_TARGET, before, now)
        for preset in presets:
            pg = preset_growth[preset][now]
            results.append((f"preset {preset} growth N={before}->{now}: "
                            + (f"{pg:.2f}x <= {preset_limit:.2f}x" if pg is not None else "not measured"),
                            pg is not None and pg <= preset_limit))
    if AST_RATIO_N in medians:
        ratio = medians[AST_RATIO_N]["ratio"]
        results.append((f"chain / ast.parse at N={AST_RATIO_N} (median): {ratio:.2f}x <= {AST_RATIO_TARGET}x",
                        ratio <= AST_RATIO_TARGET))
    if AST_RATIO_N in medians:
        f = floor_seconds(AST_RATIO_N, args.repeat)
        floor = (f["ast"] + f["print"] + f["visit"]) / f["ast"]
        print(f"\nfloor at N={AST_RATIO_N}: ast.parse {f['ast']:.4f}s (inside the parser) + the printer alone "
              f"{f['print']:.4f}s ({f['output_chars'] / f['input_chars']:.1f}x the input's characters) + one bare "
              f"visit of the input's AST {f['visit']:.4f}s = {floor:.2f}x ast.parse, before any IR is built, "
              f"renamed or outlined")
        print(json.dumps({"bench": "outline", "kind": "floor", "N": AST_RATIO_N,
                          **{k: round(v, 6) for k, v in f.items()}, "floor_ratio": round(floor, 3)}))
    print("\ntargets:")
    for text, ok in results:
        print(f"  {'met   ' if ok else 'MISSED'} {text}")
    print(json.dumps({"bench": "outline", "kind": "targets",
                      "met": sum(ok for _, ok in results), "missed": sum(not ok for _, ok in results)}))

    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        text = workload(sizes[-1])
        prof.enable()
        _chain(text)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
