"""Parse and print speed of the `pl` front end, next to `ast.parse` of the same text.

Workload: one function with N sequential `with pl.at(level=pl.Level.CORE_GROUP)` scopes, each holding two
chained element-wise ops (`pl.add` then `pl.mul`) on `pl.Tensor[[64], pl.FP32]`.
Targets: parsing within 3x of `ast.parse` (each size); printing linear in N (at most 1.1x the growth of N).
One JSON line per size.

    python benchmarks/parse_print.py            # N = 400 and 1600
    python benchmarks/parse_print.py 100 800    # other sizes
    python benchmarks/parse_print.py --profile 1600
"""

from __future__ import annotations

import argparse
import ast
import gc
import json
import time
from collections.abc import Callable
from typing import Any

from targets import Target, report

T = "pl.Tensor[[64], pl.FP32]"


def workload(n: int) -> str:
    lines = ["import pypto.language as pl", "", "", "@pl.program", "class Bench:", "    @pl.function",
             f"    def main(self, x: {T}) -> {T}:", "        y = x"]
    for k in range(n):
        lines += ["        with pl.at(level=pl.Level.CORE_GROUP):",
                  f"            a{k} = pl.add(y, x)",
                  f"            y = pl.mul(a{k}, a{k})"]
    lines.append("        return y")
    return "\n".join(lines) + "\n"


def timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    """CPU time of one call, with the garbage collector paused (as `timeit` does): otherwise a
    collection triggered by earlier garbage lands on whichever run allocates next. CPU time rather
    than wall time so that other load on a shared machine skews the numbers less."""
    gc.collect()
    gc.disable()
    try:
        t0 = time.process_time()
        result = fn()
        return time.process_time() - t0, result
    finally:
        gc.enable()


def measure(n: int, repeat: int) -> dict[str, float]:
    """Best of `repeat` rounds; each round times ast.parse, pl.parse and printing back to back, so a
    busy spell on the machine hits all three alike."""
    import pypto.language as pl
    from pypto import ir

    text = workload(n)
    best = {"ast": float("inf"), "parse": float("inf"), "print": float("inf")}
    printed = ""
    for _ in range(repeat):
        t_ast, tree = timed(lambda: ast.parse(text))
        del tree
        t_parse, program = timed(lambda: pl.parse(text))
        t_print, printed = timed(lambda: ir.python_print(program, format=False))  # noqa: B023 - called at once
        best = {"ast": min(best["ast"], t_ast), "parse": min(best["parse"], t_parse),
                "print": min(best["print"], t_print)}
    ir.assert_structural_equal(program, pl.parse(printed))  # the numbers are for a correct round trip
    return {"n": n, **best}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sizes", nargs="*", type=int, default=[400, 1600])
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--profile", action="store_true", help="cProfile one parse and one print of the last size")
    args = ap.parse_args()

    import pypto.language as pl

    pl.parse(workload(1))  # load plugins and warm caches outside the timings
    rows = [measure(n, args.repeat) for n in args.sizes]
    print(f"{'N':>6} {'ast.parse':>10} {'pl.parse':>10} {'parse/ast':>9} {'print':>10} {'print/N (us)':>13}")
    for r in rows:
        print(f"{r['n']:>6} {r['ast'] * 1e3:>8.1f}ms {r['parse'] * 1e3:>8.1f}ms {r['parse'] / r['ast']:>8.2f}x "
              f"{r['print'] * 1e3:>8.1f}ms {r['print'] / r['n'] * 1e6:>13.1f}")
    if len(rows) > 1:
        first, last = rows[0], rows[-1]
        scale = last["n"] / first["n"]
        print(f"N x{scale:g}: parse x{last['parse'] / first['parse']:.2f}, print x{last['print'] / first['print']:.2f} "
              f"(linear = x{scale:g})")
    for r in rows:
        print(json.dumps({"bench": "parse_print", "kind": "size", **{k: round(v, 6) for k, v in r.items()}}))
    targets = [Target(f"pl.parse / ast.parse, N={r['n']}", r["parse"] / r["ast"], 3.0) for r in rows]
    if len(rows) > 1:
        targets.append(Target(f"print growth / N growth, N={rows[0]['n']}->{rows[-1]['n']}",
                              (rows[-1]["print"] / rows[0]["print"]) / (rows[-1]["n"] / rows[0]["n"]), 1.1))
    report("parse_print", targets)
    if args.profile:
        import cProfile
        import pstats

        from pypto import ir

        text = workload(args.sizes[-1])
        prof = cProfile.Profile()
        prof.enable()
        program = pl.parse(text)
        ir.python_print(program, format=False)
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(35)


if __name__ == "__main__":
    main()
