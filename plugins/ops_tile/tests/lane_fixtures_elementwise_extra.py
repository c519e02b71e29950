"""Lane-invariant coverage fixtures of the elementwise_extra ops (merged by test_lane_invariant_arg_coverage.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pypto.language as pl
from pypto import ir

from .helpers import Blind


def _v(dtype: Any = pl.FP32) -> ir.Var:  # the standard [16, 128] Vec tile
    return ir.Var("t", ir.TileType([16, 128], dtype, memory_space=pl.Mem.Vec))


def _f(value: float) -> ir.ConstFloat:
    return ir.ConstFloat(value, pl.FP32)


FIXTURES: dict[str, Callable[[], Any]] = {
    "tile.addc": lambda: ([_v(), _v(), _v()], {}),
    "tile.subc": lambda: ([_v(), _v(), _v()], {}),
    "tile.addsc": lambda: ([_v(), _f(1.0), _v()], {}),
    "tile.subsc": lambda: ([_v(), _f(1.0), _v()], {}),
    "tile.fmod": lambda: ([_v(), _v()], {}),
    "tile.fmods": lambda: ([_v(), _f(2.0)], {}),
    **{f"tile.part_{n}": (lambda: ([_v(), _v()], {})) for n in ("add", "max", "min", "mul")},
    "tile.prelu": lambda: ([_v(), _v(), _v()], {}),
    "tile.lrelu": lambda: ([_v(), _f(0.1)], {}),
    "tile.expands": lambda: ([_v(), _f(1.0)], {}),
    "tile.log": lambda: ([_v()], {"high_precision": True}),  # left the UNARY family: FP16 / FP32 only
    # rem / xor with the scratch tile PyPTO passes third (docs/reference/ops.md)
    "tile.rem": lambda: ([_v(), _v(), _v()], {}),
    "tile.rems": lambda: ([_v(), _f(2.0), _v()], {}),
    "tile.xor": lambda: ([_v(pl.INT32), _v(pl.INT32), _v(pl.INT32)], {}),
    "tile.xors": lambda: ([_v(pl.INT32), ir.ConstInt(3, pl.INT32), _v(pl.INT32)], {}),
}
EXPECTED_BLIND: dict[tuple[str, int], Blind] = {
    # prelu's tmp is hardware scratch: declared Scratch, so it may stay full width.
    ("tile.prelu", 2): Blind((0, 1)),
    **{(f"tile.{n}", 2): Blind((0, 1)) for n in ("rem", "rems", "xor", "xors")},
}
