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

import sys

from pass_timing import RUNS, chain, measure, preset_passes, print_table

from pypto_core.language.api import parse

BACKEND = "Ascend910B"
PRESET = "tile"
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


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv] or [50, 200, 800]
    chain(parse(workload(6), "<warm-up>"), preset_passes(PRESET), BACKEND)  # imports, plugins, caches
    results = {k: measure("tile", workload(k), PRESET, BACKEND, k) for k in sizes}
    print_table(f"best of {RUNS} runs, seconds per pass ({BACKEND})", results)


if __name__ == "__main__":
    main(sys.argv[1:])
