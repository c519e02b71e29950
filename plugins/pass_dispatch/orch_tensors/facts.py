"""What OptimizeOrchTensors asks the op registry (docs/passes/optimize_orch_tensors.md): which call makes a
fresh buffer, writes a window of another buffer, slices a tensor, or loads a whole tensor into a tile. No op
names: the ops state these facts in their registrations (docs/plugins.md, OpDef fields)."""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.ir import expr as E
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ops.build import static_dims, static_int, tuple_elements
from pypto_core.ops.registry import opdef_of


@dataclass(frozen=True)
class WindowWrite:
    """`call` writes `source` into a window of `target` at `offsets`."""

    call: E.Call
    target: E.Expr
    source: E.Expr
    offsets: E.Expr


def is_fresh_buffer(value: E.Expr) -> bool:
    """A call whose result is a new buffer with undefined contents (tensor.create, tile.create)."""
    opdef = opdef_of(value)
    return opdef is not None and opdef.traits.is_fresh_buffer(value)  # type: ignore[arg-type]


def window_write(value: E.Expr) -> WindowWrite | None:
    opdef = opdef_of(value)
    if opdef is None or opdef.traits.writes_window is None:
        return None
    assert isinstance(value, E.Call)
    target, source, offsets = opdef.traits.writes_window
    if max(target, source, offsets) >= len(value.args):
        return None
    return WindowWrite(value, value.args[target], value.args[source], value.args[offsets])


def sliced_tensor(value: E.Expr) -> E.Expr | None:
    """The tensor a call takes a window of, when its result is a tensor view of that window (tensor.slice)."""
    opdef = opdef_of(value)
    if opdef is None or opdef.traits.buffer_view != "window":
        return None
    assert isinstance(value, E.Call)
    if not value.args or not isinstance(value.type, TensorType) or not isinstance(value.args[0].type, TensorType):
        return None
    return value.args[0]


def all_zero(offsets: E.Expr) -> bool:
    elements = tuple_elements(offsets) if isinstance(offsets, E.MakeTuple) else None
    return elements is not None and all(static_int(e) == 0 for e in elements)


def is_full_load_of(value: E.Expr, tensor: E.Var) -> bool:
    """A GM transfer reading all of `tensor` into one tile: zero offsets, the tile's shape and valid region the
    tensor's static shape, the same dtype."""
    opdef = opdef_of(value)
    if opdef is None or not opdef.traits.gm_transfer or not opdef.traits.read_address_args:
        return False
    assert isinstance(value, E.Call)
    if not value.args or value.args[0] is not tensor or not isinstance(value.type, TileType):
        return False
    if not all_zero(value.args[opdef.traits.read_address_args[0]]):
        return False
    shape = static_dims(tensor.type.shape) if isinstance(tensor.type, TensorType) else None
    tile = value.type
    return (shape is not None and static_dims(tile.shape) == shape and static_dims(tile.valid_shape) == shape
            and tile.dtype == tensor.type.dtype)


def row_major_strides(shape: list[int]) -> list[int]:
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= dim
    return list(reversed(strides))
