"""How a tensor op becomes tile ops: the registry data ConvertTensorToTileOps reads (docs/passes/convert_tensor_to_tile_ops.md).

A tensor op's OpDef names its tile form. The simple case is a tile op taking the same operands, the
tensor ones as tiles (`tensor.add` -> `tile.add`); anything else (a window of a parameter becoming a
`tile.load`, an assemble into a parameter becoming a `tile.store`, a reduction that needs a scratch
tile) is a `lower` function written against `TileLowering`, the small interface the pass offers.
A new tensor op thus needs a tile form, never a change in the pass.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, Expr, Var
from pypto_core.ir.types import TensorType


class TileLowering(Protocol):
    """What ConvertTensorToTileOps offers a tile form while it lowers one call."""

    def is_gm(self, operand: Expr) -> bool:
        """The operand is still a tensor in global memory (a parameter, a store's result)."""

    def tile(self, operand: Expr) -> Expr:
        """The tile holding a tensor operand's value (a GM tensor is loaded whole)."""

    def load(self, tensor: Expr, offsets: Any, shapes: Any, valid_shape: Any = None, clamp: bool = False) -> Expr:
        """A `tile.load` of a window of a GM tensor into the space its consumers need (Vec unless a declared
        operand space reaches the lowered statement's result)."""

    def call(self, op: str, args: Sequence[Expr], kwargs: Mapping[str, Any] | None = None) -> Call:
        """A call of a registered op (type deduced) at the lowered call's source location."""

    def bind(self, value: Expr, name_hint: str) -> Var:
        """Bind a helper value (a scratch tile) to a new variable just before the lowered statement."""

    # The variable the lowered statement binds (None for a statement call), and the memory space a consumer's
    # declared operand slot asks of it (None: no demand; its loads go to Vec). Helper names follow them.
    result: Var | None
    load_space: MemorySpace | None


Lower = Callable[[TileLowering, Call], Expr]
KwargMap = Callable[[Mapping[str, Any]], Mapping[str, Any]]


@dataclass(frozen=True)
class TileForm:
    """The tile form of a tensor op.

    `op` alone: the same operands (tensor ones replaced by their tiles) and the same kwargs, or the
    kwargs `kwargs` maps them to. `lower`: a function building the replacement. `gm_access`: the op
    addresses a GM tensor directly (tensor.read / write / dim) and may stay as it is in tile code.
    """

    op: str | None = None
    kwargs: KwargMap | None = None
    lower: Lower | None = None
    gm_access: bool = False
    # The spaces the tile op needs operands in, as PyPTO's conversion declares them (docs/passes/
    # convert_tensor_to_tile_ops.md, rules): (argument index, space, the bool kwarg that transposes that operand
    # or None). The pass bridges each such operand before `lower` runs: a GM tensor is loaded into the space, a
    # transposed operand is viewed (`tile.transpose_view`) and its kwarg reads False. A space of None: the
    # parameter's load leaves its space to InferTileMemorySpace (a matmul_acc accumulator).
    operand_spaces: tuple[tuple[int, MemorySpace | None, str | None], ...] = ()

    def describe(self) -> str:
        """One line for the op reference (`pypto docs`): what the tensor op becomes."""
        if self.lower is not None:
            module = getattr(self.lower, "__module__", "") or ""
            return f"lowered by `{module}.{self.lower.__qualname__}`" if module else "lowered by a function"
        text = f"`{self.op}`" if self.op else "-"
        if self.kwargs is not None:
            text += " with mapped kwargs"
        if self.gm_access:
            text += " (addresses GM directly, may stay in tile code)"
        return text

    def apply(self, ctx: TileLowering, call: Call) -> Expr:
        if self.lower is not None:
            return self.lower(ctx, call)
        if self.op is None:
            raise TypeError(f"{call.op.name}: its tile form names neither a tile op nor a lowering")
        args = [ctx.tile(a) if isinstance(a.type, TensorType) else a for a in call.args]
        kwargs = dict(self.kwargs(call.kwargs)) if self.kwargs is not None else dict(call.kwargs)
        return ctx.call(self.op, args, kwargs)


__all__ = ["TileForm", "TileLowering", "Lower", "KwargMap"]
