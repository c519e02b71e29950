"""Comparison tolerances per dtype: the one place they are defined.

An element matches when |after - before| <= atol + rtol * |before| (numpy.isclose), poison
(NaN) matches poison at the same position, and ints / bools must be equal. The float tolerances
allow a pass to reorder an FP32 accumulation (e.g. split a K loop) but not to change the math:

| dtype            | rtol   | atol   | why                                            |
|------------------|--------|--------|------------------------------------------------|
| FP32             | 1e-5   | 1e-6   | a few ulps of reordering in sums of ~1e3 terms |
| FP16             | 2e-3   | 1e-3   | one rounding step (eps = 9.8e-4)               |
| BF16             | 1.6e-2 | 1e-2   | one rounding step (eps = 7.8e-3)               |
| FP8 / FP4        | 0.25   | 0.125  | one rounding step of a 2-3 bit mantissa        |
| ints, INDEX, BOOL| exact  | exact  |                                                |

After a pass that reorders floating-point accumulations (a Pass with `reorders_accumulation`, e.g.
AutoTileMatmulL0 splitting K), check-run compares FP32 outputs at rtol = atol = 1e-4: each partial sum is
rounded, so an element may move by a few ulps of the partial sums, not of itself (which cancellation can make
small). When the program feeds one product's result to another, a reordered sum narrowed to the operand dtype
may round to the neighbouring value, so FP32 outputs then compare at that dtype's tolerance
(docs/passes/auto_tile_matmul_l0.md, execution and tolerance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pypto_core.interp.dtypes import is_float_dtype, is_poison


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float


EXACT = Tolerance(0.0, 0.0)
# By dtype name: `bfloat16` is ml_dtypes' type, which is only loaded when a program uses it.
_FLOAT_TOLERANCES: dict[str, Tolerance] = {
    "float64": Tolerance(1e-12, 1e-12),
    "float32": Tolerance(1e-5, 1e-6),
    "float16": Tolerance(2e-3, 1e-3),
    "bfloat16": Tolerance(1.6e-2, 1e-2),
}
_NARROW_FLOAT = Tolerance(0.25, 0.125)
REORDERED_FP32 = Tolerance(1e-4, 1e-4)


def tolerance_for(dtype: np.dtype, overrides: dict[str, Tolerance] | None = None) -> Tolerance:
    if not is_float_dtype(dtype):
        return EXACT
    name = np.dtype(dtype).name
    if overrides and name in overrides:
        return overrides[name]
    return _FLOAT_TOLERANCES.get(name, _NARROW_FLOAT)


def reordered_accumulation_tolerances(narrowed: list[np.dtype]) -> dict[str, Tolerance]:
    """The FP32 tolerance after a pass reordered accumulations; `narrowed`: the float dtypes a product result
    may be narrowed to before it feeds another product (the loosest of their tolerances wins)."""
    tol = REORDERED_FP32
    for dtype in narrowed:
        step = tolerance_for(dtype)
        tol = Tolerance(max(tol.rtol, step.rtol), max(tol.atol, step.atol))
    return {"float32": tol}


@dataclass(frozen=True)
class Comparison:
    """The outcome of comparing one output of two runs."""

    ok: bool
    reason: str = ""  # "shape", "dtype", "value", "missing" or "extra" when not ok
    max_abs_error: float = 0.0
    first_index: tuple[int, ...] | None = None
    expected: object = None
    actual: object = None
    mismatches: int = 0
    poisoned: int = 0  # poison elements in the expected value (unwritten or invalid region)

    def describe(self) -> str:
        if self.ok:
            return "ok"
        if self.reason in ("shape", "dtype"):
            return f"{self.reason} differs: expected {self.expected}, got {self.actual}"
        if self.reason in ("missing", "extra"):
            return f"{self.reason} output: expected {self.expected}, got {self.actual}"
        return (f"{self.mismatches} element(s) differ; first at index {list(self.first_index or ())}: "
                f"expected {self.expected}, got {self.actual}")


def compare_values(expected: object, actual: object, overrides: dict[str, Tolerance] | None = None) -> Comparison:
    """Compare two outputs (arrays or scalars) with the tolerance of the expected dtype (`overrides`: another
    tolerance for some dtypes, by numpy name)."""
    exp = np.asarray(expected)
    act = np.asarray(actual)
    if exp.shape != act.shape:
        return Comparison(False, "shape", expected=exp.shape, actual=act.shape)
    if exp.dtype != act.dtype:
        return Comparison(False, "dtype", expected=exp.dtype, actual=act.dtype)
    exp_poison, act_poison = is_poison(exp), is_poison(act)
    if is_float_dtype(exp.dtype):
        tol = tolerance_for(exp.dtype, overrides)
        e64, a64 = exp.astype(np.float64), act.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(a64 - e64)
            close = diff <= tol.atol + tol.rtol * np.abs(e64)
        # Infinities compare by equality. Where the expected run left poison (outside a valid region: the
        # program does not define the element), any value is right; poison where a value was expected is not
        # (a planned program's bytes outside a valid region hold what was there before, as on the chip:
        # docs/memory_planning.md, execution by address).
        close |= (e64 == a64)
        close &= ~act_poison | exp_poison
        close |= exp_poison
        finite = ~(exp_poison | act_poison) & np.isfinite(diff)
        max_err = float(diff[finite].max()) if finite.any() else 0.0
        if (act_poison & ~exp_poison).any():
            max_err = float("inf")  # poison against a written value: no finite error describes it
    else:
        close = (exp == act) | exp_poison
        with np.errstate(over="ignore"):
            both = ~(exp_poison | act_poison)
            d = np.abs(exp.astype(np.float64) - act.astype(np.float64))
        max_err = float(d[both].max()) if both.any() else 0.0
    bad = ~close
    n_bad = int(bad.sum())
    n_poison = int(exp_poison.sum())
    if n_bad == 0:
        return Comparison(True, max_abs_error=max_err, poisoned=n_poison)
    first = tuple(int(i) for i in np.argwhere(bad)[0])
    return Comparison(False, "value", max_abs_error=max_err, first_index=first,
                      expected=exp[first] if exp.ndim else exp.item(),
                      actual=act[first] if act.ndim else act.item(), mismatches=n_bad, poisoned=n_poison)
