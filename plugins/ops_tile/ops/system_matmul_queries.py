"""Core and launch queries (OPS.md "Core and launch queries"): block / subblock position and core counts.

`tile.get_block_num` and `tensor.get_block_idx` / `get_block_num` / `get_subblock_idx` return Scalar[INDEX];
`system.available_aiv_count` / `available_cluster_count` return Scalar[INT32]. None reads memory. Affinity:
tile.get_block_num is SHARED by declaration (OPS.md); the tensor and system queries declare none (the
classifier makes them SHARED: no tile operand). The tensor forms lower to the tile forms inside InCore code
(lowering/system_matmul.py); system.* stays as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import ScalarType, Type
from pypto_core.ops.opdef import CoreAffinity, OpDef


def deduce_index(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.INDEX)


def deduce_int32(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    return ScalarType(DataType.INT32)


OPDEFS = [
    OpDef("tile.get_block_num", deduce_index, affinity=CoreAffinity.SHARED,
          doc="The number of core-group blocks of the launch (1 on the reference machine)."),
    OpDef("tensor.get_block_idx", deduce_index, doc="This block's index in the launch (tile.get_block_idx)."),
    OpDef("tensor.get_block_num", deduce_index, doc="The number of blocks of the launch (tile.get_block_num)."),
    OpDef("tensor.get_subblock_idx", deduce_index,
          doc="The AIV lane (subblock) index, 0 or 1 (tile.get_subblock_idx)."),
    OpDef("system.available_aiv_count", deduce_int32,
          doc="The vector cores available to the launch: AIV lanes per cluster x clusters."),
    OpDef("system.available_cluster_count", deduce_int32,
          doc="The clusters (one AIC with its AIV lanes) available to the launch."),
]
