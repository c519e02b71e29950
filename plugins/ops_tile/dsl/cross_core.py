"""DSL / builders of the lane and cross-core ops (docs/dsl.md, splitting vector work).

The parser turns `pl.aiv_shard(x)` / `pl.aic_gather(x)` into calls of `tile.aiv_shard` /
`tensor.aiv_shard` (...) with `split=N`; these functions are also `T.aiv_shard(tile, split=...)`.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import int_list, to_dtype, to_int
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_tile.dsl.common import dsl_entry


def _ints(**values: Any) -> dict[str, Any]:
    """The given integer kwargs (SplitMode members become their int), in order, skipping None."""
    return {k: to_int(v, k) for k, v in values.items() if v is not None}


@dsl_entry
def get_subblock_idx(span: Span | None = None) -> Call:
    return create_op_call("tile.get_subblock_idx", [], span=span)


@dsl_entry
def get_block_idx(span: Span | None = None) -> Call:
    return create_op_call("tile.get_block_idx", [], span=span)


@dsl_entry
def aiv_shard(tile: Expr, span: Span | None = None, *, split: Any, lane_stride: Any = None) -> Call:
    return create_op_call("tile.aiv_shard", [tile], _ints(split=split, lane_stride=lane_stride), span=span)


@dsl_entry
def aic_gather(tile: Expr, span: Span | None = None, *, split: Any) -> Call:
    return create_op_call("tile.aic_gather", [tile], _ints(split=split), span=span)


@dsl_entry
def tensor_aiv_shard(tensor: Expr, span: Span | None = None, *, split: Any) -> Call:
    return create_op_call("tensor.aiv_shard", [tensor], _ints(split=split), span=span)


@dsl_entry
def tensor_aic_gather(tensor: Expr, span: Span | None = None, *, split: Any) -> Call:
    return create_op_call("tensor.aic_gather", [tensor], _ints(split=split), span=span)


@dsl_entry
def tpush_to_aiv(tile: Expr, span: Span | None = None, *, split: Any, lane_stride: Any = None,
                 id: Any = None) -> Call:
    return create_op_call("tile.tpush_to_aiv", [tile], _ints(split=split, lane_stride=lane_stride, id=id), span=span)


@dsl_entry
def tpush_to_aic(tile: Expr, span: Span | None = None, *, split: Any, id: Any = None) -> Call:
    return create_op_call("tile.tpush_to_aic", [tile], _ints(split=split, id=id), span=span)


def _pop_kwargs(split: Any, lane_stride: Any, id: Any, shape: Any, dtype: Any) -> dict[str, Any]:
    # `split=None` written out is the default, 0, as when left out: the two print and parse back alike.
    kwargs = _ints(split=0 if split is None else split, lane_stride=lane_stride, id=id)
    if shape is not None:
        kwargs["shape"] = int_list(shape, "shape")
    if dtype is not None:
        kwargs["dtype"] = to_dtype(dtype)
    return kwargs


@dsl_entry
def tpop_from_aic(span: Span | None = None, *, split: Any = 0, lane_stride: Any = None, id: Any = None,
                  shape: Any = None, dtype: DataType | None = None) -> Call:
    return create_op_call("tile.tpop_from_aic", [], _pop_kwargs(split, lane_stride, id, shape, dtype), span=span)


@dsl_entry
def tpop_from_aiv(span: Span | None = None, *, split: Any = 0, id: Any = None, shape: Any = None,
                  dtype: DataType | None = None) -> Call:
    return create_op_call("tile.tpop_from_aiv", [], _pop_kwargs(split, None, id, shape, dtype), span=span)


@dsl_entry
def tfree_to_aic(tile: Expr, span: Span | None = None, *, split: Any = None, id: Any = None) -> Call:
    return create_op_call("system.tfree_to_aic", [tile], _ints(split=split, id=id), span=span)


@dsl_entry
def tfree_to_aiv(tile: Expr, span: Span | None = None, *, split: Any = None, id: Any = None) -> Call:
    return create_op_call("system.tfree_to_aiv", [tile], _ints(split=split, id=id), span=span)


TRANSPORT = {"tpush_to_aiv": tpush_to_aiv, "tpush_to_aic": tpush_to_aic, "tpop_from_aic": tpop_from_aic,
             "tpop_from_aiv": tpop_from_aiv}
TILE = {"get_subblock_idx": get_subblock_idx, "get_block_idx": get_block_idx, "aiv_shard": aiv_shard,
        "aic_gather": aic_gather, **TRANSPORT}
TENSOR = {"aiv_shard": tensor_aiv_shard, "aic_gather": tensor_aic_gather}
# docs/reference/ops.md lists the transport ops among the system ops too; they build the same tile.* calls.
SYSTEM = {"tfree_to_aic": tfree_to_aic, "tfree_to_aiv": tfree_to_aiv, **TRANSPORT}
