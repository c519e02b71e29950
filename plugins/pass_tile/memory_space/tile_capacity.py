"""A tile larger than its memory space cannot be placed by any plan (docs/memory_planning.md): once every tile
has its space, each one is held against the backend's capacity of that space, so a kernel the chip cannot hold
is a located error at compile time, not a program that "runs ok" on the reference machine. Whether the tiles
live at the same time fit together is the memory planning passes' question; one tile alone is a lower bound
that no reuse can beat."""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.memory import check_capacity, tile_bytes
from pypto_core.analysis.walk import statements
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.types import TileType

_NOTE = "; this one tile is larger than the whole space, so no memory plan can place it"


def reject_tiles_beyond_capacity(func: F.Function, backend: Any) -> None:
    """A located ValueError naming the space, the function, the bytes and the limit for the first tile too big."""
    for s in statements(func.body):
        if not isinstance(s, S.AssignStmt) or not isinstance(s.var.type, TileType):
            continue
        t = s.var.type
        if t.memory_space is None:
            continue
        size = tile_bytes(t, backend)
        if size is not None:
            check_capacity(t.memory_space, size, func.name, backend, s.span, note=_NOTE)
