"""Helpers of the op-semantics audit (no tests here): small DSL programs built from text with `pl.parse`,
run on the reference machine as written and after the default pipeline, and compared with numpy formulas
written in the audit files (never with the machine's own evaluators).

`tile_program` loads every input tensor `a` into a tile named `a_t` and then runs `body` (which must store
into the Out parameters); `tensor_program` runs `body` inside `with pl.at(level=pl.Level.CORE_GROUP):`
(the body must assemble into the Out parameters). `check_exact` compares bit for bit (floats: the same
bits, or NaN against NaN); `check_close` is the corpus harness (`check_kernel`, per-dtype tolerance).
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

import ml_dtypes
import numpy as np

import pypto.language as pl
from pypto_core.interp import run_program, shape_from_backend

from .harness import BACKEND, check_kernel, default_pipeline

BF16 = np.dtype(ml_dtypes.bfloat16)

PL_NAME = {
    np.dtype(np.int8): "pl.INT8", np.dtype(np.int16): "pl.INT16", np.dtype(np.int32): "pl.INT32",
    np.dtype(np.int64): "pl.INT64", np.dtype(np.uint8): "pl.UINT8", np.dtype(np.uint16): "pl.UINT16",
    np.dtype(np.uint32): "pl.UINT32", np.dtype(np.float16): "pl.FP16", np.dtype(np.float32): "pl.FP32",
    BF16: "pl.BF16",
}


def _ann(shape, dtype) -> str:
    return f"pl.Tensor[[{', '.join(str(int(d)) for d in shape)}], {PL_NAME[np.dtype(dtype)]}]"


def _signature(inputs: Mapping[str, np.ndarray], outputs: Mapping[str, tuple]) -> str:
    parts = [f"{name}: {_ann(arr.shape, arr.dtype)}" for name, arr in inputs.items()]
    parts += [f"{name}: pl.Out[{_ann(shape, dt)}]" for name, (shape, dt) in outputs.items()]
    return ", ".join(["self", *parts])


def tile_program(inputs: Mapping[str, np.ndarray], outputs: Mapping[str, tuple], body: str, auto_load: bool = True):
    """An InCore kernel: each input `a` is loaded whole into tile `a_t` (unless `auto_load` is False), then
    `body` runs."""
    loads = [] if not auto_load else [f"{n}_t = pl.load({n}, [{', '.join('0' for _ in a.shape)}], [{', '.join(str(d) for d in a.shape)}])"
             for n, a in inputs.items()]
    lines = "\n".join(loads + textwrap.dedent(body).strip().splitlines())
    src = (
        "import pypto.language as pl\n\n"
        "@pl.program\n"
        "class AuditKernel:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def main({_signature(inputs, outputs)}):\n"
        + textwrap.indent(lines, " " * 8) + "\n"
    )
    return pl.parse(src)


def tensor_program(inputs: Mapping[str, np.ndarray], outputs: Mapping[str, tuple], body: str):
    """An Opaque function whose `body` runs inside `with pl.at(level=pl.Level.CORE_GROUP):`."""
    src = (
        "import pypto.language as pl\n\n"
        "@pl.program\n"
        "class AuditTensorKernel:\n"
        "    @pl.function(type=pl.FunctionType.Opaque)\n"
        f"    def main({_signature(inputs, outputs)}):\n"
        "        with pl.at(level=pl.Level.CORE_GROUP):\n"
        + textwrap.indent(textwrap.dedent(body).strip(), " " * 12) + "\n"
    )
    return pl.parse(src)


def _feed(inputs: Mapping[str, np.ndarray], outputs: Mapping[str, tuple]) -> dict[str, Any]:
    feed = dict(inputs)
    for name, (shape, dt) in outputs.items():
        feed[name] = np.zeros(shape, dt)
    return feed


def run_both(program, inputs: Mapping[str, np.ndarray], outputs: Mapping[str, tuple]) -> list[dict[str, Any]]:
    """The outputs as written and after the default pipeline."""
    shape = shape_from_backend(BACKEND)
    first = run_program(program, _feed(inputs, outputs), None, shape)
    after = default_pipeline(BACKEND).run(program)
    second = run_program(after, _feed(inputs, outputs), None, shape)
    return [first, second]


def same_bits(want: np.ndarray, got: np.ndarray) -> np.ndarray:
    want, got = np.asarray(want), np.asarray(got)
    if want.dtype.kind == "f" or want.dtype == BF16:
        w32, g32 = want.astype(np.float32), got.astype(np.float32)
        both_nan = np.isnan(w32) & np.isnan(g32)
        raw = want.view(f"u{want.dtype.itemsize}") == got.view(f"u{got.dtype.itemsize}")
        return raw | both_nan
    return want == got


def check_exact(program, inputs: Mapping[str, np.ndarray], expected: Mapping[str, np.ndarray],
                outputs: Mapping[str, tuple] | None = None) -> None:
    """Run as written and after the default pipeline; every expected output must match bit for bit
    (dtype and shape included)."""
    outputs = outputs or {n: (np.asarray(v).shape, np.asarray(v).dtype) for n, v in expected.items()}
    for label, result in zip(("as written", "after the default pipeline"), run_both(program, inputs, outputs)):
        for name, want in expected.items():
            want = np.asarray(want)
            got = np.asarray(result[name])
            assert got.dtype == want.dtype, f"{label}: '{name}' dtype {got.dtype}, expected {want.dtype}"
            assert got.shape == want.shape, f"{label}: '{name}' shape {got.shape}, expected {want.shape}"
            ok = same_bits(want, got)
            if not ok.all():
                bad = np.argwhere(~ok)
                first = tuple(int(i) for i in bad[0])
                raise AssertionError(f"{label}: '{name}' differs at {len(bad)} element(s); first {list(first)}: "
                                     f"expected {want[first]!r}, got {got[first]!r}")


def check_close(program, inputs: Mapping[str, np.ndarray], expected: Mapping[str, np.ndarray]) -> None:
    feed = dict(inputs)
    for name, want in expected.items():
        feed[name] = np.zeros(np.asarray(want).shape, np.asarray(want).dtype)
    check_kernel(program, feed, expected)


def tile_row(values, dtype, cols: int = 32, rows: int = 2) -> np.ndarray:
    """`values` repeated to fill a rows x cols array (cols a multiple of the 32-byte block)."""
    flat = np.resize(np.asarray(values, dtype=np.float64 if np.dtype(dtype).kind == "f" or np.dtype(dtype) == BF16
                                else np.int64), rows * cols)
    return flat.reshape(rows, cols).astype(dtype)
