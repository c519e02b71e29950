"""Pass rewrite rules of the elementwise_extra ops (issue 14): tile forms, 2-D flattening, split forms.

* tensor.fmod / part_* -> the tile op of the same name (the tile ops promote and broadcast alike);
  tensor.fmods -> tile.fmods on the tile cast to the promoted dtype; tensor.expands -> tile.expands of
  the target's tile with the scalar cast to the target's dtype (tensor.expands keeps it, OPS.md).
* Split form of tile.cmp / tile.cmps: the packed predicate of one lane's part is the compare of that
  part (its byte width is roundup(ceil(n / 8), 32) of the lane's n, not half the full mask's), so the
  call is re-typed by its deducer and its result marked split like its operands; tile.sel / sels of
  that lane read it with the lane's own element indices.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import scalar_ops
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.types import ScalarType, TensorType
from pypto_core.ops.tile_form import TileForm, TileLowering
from pypto_plugins.ops_tile.lowering.compute import _tile_of, promoting, same
from pypto_plugins.ops_tile.ops.elementwise_extra import PART


def _expands(ctx: TileLowering, call: Call) -> Expr:
    target, scalar = _tile_of(ctx, call.args[0]), call.args[1]
    t = call.type
    assert isinstance(t, TensorType)
    if isinstance(scalar.type, ScalarType) and scalar.type.dtype is not t.dtype:
        scalar = scalar_ops.cast(scalar, t.dtype)
    return ctx.call("tile.expands", [target, scalar])


def tile_forms() -> dict[str, Any]:
    forms: dict[str, TileForm] = {"tensor.fmod": same("tile.fmod"), "tensor.fmods": promoting("tile.fmods"),
                                  "tensor.expands": TileForm(lower=_expands)}
    for n in PART:
        forms[f"tensor.{n}"] = same(f"tile.{n}")
    return forms


def flatten_rules() -> dict[str, Any]:
    return {}
