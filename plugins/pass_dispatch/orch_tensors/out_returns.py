"""The Out -> return mapping of an InCore function (docs/passes/optimize_orch_tensors.md, rules): which return
index carries what was written into each Out parameter."""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ParamDirection
from pypto_core.ir.utils import flatten_to_stmts
from pypto_plugins.pass_dispatch.orch_tensors.facts import window_write


def top_return(func: F.Function) -> S.ReturnStmt | None:
    top = flatten_to_stmts(func.body)
    return top[-1] if top and isinstance(top[-1], S.ReturnStmt) else None


def out_returns(func: F.Function) -> dict[int, int]:
    """Out parameter index -> return index, for each return value that is a Var defined at the top level by a
    window write into an Out parameter (tile.store), or the return var of a top-level loop whose iter_arg starts
    at an Out parameter, or the Out parameter itself after a top-level write into it (the form pypto's
    ConvertTensorToTileOps returns, docs/passes/optimize_orch_tensors.md)."""
    ret = top_return(func)
    if ret is None:
        return {}
    outs = {id(p): i for i, (p, d) in enumerate(func.param_items()) if d is ParamDirection.Out}
    written: dict[int, int] = {}  # id(var) -> Out parameter index
    for stmt in flatten_to_stmts(func.body):
        if isinstance(stmt, S.AssignStmt):
            write = window_write(stmt.value)
            if write is not None and id(write.target) in outs:
                written[id(stmt.var)] = outs[id(write.target)]
        elif isinstance(stmt, S.ForStmt):
            for arg, rv in zip(stmt.iter_args, stmt.return_vars):
                if id(arg.initValue) in outs:
                    written[id(rv)] = outs[id(arg.initValue)]
    stored_params = {id(func.params[i]): i for i in written.values()}
    mapping: dict[int, int] = {}
    for r, value in enumerate(ret.value):
        param = written.get(id(value), stored_params.get(id(value))) if isinstance(value, E.Var) else None
        if param is not None and param not in mapping:
            mapping[param] = r
    return mapping


def final_store(func: F.Function, po: int, r: int) -> S.AssignStmt | None:
    """The top-level window write whose result return `r` carries for Out parameter `po`: the statement defining
    the returned variable, or, when the parameter itself is returned, the last write into it."""
    ret = top_return(func)
    if ret is None:
        return None
    top = [s for s in flatten_to_stmts(func.body) if isinstance(s, S.AssignStmt)]
    value = ret.value[r]
    if value is func.params[po]:
        writes = [s for s in top if (w := window_write(s.value)) is not None and w.target is value]
        return writes[-1] if writes else None
    return next((s for s in top if s.var is value), None)
