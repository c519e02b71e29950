"""The boxes of a matmul operand's layout (docs/passes/auto_tile_matmul_l0.md, boxed layouts).

A cube buffer stores a tile in fractal boxes: `fractal` bytes each, `rows` = the cube fractal (16) high. With the
small layout row-major (`slayout=row_major`, the NZ form of Mat and Left tiles) a box is `[16, fractal / 16 /
elem_bytes]` — `[16, 16]` for BF16, `[16, 32]` for INT8, `[16, 8]` for FP32; column-major (`col_major`, Right) the
transpose of that; `none_box` (Vec) stores no boxes, `[1, 1]`. A tile whose dims are not multiples of its box
occupies whole boxes anyway, so the L0 tile chooser counts the padded footprint (`box_align_m` from the left
operand's box rows, `box_align_n` from the right operand's box columns), and a bias matmul whose M / N / K are not
whole boxes is left as written (PH-AT-011). A Vec left operand is moved to Mat first: its box is Mat's.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.enums import MemorySpace, TileLayout
from pypto_core.ir.types import TileType, implicit_layout
from pypto_plugins.pass_matmul.chooser_config import element_bytes, fractal_alignment


def box_shape(t: TileType, backend: Any) -> tuple[int, int]:
    """[rows, cols] of one box of the tile's layout (in Mat when the tile is a Vec left operand)."""
    if t.memory_space is MemorySpace.Vec:
        _, slayout, fractal = implicit_layout(t.shape, MemorySpace.Mat)
    else:
        view = t.effective_view()
        slayout, fractal = view.slayout, view.fractal
    if slayout is TileLayout.none_box:
        return 1, 1
    rows = fractal_alignment(backend)
    across = max(1, fractal // rows // element_bytes(t.dtype))
    return (rows, across) if slayout is TileLayout.row_major else (across, rows)


def box_alignments(lhs: TileType, rhs: TileType, backend: Any) -> tuple[int, int]:
    """(box_align_m, box_align_n) of the chooser: the left operand's box rows, the right operand's box columns."""
    return box_shape(lhs, backend)[0], box_shape(rhs, backend)[1]


def unboxed_dims(lhs: TileType, rhs: TileType, m: int, n: int, k: int, backend: Any) -> list[str]:
    """The dims of an [m, k] x [k, n] product that are not whole boxes of its operands' layouts."""
    (am, ak), (bk, bn) = box_shape(lhs, backend), box_shape(rhs, backend)
    wrong = []
    if m % am:
        wrong.append(f"M={m} (box {am})")
    if n % bn:
        wrong.append(f"N={n} (box {bn})")
    for box in sorted({ak, bk}):
        if k % box:
            wrong.append(f"K={k} (box {box})")
            break
    return wrong
