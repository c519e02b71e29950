"""Shared steps of the AutoTileMatmulL0 tests: kernels built from a template, the pass run verified (required
and produced properties, the print -> parse round trip), the machine comparison at the tolerance of a
reordered FP32 accumulation."""

from __future__ import annotations

import numpy as np

import pypto.language as pl
from pypto import ir, passes
from pypto_core.interp import Machine, make_inputs, run_program

BACKENDS = ("Ascend910B", "Ascend950")

# Splitting K changes the order FP32 partial sums are added in: each partial sum is rounded, so an element of
# a dot product of K terms of size ~1 may move by a few ulps of the partial sums (not of the result, which
# can be near 0 after cancellation). 1e-4 absolute + 1e-4 relative covers K up to a few thousand and still
# catches a wrong block, offset or missing tail (an error of order 1). docs/passes/auto_tile_matmul_l0.md.
MATMUL_RTOL = 1e-4
MATMUL_ATOL = 1e-4


def run_pass(program: ir.Program, backend: str, **context: object) -> ir.Program:
    """The pass on `backend`, under the test's verification instruments (properties, round trip)."""
    outer = passes.PassContext.current()
    instruments = outer.get_instruments() if outer is not None else []
    with passes.PassContext(instruments, backend=backend, **context):  # type: ignore[arg-type]
        return passes.auto_tile_matmul_l0()(program)


def matmul_kernel(m: int, n: int, k: int, dtype: str = "BF16", lhs_space: str = "Mat") -> ir.Program:
    """`c = tile.matmul(am, bm)` of Mat (lhs: `lhs_space`) loads, stored once to `out`."""
    params = (f"a: pl.Tensor[[{m}, {k}], pl.{dtype}], b: pl.Tensor[[{k}, {n}], pl.{dtype}], "
              f"out: pl.Out[pl.Tensor[[{m}, {n}], pl.FP32]]")
    body = f"""        am: pl.Tile[[{m}, {k}], pl.{dtype}, pl.Mem.{lhs_space}] = pl.tile.load(a, [0, 0], [{m}, {k}], target_memory=pl.Mem.{lhs_space})
        bm: pl.Tile[[{k}, {n}], pl.{dtype}, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [{k}, {n}], target_memory=pl.Mem.Mat)
        c: pl.Tile[[{m}, {n}], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(am, bm)
        out2: pl.Tensor[[{m}, {n}], pl.FP32] = pl.tile.store(c, [0, 0], out)"""
    return parse(kernel(body, params, f"pl.Tensor[[{m}, {n}], pl.FP32]"))


def same_results_reordered(before: ir.Program, after: ir.Program, backend: str, seed: int = 0,
                           exact: bool = False) -> None:
    """Every output of every entry function equal before and after, at the FP32 reordering tolerance.

    `exact`: float inputs are small integers, so every partial sum is exact in FP32 whatever the order. A
    program that narrows a matmul result to BF16 / FP16 before another matmul needs it: a reordered FP32 sum
    may round to the neighbouring BF16 value (a relative change of 2**-8, which the next matmul spreads), so
    random inputs cannot tell a reordering from a wrong tile there (docs/passes/auto_tile_matmul_l0.md)."""
    with passes.PassContext([], backend=backend):
        for entry in Machine(before).roots():
            inputs = make_inputs(entry, seed=seed)
            if exact:
                inputs = _small_integers(inputs, seed)
            want = run_program(before, inputs, entry.name)
            got = run_program(after, inputs, entry.name)
            assert set(want) == set(got)
            for label, value in want.items():
                np.testing.assert_allclose(np.asarray(got[label], dtype=np.float64),
                                           np.asarray(value, dtype=np.float64), rtol=MATMUL_RTOL, atol=MATMUL_ATOL,
                                           err_msg=f"{entry.name}: {label}")


def _small_integers(inputs: dict[str, object], seed: int) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    out: dict[str, object] = {}
    for name, value in inputs.items():
        is_float = isinstance(value, np.ndarray) and value.dtype.kind not in "biu" and not np.isnan(value).any()
        out[name] = rng.integers(-3, 4, size=value.shape).astype(value.dtype) if is_float else value
    return out


def parse(src: str) -> ir.Program:
    return pl.parse(src)


def kernel(body: str, params: str, ret: str, result: str = "out2") -> str:
    """An InCore kernel `k` with these parameters and body, called by an orchestration `main`."""
    names = ", ".join(p.split(":")[0].strip() for p in _split_params(params))
    return f"""import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k({params}) -> {ret}:
{body}
        return {result}

    @pl.function(type=pl.FunctionType.Orchestration)
    def main({params}) -> {ret}:
        r = self.k({names})
        return r
"""


def _split_params(params: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in params:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch in "[("
        depth -= ch in "])"
        cur += ch
    return [*out, cur] if cur.strip() else out
