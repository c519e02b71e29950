"""Pattern 1 of OptimizeOrchTensors (docs/passes/optimize_orch_tensors.md): an InCore function writes its
result into an input buffer nobody reads afterwards instead of a fresh `tensor.create` -- its Out parameter
is merged into that In parameter, which becomes InOut.

Two ways to find the pair: a caller's loop carries the result back into the input (the loop case), or the
callee itself stores what it loaded whole from the input and carried through a loop (the standalone case).
pypto merges only where no one can see the input's buffer change (every call site, its own iteration) and
where the callee reads the input before it first writes the output (the page's deviations).
"""

from __future__ import annotations

from pypto_core.analysis.walk import statements, walk
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, ParamDirection
from pypto_core.ir.lanes import runs_on_lanes
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TensorType
from pypto_core.ir.utils import find_yield_stmt, flatten_to_stmts
from pypto_plugins.pass_dispatch.orch_tensors.call_sites import CallSite, Uses, call_sites
from pypto_plugins.pass_dispatch.orch_tensors.facts import is_fresh_buffer, is_full_load_of, window_write
from pypto_plugins.pass_dispatch.orch_tensors.out_returns import final_store, out_returns, top_return
from pypto_plugins.pass_dispatch.orch_tensors.signature import drop_arguments, merged_params

MAX_HOPS = 16  # loop return -> init hops followed from the stored value back to the load (PyPTO's bound)

Merges = dict[int, int]  # Out parameter index -> In parameter index


def _incore(functions: dict[str, F.Function], call: E.Expr) -> F.Function | None:
    if isinstance(call, E.Call) and isinstance(call.op, E.GlobalVar):
        callee = functions.get(call.op.name)
        if callee is not None and callee.func_type is FunctionType.InCore:
            return callee
    return None


def _loop_merges(loop: S.ForStmt | S.WhileStmt, functions: dict[str, F.Function]) -> dict[str, Merges]:
    """The loop case: `v = self.f(.., it, .., fresh)` at the top of the body, whose Out result is yielded
    into the slot of iter_arg `it`, passed for an In parameter."""
    body = flatten_to_stmts(loop.body)
    yielded = find_yield_stmt(loop.body)
    if yielded is None:
        return {}
    fresh = {id(s.var) for s in body if isinstance(s, S.AssignStmt) and is_fresh_buffer(s.value)}
    items = {(id(s.value.tuple), s.value.index): s.var for s in body
             if isinstance(s, S.AssignStmt) and isinstance(s.value, E.TupleGetItemExpr)}
    slot_of = {id(v): i for i, v in enumerate(yielded.value) if isinstance(v, E.Var)}
    found: dict[str, Merges] = {}
    for stmt in body:
        callee = _incore(functions, stmt.value) if isinstance(stmt, S.AssignStmt) else None
        if callee is None:
            continue
        call = stmt.value
        assert isinstance(call, E.Call)
        mapping = out_returns(callee)
        merges: Merges = {}
        for po, r in mapping.items():
            if id(call.args[po]) not in fresh:
                continue
            single = len(mapping) == 1 and len(callee.return_types) == 1
            slot_var = stmt.var if single else items.get((id(stmt.var), r))
            slot = slot_of.get(id(slot_var)) if slot_var is not None else None
            if slot is None:
                continue
            carried = loop.iter_args[slot]
            for m, arg in enumerate(call.args):
                if arg is carried and callee.param_directions[m] is ParamDirection.In and m not in merges.values():
                    merges[po] = m
                    break
        if merges and callee.name not in found:
            found[callee.name] = merges
    return found


