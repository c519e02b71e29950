"""Where the MX block-scale layouts keep each scale (docs/dsl.md, tiles: MX scale layouts).

A scale tensor declared `pl.MX_A_ZZ` ([M, G], G = K / 32) or `pl.MX_B_NN` ([G, N]) holds its elements in
16 x 2 blocks, one row of blocks after another, as the cube reads them (PyPTO's layouts):

* MX_A_ZZ: (m, g) sits at flat position ((m // 16) * (G / 2) + g // 2) * 32 + (m % 16) * 2 + g % 2;
* MX_B_NN: (g, n) sits at ((n // 16) * (G / 2) + g // 2) * 32 + (n % 16) * 2 + g % 2.

The reference machine keeps a tensor as the array its caller gives, in that physical order; a load from
such a tensor reads through these positions and a store writes through them, so tiles hold the scales
logically ([m, g] / [g, n]) as every tile op expects.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.ir.enums import TensorLayout
from pypto_core.ir.types import TensorType, Type

MX_LAYOUTS = (TensorLayout.MX_A_ZZ, TensorLayout.MX_B_NN)
BLOCK_ROWS, BLOCK_COLS = 16, 2  # one block: 16 rows (M or N) x 2 scale groups (G)


def mx_layout_of(t: Type | None) -> TensorLayout | None:
    """The MX layout of a tensor type, None for any other layout or type."""
    if not isinstance(t, TensorType) or t.tensor_view is None:
        return None
    layout = t.tensor_view.layout
    return layout if layout in MX_LAYOUTS else None


@cache
def mx_positions(layout: TensorLayout, shape: tuple[int, int]) -> np.ndarray:
    """An int array of the tensor's logical shape: the flat position of each element in memory."""
    if len(shape) != 2:
        raise MachineError(f"an {layout.name} tensor is 2-D, got shape {list(shape)}")
    rows, groups = (shape[0], shape[1]) if layout is TensorLayout.MX_A_ZZ else (shape[1], shape[0])
    if rows % BLOCK_ROWS or groups % BLOCK_COLS:
        what = "M" if layout is TensorLayout.MX_A_ZZ else "N"
        raise MachineError(f"an {layout.name} scale tensor of shape {list(shape)} does not fill whole 16 x 2 "
                           f"blocks: {what} must be a multiple of 16 and G (= K / 32) even")
    r = np.arange(rows)[:, None]
    g = np.arange(groups)[None, :]
    pos = ((r // BLOCK_ROWS) * (groups // BLOCK_COLS) + g // BLOCK_COLS) * (BLOCK_ROWS * BLOCK_COLS) \
        + (r % BLOCK_ROWS) * BLOCK_COLS + g % BLOCK_COLS
    pos = pos if layout is TensorLayout.MX_A_ZZ else pos.T
    pos = np.ascontiguousarray(pos)
    pos.setflags(write=False)
    return pos


def logical(array: np.ndarray, layout: TensorLayout) -> np.ndarray:
    """A fresh array of the tensor's logical elements, read from memory in `layout`'s order."""
    return array.reshape(-1)[mx_positions(layout, tuple(array.shape))]


def write_logical(array: np.ndarray, layout: TensorLayout, write: Callable[[np.ndarray], None]) -> None:
    """Apply `write` to the logical elements of `array` and put them back in `layout`'s order, in place."""
    pos = mx_positions(layout, tuple(array.shape))
    values = array.reshape(-1)[pos]
    write(values)
    array.flat[pos.reshape(-1)] = values.reshape(-1)
