"""The op families of the ops_tile plugin: one module per family, each holding, for each of its ops, the
OpDef, the numpy semantics, the interface implementations (tile form, 2-D form) and the DSL builder
(docs/plugins.md, an op). Helpers several families share are in ../common/.
"""

from __future__ import annotations

from pypto_core.ops.family import OpFamily
from pypto_plugins.ops_tile.families import (
    assemble,
    binary,
    broadcasts,
    cast_compare_select,
    creation,
    fused,
    gather,
    generators,
    gm_gather,
    matmul,
    matmul_mx,
    memory,
    padding,
    partial,
    reductions,
    scatter,
    sort,
    transpose,
    unary,
    views,
)

FAMILIES: tuple[OpFamily, ...] = tuple(m.family for m in (
    binary, unary, cast_compare_select, partial, fused, reductions, broadcasts, matmul, matmul_mx,
    memory, views, transpose, assemble, padding, creation, generators, gather, gm_gather, scatter, sort,
))
