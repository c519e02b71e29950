"""Where a call runs in the launch, and task ids: tile.get_subblock_idx / tensor.get_subblock_idx (the AIV
lane), tile.get_block_idx / get_block_num and tensor.get_block_idx / get_block_num (the core-group block),
system.available_aiv_count / available_cluster_count, and system.task_invalid / task_dummy / task_is_valid.

The queries take no operand and read no memory: the indices and counts are Scalar[INDEX], the system counts
Scalar[INT32]. Affinity: tile.get_subblock_idx is VECTOR (the lane index); tile.get_block_num is SHARED by
declaration; the others declare none (the classifier makes them SHARED: no tile operand). The tensor queries
lower to the tile ones in InCore code (their tile forms); the system ones stay. `pl.get_block_idx()` & co. are
the tensor forms.

Task ids (Scalar[TASK_ID]): `system.task_invalid()` is the invalid id (a literal None in the DSL);
`system.task_dummy()` a task that completes at once (PyPTO's parser construct `pl.system.task_dummy(deps=[...])`:
the deps must be task ids, the IR op takes none); `system.task_is_valid(task_id)` -> Scalar[BOOL] whether an id
is not task_invalid's (built by passes; spelled in the DSL so that printed text re-parses).

Semantics: the reference machine runs one core group (cluster) per launch, so a block query answers index 0 of
1 block; the group has `machine.shape.aiv_lanes` AIV lanes (2 on Ascend) and the subblock index is the lane
running the call. task_invalid is -1, task_dummy 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, Type
from pypto_core.ops.build import dsl_entry, require_scalar, to_expr
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, OpDef, OpTraits
from pypto_core.ops.registry import create_op_call
from pypto_core.ops.tile_form import TileForm
from pypto_plugins.ops_tile.common.dsl import registered

family = OpFamily("launch", semantics="pypto_plugins.ops_tile.semantics.launch")

CLUSTERS = 1  # one core group (cluster) per launch on the reference machine


# -- type rules ---------------------------------------------------------------------------------------------
def deduce_index(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.INDEX)


def deduce_int32(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.INT32)


def deduce_task_id(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.TASK_ID)


def deduce_task_is_valid(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    t = require_scalar("system.task_is_valid", args[0], "task_id")
    if t.dtype is not DataType.TASK_ID:
        raise TypeError(f"system.task_is_valid: task_id must be a Scalar[TASK_ID], got {args[0].type}")
    return ScalarType(DataType.BOOL)


# -- ops (builders derived from their signatures) -----------------------------------------------------------
family.op(OpDef("tile.get_subblock_idx", deduce_index, affinity=CoreAffinity.VECTOR, traits=OpTraits(lane_index=True),
                doc="The AIV lane index (0 or 1)."), dsl="tile.get_subblock_idx")
family.op(OpDef("tile.get_block_idx", deduce_index, doc="The core-group (block) index."), dsl="tile.get_block_idx")
family.op(OpDef("tile.get_block_num", deduce_index, affinity=CoreAffinity.SHARED,
                doc="The number of core-group blocks of the launch (1 on the reference machine)."),
          dsl="tile.get_block_num")
family.op(OpDef("tensor.get_block_idx", deduce_index, doc="This block's index in the launch (tile.get_block_idx)."),
          dsl="tensor.get_block_idx")
family.op(OpDef("tensor.get_block_num", deduce_index, doc="The number of blocks of the launch (tile.get_block_num)."),
          dsl="tensor.get_block_num")
family.op(OpDef("tensor.get_subblock_idx", deduce_index,
                doc="The AIV lane (subblock) index, 0 or 1 (tile.get_subblock_idx)."), dsl="tensor.get_subblock_idx")
family.op(OpDef("system.available_aiv_count", deduce_int32,
                doc="The vector cores available to the launch: AIV lanes per cluster x clusters."),
          dsl="system.available_aiv_count")
family.op(OpDef("system.available_cluster_count", deduce_int32,
                doc="The clusters (one AIC with its AIV lanes) available to the launch."),
          dsl="system.available_cluster_count")
family.op(OpDef("system.task_invalid", deduce_task_id, doc="The invalid task id (a literal None in the DSL)."),
          dsl="system.task_invalid")
family.op(OpDef("system.task_dummy", deduce_task_id,
                doc="A task id that completes immediately (a dependency join)."))
family.op(OpDef("system.task_is_valid", deduce_task_is_valid, args=(ArgSpec("task_id"),),
                doc="Whether task_id is a real task (not system.task_invalid's id)."), dsl="system.task_is_valid")
for _name in ("get_block_idx", "get_block_num", "get_subblock_idx"):
    family.implement("tile_form", f"tensor.{_name}", TileForm(op=f"tile.{_name}"))
    family.dsl_function(_name, registered(f"tensor.{_name}"))


# -- DSL ----------------------------------------------------------------------------------------------------
@family.dsl("system.task_dummy")
@dsl_entry
def task_dummy(span: Span | None = None, *, deps: Any = None) -> Call:
    """deps= must hold task ids; the IR op takes none (the machine has no task graph)."""
    for dep in deps or ():
        e = to_expr(dep, span)
        if not (isinstance(e.type, ScalarType) and e.type.dtype is DataType.TASK_ID):
            raise TypeError(f"deps= must hold task ids (Scalar[TASK_ID]), got {e.type}")
    return create_op_call("system.task_dummy", [], span=span)
