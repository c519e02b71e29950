"""The two questions that decide whether a halved call is sound (docs/passes/lower_auto_vector_split.md, when a halved call is sound).

* The type rule accepts the halved operands: with its operands rewritten (split ones halved), does the
  op's deducer give the physical shape of the halved result? A deducer error counts as "no", and its
  message is quoted.
* The operands the type rule cannot see are declared lane-invariant: doubling such an operand on the
  split axis does not change the deduced result, so only the registry's lane declaration
  (OpDef.lane_invariant) can say whether full width is its contract: Scratch may stay full width; the
  absolute-index categories may too, but their producer must not be halved (checked first, before any
  halving); an undeclared operand is lane data and must be split.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TileType, Type, dims_equal
from pypto_core.ops.build import doubled
from pypto_core.ops.opdef import LaneCategory, OpDef


def _deduce(opdef: OpDef, args: Sequence[E.Expr], kwargs: Mapping[str, Any]) -> Type:
    from pypto_core.ops.registry import apply_output_memory

    result = opdef.deduce_type(list(args), kwargs)
    return apply_output_memory(opdef, result, args, kwargs) if opdef.output_memory is not None else result


def deduce_halved(opdef: OpDef, args: Sequence[E.Expr], kwargs: Mapping[str, Any]) -> tuple[Type | None, str]:
    """(the type the op deduces for the rewritten operands, or None and the op's own message)."""
    try:
        return _deduce(opdef, args, kwargs), ""
    except (TypeError, ValueError) as exc:
        return None, str(exc)


def same_physical_shape(deduced: Type, halved: Type) -> bool:
    """The type-rule check's comparison: the physical shape only (the valid region is lane-localised by the pass)."""
    if isinstance(deduced, TileType) and isinstance(halved, TileType):
        return dims_equal(deduced.shape, halved.shape)
    return structural_equal(deduced, halved)


def operand_axis(result_axis: int, result_rank: int, operand_rank: int) -> int | None:
    """The operand axis that lines up with the result's split axis (right-aligned, like broadcasting)."""
    axis = result_axis - (result_rank - operand_rank)
    return axis if 0 <= axis < operand_rank else None


def is_blind(opdef: OpDef, args: Sequence[E.Expr], kwargs: Mapping[str, Any], index: int, axis: int) -> bool:
    """Double operand `index` on `axis` and deduce again: an unchanged result means the deducer ignores it."""
    t = args[index].type
    if not isinstance(t, TileType):
        return False
    base, _ = deduce_halved(opdef, args, kwargs)
    if base is None:
        return False
    shape = list(t.shape)
    shape[axis] = doubled(shape[axis])
    probe = list(args)
    probe[index] = E.Var("probe", TileType(shape, t.dtype, None, None, t.memory_space))
    again, _ = deduce_halved(opdef, probe, kwargs)
    return again is not None and structural_equal(again, base)


def full_width_operands(opdef: OpDef, args: Sequence[E.Expr], split: Sequence[int | None], result_axis: int,
                        result_rank: int) -> list[int]:
    """Unsplit tile operands that span the split axis with more than one element (not broadcasts)."""
    from pypto_core.ops.build import static_int

    out = []
    for i, a in enumerate(args):
        t = a.type
        if split[i] is not None or not isinstance(t, TileType):
            continue
        axis = operand_axis(result_axis, result_rank, len(t.shape))
        if axis is not None and static_int(t.shape[axis]) != 1:
            out.append(i)
    return out


def absolute_index_category(opdef: OpDef, index: int) -> LaneCategory | None:
    category = opdef.lane_category(index)
    return category if category is not None and not category.producer_may_be_halved else None
