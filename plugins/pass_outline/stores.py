"""Which writes the outliner treats as store-target exports (docs/passes/outline_incore_scopes.md, parameters).

Only a tile -> GM store (`tile.store`) gets the `<target>__store` alias: the one kind of write whose result
PyPTO's outliner binds to a separate Var so the kernel never rebinds its own parameter. The registry says
which ops those are: a `gm_transfer` op that writes one of its arguments. Other write ops
(`tensor.assemble`, `tensor.write`, ...) still make their target Out/InOut (directions.py) but keep
their statements as written.
"""

from __future__ import annotations

from collections.abc import Mapping

from pypto_core.analysis.lineage import written_arg_index
from pypto_core.ir import expr as E
from pypto_core.ops.registry import opdef_of


def stored_param(call: E.Expr, params: Mapping[int, E.Var]) -> E.Var | None:
    """The variable among `params` (by id) that a tile -> GM store writes, if any."""
    opdef = opdef_of(call) if isinstance(call, E.Call) and not isinstance(call.op, E.GlobalVar) else None
    if opdef is None or not opdef.traits.gm_transfer:
        return None
    idx = written_arg_index(call)
    target = call.args[idx] if idx is not None else None
    return target if isinstance(target, E.Var) and id(target) in params else None
