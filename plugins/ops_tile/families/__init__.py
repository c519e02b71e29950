"""The op families of the ops_tile plugin: one module per family, each holding, for each of its ops, the
OpDef, the numpy semantics, the interface implementations (tile form, 2-D form) and the DSL builder
(docs/plugins.md, an op). Helpers several families share are in ../common/.
"""

from __future__ import annotations

from pypto_core.ops.family import OpFamily
from pypto_plugins.ops_tile.families import (
    binary,
    broadcasts,
    cast_compare_select,
    fused,
    partial,
    reductions,
    unary,
)

FAMILIES: tuple[OpFamily, ...] = tuple(m.family for m in (
    binary, unary, cast_compare_select, partial, fused, reductions, broadcasts,
))
