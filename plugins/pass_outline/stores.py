"""Which writes the outliner treats as store-target exports (docs/passes/outline_incore_scopes.md, parameters).

Only a `tile.store` result gets the `<target>__store` alias: it is the one write op whose result
PyPTO's outliner binds to a separate Var so the kernel never rebinds its own parameter. Other write ops
(`tensor.assemble`, `tensor.write`, ...) still make their target Out/InOut (directions.py) but keep
their statements as written.
"""

from __future__ import annotations

from collections.abc import Mapping

from pypto_core.ir import expr as E
from pypto_core.ops.lineage import written_arg_index

STORE_OP = "tile.store"


def stored_param(call: E.Expr, params: Mapping[int, E.Var]) -> E.Var | None:
    """The variable among `params` (by id) that a `tile.store` call writes, if any."""
    if not isinstance(call, E.Call) or isinstance(call.op, E.GlobalVar) or call.op.name != STORE_OP:
        return None
    idx = written_arg_index(call)
    target = call.args[idx] if idx is not None else None
    return target if isinstance(target, E.Var) and id(target) in params else None
