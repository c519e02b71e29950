"""Which operands an op's result must not share a buffer with (`OpTraits.no_alias_operands`, asked by
MemoryReuse, docs/passes/memory_reuse.md): PyPTO's in-place safety facts of these ops.

An element-wise op reading element i and writing element i may write over its operand; these ops read other
elements after writing (reductions, sorts, gathers, transposes, broadcasts of a row / column), keep
intermediate state in the destination, or change the element width, so their result needs its own buffer.
The facts are declared here for the ops of every family at once (one place to read them against PyPTO's op
registry) and set on the families' OpDefs before they register.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pypto_core.ir.expr import Call
from pypto_core.ir.types import TileType
from pypto_core.ops.family import OpFamily


def every_operand(call: Call, backend: Any = None) -> tuple[int, ...]:
    return tuple(range(len(call.args)))


def widening_source(call: Call, backend: Any = None) -> tuple[int, ...]:
    """A cast to a wider dtype writes more bytes per element than it reads: operand 0 when widening."""
    src = call.args[0].type if call.args else None
    dst = call.type
    if isinstance(src, TileType) and isinstance(dst, TileType) and dst.dtype.get_bit() > src.dtype.get_bit():
        return (0,)
    return ()


def prelu_operands(call: Call, backend: Any = None) -> tuple[int, ...]:
    """On an A5 (Ascend950) chip only x and slope; elsewhere every operand (PyPTO's A5 prelu)."""
    if backend is not None and backend.fact("pto_arch", None) == "a5":
        return (0, 1)
    return every_operand(call, backend)


_EVERY = every_operand
NO_ALIAS: dict[str, tuple[int, ...] | Callable[[Call, Any], Sequence[int]]] = {
    **{f"tile.{n}": _EVERY for n in (
        "recip", "rsqrt", "row_sum", "row_max", "row_min", "row_prod", "row_argmax", "row_argmin", "col_argmax",
        "col_argmin", "move", "transpose", "fmod", "fmods", "mrgsort_format1", "mrgsort_format2", "sort32",
        "concat", "extract", "fillpad_expand", "gather", "gather_compare", "gather_mask", "gather_row",
        "gatherb", "mgather", "ands", "ors", "xors")},
    **{f"tile.{kind}_expand{op}": (1,) for kind in ("row", "col")
       for op in ("", "_add", "_div", "_expdif", "_max", "_min", "_mul", "_sub")},
    "tile.sel": (0, 3),
    "tile.cast": widening_source,
    "tile.prelu": prelu_operands,
}


def apply_in_place_safety(families: Iterable[OpFamily]) -> None:
    """Set each listed op's `no_alias_operands` on its OpDef (an op no family defines is skipped: the table
    follows PyPTO's registry, which may know ops this plugin does not)."""
    for family in families:
        for opdef in family.opdefs:
            fact = NO_ALIAS.get(opdef.name)
            if fact is not None and opdef.traits.no_alias_operands != fact:
                opdef.traits = dataclasses.replace(opdef.traits, no_alias_operands=fact)
