"""Tile views of results: which layout and valid region an op's result carries (docs/dsl.md, functions).

An op whose result has its operand's shape keeps the operand's whole view (layout and valid
region): docs/passes/lower_auto_vector_split.md, example shows `tile.move` Mat -> Vec and `tile.add` keeping
`blayout=col_major, slayout=row_major`. An op that builds a new shape starts from the implicit
layout of that shape and only records a valid region.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import TileType, TileView, dims_equal, implicit_layout


def is_partial(t: TileType) -> bool:
    return bool(t.tile_view is not None and t.tile_view.valid_shape and not dims_equal(t.tile_view.valid_shape,
                                                                                         t.shape))


def same_view(src: TileType, shape: Sequence[Expr]) -> TileView | None:
    """The operand's view for a result of the same shape; otherwise the implicit one."""
    if src.tile_view is None or not dims_equal(src.shape, shape):
        return None
    return src.tile_view


def valid_view(valid: Sequence[Expr] | None, shape: Sequence[Expr],
               memory_space: MemorySpace | None) -> TileView | None:
    """The implicit layout of (shape, space), narrowed to a valid region (None when not narrowed)."""
    if not valid:
        return None
    blayout, slayout, fractal = implicit_layout(shape, memory_space)
    return TileView(valid_shape=list(valid), blayout=blayout, slayout=slayout, fractal=fractal)


def relayout_view(src: TileType, valid: Sequence[Expr] | None, shape: Sequence[Expr]) -> TileView | None:
    """The view of a result with a new shape (slice, reshape, reinterpret_view).

    A layout the operand only had implicitly is recomputed for the new shape; an explicit one
    (e.g. NZ data moved into Vec) is kept. Strides and start offsets describe the old shape: dropped.
    """
    eff = src.effective_view()
    if (eff.blayout, eff.slayout, eff.fractal) == implicit_layout(src.shape, src.memory_space):
        blayout, slayout, fractal = implicit_layout(shape, src.memory_space)
    else:
        blayout, slayout, fractal = eff.blayout, eff.slayout, eff.fractal
    return TileView(valid_shape=list(valid or ()), blayout=blayout, slayout=slayout, fractal=fractal,
                    pad=eff.pad, compact=eff.compact)
