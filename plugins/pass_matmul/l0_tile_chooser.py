"""`passes.l0_tile_chooser`: PyPTO's L0 tile chooser (docs/passes/auto_tile_matmul_l0.md, the chooser).

Given a matmul `[M, K] x [K, N]`, the L0A / L0B / L0C capacities and a roofline cost model, `choose_l0_tile`
picks the `(m, n, k)` tile a cube kernel computes at a time and how it keeps operands stationary. The search
enumerates every legal tile of a regime (stationarity x double-buffered L0C), scores each with the cost model
and keeps the cheapest; the page above explains the cost model for users.

The module is published as the attribute `l0_tile_chooser` of `pypto.passes` by this plugin (the passes
namespace registry, docs/plugins.md): `from pypto import passes; passes.l0_tile_chooser.choose_l0_tile(cfg)`.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

__all__ = ["L0TileConfig", "L0TileResult", "Stationarity", "choose_l0_tile"]


class Stationarity(enum.IntEnum):
    """Which operand stays in L0 while the other streams: none (the output tile), A or B."""

    OutputStationary = 0
    AStationary = 1
    BStationary = 2

    def __str__(self) -> str:  # as PyPTO's enum prints (pytest ids, messages)
        return f"Stationarity.{self.name}"


# Field name -> (type, default). Order and defaults are PyPTO's L0TileConfig.
_CONFIG_FIELDS: dict[str, tuple[type, Any]] = {
    "M": (int, 0), "N": (int, 0), "K": (int, 0),
    "l0a_bytes": (int, 0), "l0b_bytes": (int, 0), "l0c_bytes": (int, 0),
    "bytes_a": (int, 2), "bytes_b": (int, 2), "bytes_c": (int, 4),
    "min_m": (int, 16), "min_n": (int, 16), "min_k": (int, 16),
    "align_m": (int, 16), "align_n": (int, 16), "align_k": (int, 16),
    "l0c_align_m": (int, 16), "box_align_m": (int, 1), "box_align_n": (int, 1),
    "max_n": (int, 0), "max_n_pipelined": (int, 0), "max_n_nested_pipelined": (int, 0),
    "allow_a_stationary": (bool, False), "allow_b_stationary": (bool, False),
    "allow_double_buffer_c": (bool, False), "c_read": (bool, False),
    "bw_a": (float, 129.7), "bw_b": (float, 85.4), "bw_drain": (float, 118.0),
    "drain_fixed_cycles": (float, 164.0), "drain_row_cycles": (float, 4.45), "drain_penalty_cycles": (float, 2.6),
    "drain_c0_bytes": (int, 32), "mad_head": (int, 21), "mad_k_fractal_bytes": (int, 32), "mad_fp32_passes": (int, 2),
    "allow_padding": (bool, False), "allow_k_boundary": (bool, False),
}

# The cost-model fields a backend may state (its `l0_cost_model` fact, docs/reference/backends.md).
COST_MODEL_FIELDS = ("bw_a", "bw_b", "bw_drain", "drain_fixed_cycles", "drain_row_cycles", "drain_penalty_cycles",
                     "drain_c0_bytes", "mad_head", "mad_k_fractal_bytes", "mad_fp32_passes")


def _coerce(name: str, kind: type, value: Any) -> Any:
    """The value as the field's type, with pybind's rules: ints for int fields (not bools' floats), any real
    for float fields, bools for bool fields."""
    if kind is bool:
        if not isinstance(value, bool):
            raise TypeError(f"L0TileConfig.{name} must be a bool, got {type(value).__name__}")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"L0TileConfig.{name} must be an int, got {type(value).__name__}")
        return int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"L0TileConfig.{name} must be a float, got {type(value).__name__}")
    return float(value)


class L0TileConfig:
    """The chooser's input: problem shape, L0 capacities, element sizes, tile geometry, regime gates and the
    cost model. Every field is mutable; an unknown field is an AttributeError."""

    __slots__ = tuple(_CONFIG_FIELDS)

    def __init__(self) -> None:
        for name, (_, default) in _CONFIG_FIELDS.items():
            object.__setattr__(self, name, default)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _CONFIG_FIELDS:
            raise AttributeError(f"'L0TileConfig' object has no attribute '{name}'")
        object.__setattr__(self, name, _coerce(name, _CONFIG_FIELDS[name][0], value))

    def __repr__(self) -> str:
        return "L0TileConfig(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in _CONFIG_FIELDS) + ")"


_RESULT_FIELDS = ("m", "n", "k", "estimated_traffic_bytes", "estimated_cost_cycles", "padded_compute_volume",
                  "stationarity", "os_holds_a", "double_buffer_c", "perf_hint")


class L0TileResult:
    """The chosen tile (read-only; made only by `choose_l0_tile`)."""

    __slots__ = tuple(f"_{f}" for f in _RESULT_FIELDS)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("pypto.passes.l0_tile_chooser.L0TileResult: No constructor defined!")

    @classmethod
    def _make(cls, **fields: Any) -> L0TileResult:
        result = object.__new__(cls)
        for name in _RESULT_FIELDS:
            object.__setattr__(result, f"_{name}", fields[name])
        return result

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"L0TileResult.{name} is read-only")

    def __repr__(self) -> str:
        return "L0TileResult(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in _RESULT_FIELDS) + ")"


def _read_only(name: str) -> property:
    return property(lambda self: getattr(self, f"_{name}"), doc=f"The chosen {name}.")


for _name in _RESULT_FIELDS:
    setattr(L0TileResult, _name, _read_only(_name))


# -- integer helpers (all divisions on ints are exact integer ops) --------------------------------------------

def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _up(x: int, a: int) -> int:
    return _cdiv(x, a) * a


def _odd(x: int) -> int:
    """x with every factor 2 removed."""
    while x > 0 and x % 2 == 0:
        x //= 2
    return x


def _round_half_away(x: float) -> int:
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


def _fail(message: str) -> ValueError:
    return ValueError(f"ChooseL0Tile: {message}")


# -- validation ------------------------------------------------------------------------------------------------

def _validate(c: L0TileConfig) -> None:
    """The checks of PyPTO's chooser, in its order (docs/passes/auto_tile_matmul_l0.md, the chooser's errors)."""
    if c.M <= 0 or c.N <= 0 or c.K <= 0:
        raise _fail(f"M, N, K must all be positive (got {c.M}, {c.N}, {c.K})")
    if c.l0a_bytes <= 0 or c.l0b_bytes <= 0 or c.l0c_bytes <= 0:
        raise _fail("L0 capacities must be positive")
    if c.bytes_a <= 0 or c.bytes_b <= 0 or c.bytes_c <= 0:
        raise _fail("element byte sizes must be positive")
    if c.min_m <= 0 or c.min_n <= 0 or c.min_k <= 0:
        raise _fail("minimum tile dimensions must be positive")
    if c.max_n != 0 and c.max_n < c.min_n:
        raise _fail(f"max_n must be zero (unbounded) or at least min_n (got max_n={c.max_n}, min_n={c.min_n})")
    if c.max_n_pipelined < 0 or (c.max_n > 0 and c.max_n_pipelined > c.max_n):
        raise _fail(f"max_n_pipelined must be non-negative and no greater than max_n when both are bounded "
                    f"(got max_n_pipelined={c.max_n_pipelined}, max_n={c.max_n})")
    if c.max_n_nested_pipelined < 0 or (c.max_n_pipelined > 0 and c.max_n_nested_pipelined > c.max_n_pipelined):
        raise _fail(f"max_n_nested_pipelined must be non-negative and no greater than max_n_pipelined when both "
                    f"are bounded (got max_n_nested_pipelined={c.max_n_nested_pipelined}, "
                    f"max_n_pipelined={c.max_n_pipelined})")
    if min(c.align_m, c.align_n, c.align_k, c.l0c_align_m, c.box_align_m, c.box_align_n) <= 0:
        raise _fail("tile and physical L0C alignments must be positive")
    if not (c.bw_a > 0 and c.bw_b > 0 and c.bw_drain > 0):
        raise _fail(f"roofline bandwidths must be strictly positive (got bw_a={c.bw_a}, bw_b={c.bw_b}, "
                    f"bw_drain={c.bw_drain})")
    if (c.drain_fixed_cycles < 0 or c.drain_row_cycles < 0 or c.drain_penalty_cycles < 0 or c.drain_c0_bytes <= 0
            or c.mad_head < 0 or c.mad_k_fractal_bytes <= 0 or c.mad_fp32_passes < 0):
        raise _fail(f"drain params must be non-negative with a positive fractal C0 (got drain_fixed_cycles="
                    f"{c.drain_fixed_cycles}, drain_row_cycles={c.drain_row_cycles}, drain_penalty_cycles="
                    f"{c.drain_penalty_cycles}, drain_c0_bytes={c.drain_c0_bytes}, mad_head={c.mad_head}, "
                    f"mad_k_fractal_bytes={c.mad_k_fractal_bytes}, mad_fp32_passes={c.mad_fp32_passes})")
    if not c.allow_padding:
        if c.M < c.min_m:
            raise _fail(f"allow_padding=false but M={c.M} is below the cube minimum tile dimension {c.min_m}. "
                        "The pass should skip this matmul with a perf hint instead of calling the chooser.")
        if c.N < c.min_n:
            raise _fail(f"allow_padding=false but N={c.N} is below the cube minimum tile dimension {c.min_n}")
        if c.K < c.min_k:
            raise _fail(f"allow_padding=false but K={c.K} is below the cube minimum tile dimension {c.min_k}")
    a0, b0, c0 = _budgets(c, Stationarity.OutputStationary, 1)
    if a0 < _up(c.min_m, c.box_align_m) * c.min_k:
        raise _fail(f"L0a capacity {a0} elements is too small to fit the minimum tile ({c.min_m} x {c.min_k})")
    if b0 < c.min_k * _up(c.min_n, c.box_align_n):
        raise _fail(f"L0b capacity {b0} elements is too small to fit the minimum tile ({c.min_k} x {c.min_n})")
    footprint = _physical_m(c, c.min_m) * _up(c.min_n, c.box_align_n)
    if c0 < footprint:
        raise _fail(f"L0c capacity {c0} elements is too small to fit the minimum physical tile footprint "
                    f"({footprint} elements for logical {c.min_m} x {c.min_n})")


# -- the search ------------------------------------------------------------------------------------------------

def _budgets(c: L0TileConfig, s: Stationarity, dbc: int) -> tuple[int, int, int]:
    """Elements of A, B and C one buffer may hold: a stationary operand is single-buffered, a streaming one
    double-buffered; the accumulator is double-buffered in a dbC regime."""
    db_a = 1 if s is Stationarity.AStationary else 2
    db_b = 1 if s is Stationarity.BStationary else 2
    return (c.l0a_bytes // (c.bytes_a * db_a), c.l0b_bytes // (c.bytes_b * db_b), c.l0c_bytes // (c.bytes_c * dbc))


def _physical_m(c: L0TileConfig, m: int) -> int:
    """Rows an m-row accumulator occupies in L0C: the operand box, then the L0C row alignment."""
    return _up(_up(m, c.box_align_m), c.l0c_align_m)


@dataclass(frozen=True)
class _Candidate:
    m: int
    n: int
    k: int
    cost: int
    padded: int
    k_blocks: int
    load: float
    holds_a: bool
    stationarity: Stationarity
    dbc: bool

    def better_than(self, other: _Candidate | None) -> bool:
        """PyPTO's strict order within a regime: cost, padded volume, K blocks, load, larger m*n, larger k."""
        if other is None:
            return True
        mine = (self.cost, self.padded, self.k_blocks, self.load, -self.m * self.n, -self.k)
        theirs = (other.cost, other.padded, other.k_blocks, other.load, -other.m * other.n, -other.k)
        return mine < theirs


