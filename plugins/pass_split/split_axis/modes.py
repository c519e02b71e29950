"""Split modes, their axes and the pto-isa split codes (docs/passes/lower_auto_vector_split.md, what it does, split codes)."""

from __future__ import annotations

from pypto_core.errors import InternalError
from pypto_core.ir.enums import SplitMode


def split_dimension(mode: SplitMode | int) -> int:
    """UP_DOWN splits dim 0 (rows), LEFT_RIGHT dim 1 (columns). NONE has no axis: never asked."""
    m = SplitMode(int(mode))
    if m is SplitMode.UP_DOWN:
        return 0
    if m is SplitMode.LEFT_RIGHT:
        return 1
    raise InternalError("split_dimension asked for SplitMode.NONE, which has no split axis")


def mode_of_dimension(dim: int) -> SplitMode:
    """The mode whose split axis is `dim` (the aic_gather of an operand tracked on that axis)."""
    if dim == 0:
        return SplitMode.UP_DOWN
    if dim == 1:
        return SplitMode.LEFT_RIGHT
    raise ValueError(f"a split axis must be dim 0 or 1 of a 2-D tile, not dim {dim}")


def split_code(mode: SplitMode | int, odd: bool) -> int:
    """The pto-isa TileSplitAxis code: 1 / 2 when both lanes hold the same extent, 3 / 4 when lane 0 holds
    one more (the _ODD forms); 0 for NONE."""
    m = SplitMode(int(mode))
    if m is SplitMode.NONE:
        return 0
    return int(m) + (2 if odd else 0)
