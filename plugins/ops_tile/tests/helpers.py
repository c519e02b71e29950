"""Operand builders for the plugin's tests (shared by the test modules through conftest-free import)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pypto.language as pl
from pypto import ir


def tile(shape: list[Any], dtype: Any = pl.FP32, mem: Any = pl.Mem.Vec, valid: list[Any] | None = None,
         name: str = "t") -> ir.Var:
    view = None
    if valid is not None:  # the layout an annotation would give: the implicit one of (shape, space)
        from pypto_core.ir.types import implicit_layout

        blayout, slayout, fractal = implicit_layout(ir.TileType(shape, dtype).shape, mem)
        view = ir.TileView(valid_shape=valid, blayout=blayout, slayout=slayout, fractal=fractal)
    return ir.Var(name, ir.TileType(shape, dtype, tile_view=view, memory_space=mem))


def tensor(shape: list[Any], dtype: Any = pl.FP32, name: str = "g") -> ir.Var:
    return ir.Var(name, ir.TensorType(shape, dtype))


def scalar(dtype: Any = pl.INDEX, name: str = "s") -> ir.Var:
    return ir.Var(name, ir.ScalarType(dtype))


def dims(t: Any) -> list[Any]:
    """A shape as ints (dynamic dims stay expressions)."""
    return [d.value if isinstance(d, ir.ConstInt) else d for d in t]


def shape_of(call: Any) -> list[Any]:
    return dims(call.type.shape)


def valid_of(call: Any) -> list[Any]:
    return dims(call.type.valid_shape)


def program(body: str, params: str) -> str:
    import textwrap

    body = textwrap.indent(textwrap.dedent(body).strip(), " " * 4)
    return f"import pypto.language as pl\n\n@pl.function\ndef main({params}):\n{body}\n"


@dataclass(frozen=True)
class Blind:
    """A tile operand the type deducer cannot see (test_lane_invariant_arg_coverage.py)."""

    axes: tuple[int, ...]
    why: str | None = None  # None: declared lane-invariant in the registry
