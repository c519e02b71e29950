"""OpDefs of PyPTO ops added for issue 14 (system_matmul family); see OPS.md for each op's rules.

Core and launch queries: system_matmul_queries.py; barriers, flags and task ids: system_matmul_sync.py;
MX matmul: system_matmul_mx.py. The tile matmuls' kwargs (out_dtype / a_trans / b_trans) are in
tile_matmul.py, the other system ops in system.py.
"""

from __future__ import annotations

from pypto_core.ops.opdef import OpDef
from pypto_plugins.ops_tile.ops import system_matmul_mx, system_matmul_queries, system_matmul_sync

OPDEFS: list[OpDef] = [*system_matmul_queries.OPDEFS, *system_matmul_sync.OPDEFS, *system_matmul_mx.OPDEFS]
