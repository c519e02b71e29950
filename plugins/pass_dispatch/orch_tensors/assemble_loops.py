"""Pattern 3 of OptimizeOrchTensors (docs/passes/optimize_orch_tensors.md): an InCore loop that assembles tiles
into an accumulator tile which is then stored whole into an Out parameter stores each tile straight into the
Out parameter instead (the accumulator and the final store go).

pypto rewrites only an accumulator that starts as a fresh buffer (tile.create) nothing else reads, and a final
store at offset zero: a window the loop does not write was undefined before and may stay so after."""

from __future__ import annotations

from collections import Counter

from pypto_core.analysis.walk import vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, ParamDirection
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import find_yield_stmt, flatten_to_stmts, make_body, substitute_stmt
from pypto_core.ops.registry import create_op_call
from pypto_plugins.pass_dispatch.orch_tensors.facts import all_zero, is_fresh_buffer, window_write
from pypto_plugins.pass_dispatch.orch_tensors.out_returns import top_return


def _store_loop(func: F.Function, top: list[S.Stmt], k: int, reads: Counter) -> list[S.Stmt] | None:
    """The top-level statements with loop `top[k]` rewritten, or None when it is no assemble loop."""
    loop = top[k]
    if not isinstance(loop, S.ForStmt) or len(loop.iter_args) != 1:
        return None
    carried, result = loop.iter_args[0], loop.return_vars[0]
    outs = {id(p) for p, d in func.param_items() if d is ParamDirection.Out}
    ret = top_return(func)
    final = next((s for s in top[k + 1:] if isinstance(s, S.AssignStmt) and (w := window_write(s.value)) is not None
                  and w.source is result and id(w.target) in outs), None)
    store = window_write(final.value) if final is not None else None
    if final is None or store is None or ret is None:
        return None
    # The store's result is returned (read there only), or the Out parameter is, the store its last write.
    returned = final.var if reads[id(final.var)] == 1 and any(v is final.var for v in ret.value) else \
        store.target if (reads[id(final.var)] == 0 and reads[id(store.target)] == 2
                         and any(v is store.target for v in ret.value)) else None
    if returned is None:
        return None
    body = flatten_to_stmts(loop.body)
    yielded = find_yield_stmt(loop.body)
    assembled = next((s for s in body if isinstance(s, S.AssignStmt) and yielded is not None
                      and yielded.value and s.var is yielded.value[0]), None)
    write = window_write(assembled.value) if assembled is not None else None
    if (write is None or write.target is not carried or not isinstance(write.target.type, TileType)
            or not all_zero(store.offsets) or Counter(id(v) for v in vars_read(loop.body))[id(carried)] != 1):
        return None
    init = next((s for s in top[:k] if isinstance(s, S.AssignStmt) and s.var is carried.initValue), None)
    if init is None or not is_fresh_buffer(init.value) or reads[id(init.var)] != 1:
        return None
    target = store.target
    new_carried = E.IterArg(carried.name_hint, target.type, target, carried.span)
    into_out = create_op_call(store.call.op.name, [write.source, write.offsets, new_carried],  # the final store's op
                              span=write.call.span)
    stored = E.Var(assembled.var.name_hint, into_out.type, assembled.var.span)
    new_body = [s if s is not assembled else S.AssignStmt(stored, into_out, s.span) for s in body]
    new_body = [substitute_stmt(s, {carried: new_carried, assembled.var: stored}) for s in new_body]
    new_result = E.Var(result.name_hint, target.type, result.span)
    new_loop = loop.with_fields(iter_args=(new_carried,), return_vars=(new_result,),
                                body=make_body(new_body, loop.body.span))
    out: list[S.Stmt] = []
    for s in top:
        if s is init or s is final:
            continue
        if s is loop:
            out.append(new_loop)
        elif s is ret:
            out.append(ret.with_fields(value=tuple(new_result if v is returned else v for v in ret.value)))
        else:
            out.append(s)
    return out


def assemble_loops_to_stores(program: F.Program) -> F.Program:
    functions = list(program.functions.values())
    changed = False
    for i, func in enumerate(functions):
        if func.func_type is not FunctionType.InCore or ParamDirection.Out not in func.param_directions:
            continue
        k = 0
        while k < len(top := flatten_to_stmts(func.body)):
            rewritten = _store_loop(func, top, k, Counter(id(v) for v in vars_read(func.body)))
            if rewritten is not None:
                func = func.with_fields(body=make_body(rewritten, func.body.span))
                changed = True
            k += 1
        functions[i] = func
    return F.Program(functions, program.name, program.span) if changed else program
