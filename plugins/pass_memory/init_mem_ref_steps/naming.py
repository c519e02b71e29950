"""Fresh MemRefs and their names `mem_<space>_<n>` (docs/memory_planning.md, MemRefs; init_mem_ref.md 3.3 rule 6)."""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.memory import static_dims, tile_bytes
from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef, PtrType, TensorType, TileType, Type


def space_of(t: Type) -> MemorySpace:
    """The memory space a buffer of this type lives in: a tile's own (DDR when not inferred), DDR for a tensor."""
    if isinstance(t, TileType) and t.memory_space is not None:
        return t.memory_space
    return MemorySpace.DDR


class StaticShapeRequired(UserError, InternalError):
    """A tile whose shape is not static reaches memory planning. PyPTO reports it as an InternalError (its
    frontend gives every tile a static shape); in pypto a user's program can reach it (a whole dynamic tensor
    loaded in a kernel), so it is also the located ValueError a user can act on (docs/passes/init_mem_ref.md)."""


class MemRefMinter:
    """One counter per function: parameters take the first numbers, then body definitions in order."""

    def __init__(self, backend: Any, function: str) -> None:
        self.backend = backend
        self.function = function
        self.counter = 0

    def fresh(self, var: E.Var, t: Type) -> MemRef:
        space = space_of(t)
        size = self.size(var, t)
        base = E.Var(f"mem_{space.name.lower()}_{self.counter}", PtrType(), var.span)
        self.counter += 1
        return MemRef(base, E.ConstInt(0, DataType.INT64), size)

    def size(self, var: E.Var, t: Type) -> int:
        """A tile's buffer size: every dim a positive constant (else a bug upstream); a tensor with a dynamic
        dim has size 0 (docs/memory_planning.md, sizes)."""
        if isinstance(t, TileType):
            for i, d in enumerate(t.shape):
                if not isinstance(d, E.ConstInt):
                    raise StaticShapeRequired(
                        f"InitMemRef requires static shape for variable '{var.name_hint}', but shape element {i} is "
                        f"dynamic: in function '{self.function}' the tile's on-chip buffer has no size to plan. Give "
                        f"the tile a static shape: load the tensor in blocks of a constant size (a pl.range over the "
                        f"blocks, the last one's valid extent as valid_shape) instead of whole", var.span)
                if d.value <= 0:
                    raise InternalError(
                        f"InitMemRef requires positive shape for variable '{var.name_hint}', but shape element {i} is "
                        f"{d.value}. Fix the upstream op that produced it (a tile dim must be at least 1)")
        if isinstance(t, TensorType) and static_dims(t) is None:
            return 0
        size = tile_bytes(t, self.backend, space_of(t))
        return 0 if size is None else size
