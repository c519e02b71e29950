"""The MemRef of a view: on its source's allocation (init_mem_ref.md 3.3 rule 3; docs/memory_planning.md, MemRefs).

Offset = the source's offset + the view's: 0, except for a window (a slice), whose first element sits at
`(sum off_i * prod_{j>i} parent_shape_j) * elem_bytes` (folded when constant, else an INDEX expression).
Size = the source's, except a static window: the bytes from its first to its last touched element. A view at
offset 0 with the source's size is the source's MemRef object itself (a pure alias).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pypto_core.analysis.memory import element_bits
from pypto_core.ir import expr as E
from pypto_core.ir import scalar_ops
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.types import MemRef, TensorType, TileType
from pypto_core.ops.registry import op_registry


def _dims(value: E.Expr) -> list[E.Expr]:
    return list(value.elements) if isinstance(value, E.MakeTuple) else [value]


def _constants(exprs: Sequence[E.Expr]) -> list[int] | None:
    if all(isinstance(e, E.ConstInt) for e in exprs):
        return [e.value for e in exprs]  # type: ignore[attr-defined]
    return None


def _index(value: int | E.Expr) -> E.Expr:
    return E.ConstInt(value, DataType.INDEX) if isinstance(value, int) else value


def window_span(parent: TileType | TensorType, offsets: list[E.Expr], window: list[E.Expr]) -> \
        tuple[int | E.Expr, int | None]:
    """(byte offset of the window's first element inside its parent, bytes it spans or None when not static)."""
    bits = element_bits(parent.dtype)
    shape = list(parent.shape)
    consts_shape, consts_off, consts_win = _constants(shape), _constants(offsets), _constants(window)
    if consts_shape is not None and consts_off is not None:
        strides = [math.prod(consts_shape[i + 1:]) for i in range(len(consts_shape))]
        first = sum(o * s for o, s in zip(consts_off, strides))
        span = None
        if consts_win is not None:
            last = sum((o + w - 1) * s for o, w, s in zip(consts_off, consts_win, strides))
            span = (last - first + 1) * bits // 8
        return first * bits // 8, span
    elem_offset: E.Expr = E.ConstInt(0, DataType.INDEX)
    for i, off in enumerate(offsets):
        term = _index(off)
        for d in shape[i + 1:]:
            term = scalar_ops.mul(term, _index(d))
        elem_offset = term if i == 0 else scalar_ops.add(elem_offset, term)
    return scalar_ops.mul(elem_offset, E.ConstInt(max(1, bits // 8), DataType.INDEX)), None


def view_memref(call: E.Call, parent_type: TileType | TensorType, kind: str) -> MemRef:
    """The MemRef of `call`'s result, a view of kind `kind` into operand 0 (of type `parent_type`)."""
    parent = parent_type.memref
    assert parent is not None
    if kind != "window":
        return parent
    traits = op_registry().get_opdef(call.op.name).traits
    window = _dims(call.args[traits.shape_args[0]])
    offsets = _dims(call.args[traits.read_address_args[0]])
    view_offset, span = window_span(parent_type, offsets, window)
    size = parent.size if span is None else span
    if isinstance(view_offset, int) and view_offset == 0:
        offset = parent.byte_offset
    elif isinstance(view_offset, int) and parent.static_offset is not None:
        offset = E.ConstInt(parent.static_offset + view_offset, DataType.INDEX)
    elif parent.static_offset == 0:
        offset = _index(view_offset)
    else:
        offset = scalar_ops.add(scalar_ops.cast(parent.byte_offset, DataType.INDEX), _index(view_offset))
    if offset is parent.byte_offset and size == parent.size:
        return parent
    return MemRef(parent.base, offset, size, slots=parent.slots, slot=parent.slot)