def _standalone_merges(callee: F.Function) -> Merges:
    """The standalone case: the returned store into Out `po` stores a value reached from a full load of In
    `pi` through one or more loop return -> init hops; equal static shapes and dtypes; each In used once."""
    ret = top_return(callee)
    if ret is None:
        return {}
    defs = {id(s.var): s for s in flatten_to_stmts(callee.body) if isinstance(s, S.AssignStmt)}
    loops = {id(rv): (loop, i) for loop in statements(callee.body) if isinstance(loop, (S.ForStmt, S.WhileStmt))
             for i, rv in enumerate(loop.return_vars)}
    merges: Merges = {}
    for po, r in out_returns(callee).items():
        stored = final_store(callee, po, r)
        write = window_write(stored.value) if stored is not None else None
        if write is None or write.target is not callee.params[po]:
            continue
        value, hops = write.source, 0
        while id(value) in loops and hops <= MAX_HOPS:
            loop, i = loops[id(value)]
            value, hops = loop.iter_args[i].initValue, hops + 1
        loaded = defs.get(id(value))
        if hops == 0 or hops > MAX_HOPS or loaded is None:
            continue
        for pi, (param, direction) in enumerate(callee.param_items()):
            if (direction is ParamDirection.In and pi not in merges.values() and is_full_load_of(loaded.value, param)
                    and _same_static_type(param, callee.params[po])):
                merges[po] = pi
                break
    return merges


def _same_static_type(a: E.Var, b: E.Var) -> bool:
    return (isinstance(a.type, TensorType) and isinstance(b.type, TensorType) and a.type.dtype == b.type.dtype
            and all(isinstance(d, E.ConstInt) for d in a.type.shape)
            and structural_equal(list(a.type.shape), list(b.type.shape)))


def _reads_before_writes(callee: F.Function, pi: int, po: int) -> bool:
    """Every top-level statement that uses In `pi` comes before the first one that uses Out `po`: merged,
    the input is read whole before anything is written into it. A kernel the AIV lanes run whole at the same
    time has no such order across lanes (one lane may store before the other loads): never merged."""
    if runs_on_lanes(callee):
        return False
    top = flatten_to_stmts(callee.body)
    uses = [{id(n) for n in walk(s) if isinstance(n, E.Var)} for s in top]
    first_write = next((k for k, u in enumerate(uses) if id(callee.params[po]) in u), len(top))
    return all(id(callee.params[pi]) not in u for u in uses[first_write:])


def _safe_at(site: CallSite, merges: Merges, uses: Uses) -> bool:
    return all(uses.is_fresh_buffer(site.call.args[po]) and uses.may_clobber(site.call.args[pi], site)
               for po, pi in merges.items())


def reuse_inputs(program: F.Program) -> F.Program:
    functions = {f.name: f for f in program.functions.values()}
    found: dict[str, Merges] = {}
    for caller in functions.values():
        if caller.func_type is FunctionType.InCore:
            continue
        for loop in statements(caller.body):
            if isinstance(loop, (S.ForStmt, S.WhileStmt)) and loop.iter_args:
                for name, merges in _loop_merges(loop, functions).items():
                    found.setdefault(name, merges)  # the first loop found per callee wins
    for name, callee in functions.items():
        if callee.func_type is FunctionType.InCore and name not in found:
            merges = _standalone_merges(callee)
            if merges:
                found[name] = merges
    sites = call_sites(program)
    uses = {name: Uses(f) for name, f in functions.items()}
    changed = False
    for name, merges in found.items():
        callee = functions[name]
        merges = {po: pi for po, pi in merges.items() if _reads_before_writes(callee, pi, po)}
        here = sites.get(name, [])
        if not merges or not here or not all(_safe_at(s, merges, uses[s.caller.name]) for s in here):
            continue
        new_callee = merged_params(callee, merges)
        functions[name] = new_callee
        for caller in {s.caller.name for s in here}:
            functions[caller] = drop_arguments(functions[caller], new_callee, set(merges))
            uses[caller] = Uses(functions[caller])
        sites = call_sites(F.Program(list(functions.values()), program.name, program.span))
        changed = True
    if not changed:
        return program
    return F.Program(list(functions.values()), program.name, program.span)