class _CostModel:
    """The roofline cost of one (m, n, k) candidate (docs/passes/auto_tile_matmul_l0.md, the cost model)."""

    def __init__(self, c: L0TileConfig) -> None:
        self.c = c

    def grid(self, m: int, n: int) -> tuple[int, int]:
        return _cdiv(self.c.M, m), _cdiv(self.c.N, n)

    def held(self, m: int, n: int) -> tuple[float, float]:
        """Load cycles when A stays resident (B reloaded per row block) and when B stays (A per column block)."""
        c = self.c
        tm, tn = self.grid(m, n)
        a, b = c.bytes_a * c.M * c.K, c.bytes_b * c.K * c.N
        return a / c.bw_a + b * tm / c.bw_b, a * tn / c.bw_a + b / c.bw_b

    def holds_a(self, m: int, n: int) -> bool:
        held_a, held_b = self.held(m, n)
        return held_a <= held_b

    def load(self, m: int, n: int, k: int, s: Stationarity) -> float:
        c = self.c
        held_a, held_b = self.held(m, n)
        if s is Stationarity.AStationary:
            return held_a
        if s is Stationarity.BStationary:
            return held_b
        if k >= c.K:
            return held_a if held_a <= held_b else held_b
        tm, tn = self.grid(m, n)
        return c.bytes_a * c.M * c.K * tn / c.bw_a + c.bytes_b * c.K * c.N * tm / c.bw_b

    def mad(self, m: int, n: int, k: int) -> int:
        c = self.c
        tm, tn = self.grid(m, n)
        kt = max(1, c.mad_k_fractal_bytes // c.bytes_a)
        passes = max(1, c.mad_fp32_passes) if c.bytes_a == 4 else max(1, c.bytes_a // 2)
        full = c.K // k
        tail = c.K - full * k
        k_blocks = full + (1 if tail > 0 else 0)
        k_fractals = full * _cdiv(k, kt) + (_cdiv(tail, kt) if tail else 0)
        return tm * tn * (k_blocks * c.mad_head + passes * _cdiv(m, c.align_m) * k_fractals * _cdiv(n, c.align_n))

    def drain(self, m: int, n: int) -> float:
        c = self.c
        tm, tn = self.grid(m, n)
        n0 = max(1, c.drain_c0_bytes // c.bytes_c)
        per_row = (max(c.drain_row_cycles, c.bytes_c * n / c.bw_drain)
                   + c.drain_penalty_cycles * (_odd(_cdiv(n, n0)) - 1))
        return tm * tn * (c.drain_fixed_cycles + m * per_row)

    def cost(self, m: int, n: int, k: int, s: Stationarity, dbc: bool) -> tuple[int, float]:
        """(cycles, load cycles): the wall time of the grid, the drain overlapped when L0C is double-buffered."""
        load = self.load(m, n, k, s)
        compute = max(load, float(self.mad(m, n, k)))
        drain = self.drain(m, n)
        if dbc:
            tm, tn = self.grid(m, n)
            wall = max(compute, drain) + min(compute, drain) / (tm * tn)
        else:
            wall = compute + drain
        return _round_half_away(wall), load


class _Search:
    def __init__(self, c: L0TileConfig) -> None:
        self.c = c
        self.model = _CostModel(c)
        self.m_limit = _up(c.M, c.align_m) if c.allow_padding else c.M
        self.n_limit = _up(c.N, c.align_n) if c.allow_padding else c.N
        self.k_limit = max(_up(c.K, c.align_k), c.min_k) if c.allow_padding else c.K
        self.any_k = c.allow_padding or (c.allow_k_boundary and c.K % c.align_k == 0)

    def regime_fits(self, s: Stationarity, dbc: bool) -> bool:
        """Whether this regime's L0C buffer holds the physical [min_m, min_n] tile at all."""
        c = self.c
        _, _, c0 = _budgets(c, s, 2 if dbc else 1)
        return _physical_m(c, c.min_m) * _up(c.min_n, c.box_align_n) <= c0

    def best(self, s: Stationarity, dbc: bool, baseline: bool) -> _Candidate | None:
        c = self.c
        a0, b0, c0 = _budgets(c, s, 2 if dbc else 1)
        best: _Candidate | None = None
        n_floor = _up(c.min_n, c.box_align_n)
        m = c.min_m
        while m <= self.m_limit:
            pm = _physical_m(c, m)
            if pm > c0 // n_floor:
                break
            n_hi = min(self.n_limit, c.max_n if c.max_n > 0 else self.n_limit, c0 // pm)
            n = c.min_n
            while n <= n_hi:
                for k in self.k_candidates(m, n, a0, b0):
                    cand = self.score(m, n, k, s, dbc, c0, baseline)
                    if cand is not None and cand.better_than(best):
                        best = cand
                n += c.align_n
            m += c.align_m
        return best

    def k_candidates(self, m: int, n: int, a0: int, b0: int) -> list[int]:
        c = self.c
        kcap = min(a0 // _up(m, c.box_align_m), b0 // _up(n, c.box_align_n))
        k_hi = min(kcap, self.k_limit) // c.align_k * c.align_k
        return [k for k in range(c.min_k, k_hi + 1, c.align_k) if self.any_k or c.K % k == 0]

    def score(self, m: int, n: int, k: int, s: Stationarity, dbc: bool, c0: int,
              baseline: bool) -> _Candidate | None:
        c = self.c
        if m < c.min_m or n < c.min_n or k < c.min_k:
            return None
        if c.max_n > 0 and n > c.max_n:
            return None
        if not c.allow_padding and (m > c.M or n > c.N):
            return None
        if _physical_m(c, m) * _up(n, c.box_align_n) > c0:
            return None
        holds_a = self.model.holds_a(m, n)
        if k == c.K and (m, n) != (c.M, c.N):  # a full-K output grid: pipelined over the other axis
            if (c.max_n_pipelined > 0 and n > c.max_n_pipelined
                    and s in (Stationarity.AStationary, Stationarity.OutputStationary)):
                return None
            if (c.max_n_nested_pipelined > 0 and n > c.max_n_nested_pipelined
                    and s is Stationarity.OutputStationary and holds_a):
                return None
        if not baseline:
            if k != c.K:
                return None
            if dbc and self.full_inner_tiles(m, n, s, holds_a) < 2:
                return None
        cost, load = self.model.cost(m, n, k, s, dbc)
        tm, tn = self.model.grid(m, n)
        padded = tm * m * tn * n * _cdiv(c.K, k) * k
        return _Candidate(m, n, k, cost, padded, _cdiv(c.K, k), load, holds_a, s, dbc)

    def full_inner_tiles(self, m: int, n: int, s: Stationarity, holds_a: bool) -> int:
        """Full tiles along the axis the inner loop moves on: columns when rows are outer."""
        rows_outer = s is Stationarity.AStationary or (s is Stationarity.OutputStationary and holds_a)
        return self.c.N // n if rows_outer else self.c.M // m


def _regimes(c: L0TileConfig) -> list[tuple[Stationarity, bool]]:
    """The regimes tried after the baseline, in PyPTO's order, each only when its gate is open."""
    out = []
    if c.allow_double_buffer_c:
        out.append((Stationarity.OutputStationary, True))
    for s, gate in ((Stationarity.AStationary, c.allow_a_stationary), (Stationarity.BStationary, c.allow_b_stationary)):
        if gate:
            out.append((s, False))
            if c.allow_double_buffer_c:
                out.append((s, True))
    return out


def _traffic(c: L0TileConfig, best: _Candidate) -> int:
    tm, tn = _cdiv(c.M, best.m), _cdiv(c.N, best.n)
    full_k = best.k >= c.K
    os_ = best.stationarity is Stationarity.OutputStationary
    a_held = best.stationarity is Stationarity.AStationary or (os_ and full_k and best.holds_a)
    b_held = best.stationarity is Stationarity.BStationary or (os_ and full_k and not best.holds_a)
    a = c.bytes_a * c.M * c.K * (1 if a_held else tn)
    b = c.bytes_b * c.K * c.N * (1 if b_held else tm)
    return a + b + (2 if c.c_read else 1) * c.bytes_c * c.M * c.N


def _perf_hint(c: L0TileConfig, best: _Candidate) -> str:
    if c.allow_padding and (c.M < c.min_m or c.N < c.min_n or c.K < c.min_k):
        return (f"Matmul shape (M={c.M}, N={c.N}, K={c.K}) is below the cube minimum tile dimension {c.min_m}; "
                f"tile shape padded up to ({best.m}, {best.n}, {best.k}). Consider reshaping or fusing with "
                f"adjacent ops to amortise the padding.")
    return ""


def choose_l0_tile(config: L0TileConfig) -> L0TileResult:
    """The cheapest legal L0 tile for `config` (ValueError `ChooseL0Tile: ...` for an invalid config)."""
    if not isinstance(config, L0TileConfig):
        raise TypeError(f"choose_l0_tile needs an L0TileConfig, got {type(config).__name__}")
    c = config
    _validate(c)
    search = _Search(c)
    best = search.best(Stationarity.OutputStationary, False, baseline=True)
    if best is None:
        raise _fail(f"no legal (m, n, k) tile found for M={c.M}, N={c.N}, K={c.K} with L0 capacities "
                    f"(l0a={c.l0a_bytes}, l0b={c.l0b_bytes}, l0c={c.l0c_bytes}) bytes; relax the alignment or "
                    f"allow_k_boundary / allow_padding")
    if (best.m, best.n, best.k) != (c.M, c.N, c.K):
        for s, dbc in _regimes(c):
            if not search.regime_fits(s, dbc):
                continue
            cand = search.best(s, dbc, baseline=False)
            if cand is not None and cand.cost < best.cost:
                best = cand
    return L0TileResult._make(
        m=best.m, n=best.n, k=best.k, estimated_traffic_bytes=_traffic(c, best),
        estimated_cost_cycles=best.cost, padded_compute_volume=best.padded, stationarity=best.stationarity,
        os_holds_a=best.holds_a, double_buffer_c=best.dbc, perf_hint=_perf_hint(c, best))
