"""Compile statements into closures `run(frame) -> signal` (None, BREAK, CONTINUE or a Return).

A YieldStmt writes straight into the slots of the construct it ends: the iter_args of the enclosing
loop (so the next iteration sees them) or the return_vars of the enclosing if. Loop return_vars
take the iter_args' values when the loop ends, also by `break` (the yield of a broken iteration
never ran). Scopes run in place; a split_aiv region forks its two lanes (see Machine.fork_region), and
so does a CORE_GROUP scope holding one, for its whole body (the split_aiv kernel it becomes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pypto_core.interp.errors import MachineError
from pypto_core.interp.exprs import compile_expr, compile_handle
from pypto_core.interp.frame import BREAK, CONTINUE, Return
from pypto_core.interp.kernel_results import owned
from pypto_core.interp.loop_code import compile_counted_loop, compile_while_loop
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CORE_KERNEL_TYPES, SCOPE_HOST_TYPES, FunctionType
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import ScalarType, TileType
from pypto_core.ir.utils import collect_def_vars, free_vars_in_order, has_split_aiv_region
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.registry import opdef_of

if TYPE_CHECKING:
    from pypto_core.interp.code import FunctionCode

Runner = Callable[[list[Any]], Any]
# Where a YieldStmt writes: slots of the enclosing construct, or None at function level (a return).
YieldTarget = tuple[int, ...] | None


def compile_stmt(code: FunctionCode, stmt: S.Stmt, target: YieldTarget) -> Runner:
    method = _COMPILERS.get(type(stmt))
    if method is None:
        if isinstance(stmt, S.ScopeStmt):
            return compile_stmt(code, stmt.body, target)  # every other scope kind runs in place
        raise MachineError(f"the reference machine cannot execute a {type(stmt).__name__}", stmt.span)
    return method(code, stmt, target)


def _seq(code: FunctionCode, stmt: S.SeqStmts, target: YieldTarget) -> Runner:
    return _sequence([_compile_batch(code, batch, target) if isinstance(batch, list)
                      else compile_stmt(code, batch, target) for batch in _core_group_batches(code, stmt.stmts)])


def _sequence(runners: list[Runner]) -> Runner:
    """The runners one after the other, until one gives a signal."""
    if len(runners) == 1:
        return runners[0]

    def run(fr: list[Any]) -> Any:
        for r in runners:
            signal = r(fr)
            if signal is not None:
                return signal
        return None

    return run


def _views_its_operand(value: Any) -> bool:
    """A window or relabel view's result is its operand's bytes read another way (docs/memory_planning.md,
    execution by address): nothing is written, so the bytes outside a narrowed valid region keep the operand's
    data. (A "view" such as tile.assemble may write its source into the target's bytes: it is written.)"""
    opdef = opdef_of(value) if isinstance(value, E.Call) else None
    return opdef is not None and opdef.traits.buffer_view in ("window", "relabel")


def _assign(code: FunctionCode, stmt: S.AssignStmt, target: YieldTarget) -> Runner:
    value, slot = compile_handle(code, stmt.value), code.slots(stmt.var)
    if code.placement(stmt.var) is not None and not _views_its_operand(stmt.value):
        store = code.store(slot)
        return lambda fr: store(fr, value(fr))

    def run(fr: list[Any]) -> None:
        fr[slot] = value(fr)

    return run


def _eval(code: FunctionCode, stmt: S.EvalStmt, target: YieldTarget) -> Runner:
    value = compile_expr(code, stmt.expr)
    written = _written_tile(stmt.expr)
    if written is not None:
        # `pl.write(t, ...)` as a statement: the op writes t's buffer (a Write / ReadWrite tile operand whose
        # type the result has), so t holds the result afterwards. Tiles are values here, so rebind it.
        store = code.store(code.slots(written))

        def write_back(fr: list[Any]) -> None:
            store(fr, value(fr))

        return write_back

    def run(fr: list[Any]) -> None:
        value(fr)

    return run


def _written_tile(expr: E.Expr) -> E.Var | None:
    """The tile variable a statement-level call writes in place (asked of the op registry), if any."""
    from pypto_core.ops.opdef import Effect
    from pypto_core.ops.registry import opdef_of

    opdef = opdef_of(expr) if isinstance(expr, E.Call) else None
    if opdef is None or not isinstance(expr.type, TileType):
        return None
    for i, arg in enumerate(expr.args):
        if isinstance(arg, E.Var) and isinstance(arg.type, TileType) and structural_equal(arg.type, expr.type) \
                and opdef.arg_effect(i, expr.kwargs) in (Effect.WRITE, Effect.READ_WRITE):
            return arg
    return None


def _return(code: FunctionCode, stmt: S.ReturnStmt, target: YieldTarget) -> Runner:
    values = [compile_expr(code, v) for v in stmt.value]
    return lambda fr: Return(tuple(v(fr) for v in values))


def _yield(code: FunctionCode, stmt: S.YieldStmt, target: YieldTarget) -> Runner:
    if target is None:  # a yield directly in a function body is its return (docs/dsl.md, the printed form)
        values = [compile_expr(code, v) for v in stmt.value]
        return lambda fr: Return(tuple(v(fr) for v in values))
    values = [compile_handle(code, v) for v in stmt.value]  # a yield passes the values on (a released tile too)
    if len(values) != len(target):
        raise MachineError(f"yield of {len(values)} value(s) in a construct that carries {len(target)}",
                           stmt.span)
    stores = [code.store(slot) for slot in target]

    def run(fr: list[Any]) -> None:
        new = [v(fr) for v in values]  # all first: a yield may permute the carried values
        for store, value in zip(stores, new):
            store(fr, value)

    return run


def _if(code: FunctionCode, stmt: S.IfStmt, target: YieldTarget) -> Runner:
    cond = compile_expr(code, stmt.condition)
    # An if without return vars passes its branches' yields on to the loop around it (the phi-yield form);
    # in a function body there is none, and its (empty) yields end the branch, not the function (only a
    # yield directly in the function body is its return).
    inner = tuple(code.slots(v) for v in stmt.return_vars) if stmt.return_vars else (target if target is not None else ())
    then = compile_stmt(code, stmt.then_body, inner)
    other = compile_stmt(code, stmt.else_body, inner) if stmt.else_body is not None else None

    def run(fr: list[Any]) -> Any:
        if cond(fr):
            return then(fr)
        if other is not None:
            return other(fr)
        return None

    return run


def _carries(code: FunctionCode, iter_args: Sequence[E.IterArg], return_vars: Sequence[E.Var], span: Any
             ) -> tuple[list[Runner], tuple[int, ...], tuple[int, ...]]:
    if return_vars and len(return_vars) != len(iter_args):
        raise MachineError(f"loop has {len(iter_args)} iter_args but {len(return_vars)} return vars", span)
    inits = [compile_expr(code, a.initValue) for a in iter_args]
    return inits, tuple(code.slots(a) for a in iter_args), tuple(code.slots(v) for v in return_vars)


def _carry_stores(code: FunctionCode, iter_slots: tuple[int, ...], rv_slots: tuple[int, ...]
                  ) -> tuple[list[Any], Runner | None]:
    """The stores of the iter_args, and the copy of the iter_args into the return vars when the loop ends
    (None when every slot is a plain value: the copy is then done inline)."""
    stores = [code.store(s) for s in iter_slots]
    placed = [code.placement(code.slots.vars[s]) for s in (*iter_slots, *rv_slots)]
    if not any(p is not None for p in placed):
        return stores, None
    reads = [compile_expr(code, code.slots.vars[s]) for s in iter_slots]
    rv_stores = [code.store(s) for s in rv_slots]

    def finish(fr: list[Any]) -> None:
        values = [r(fr) for r in reads]
        for store, value in zip(rv_stores, values):
            store(fr, value)

    return stores, finish


def _for(code: FunctionCode, stmt: S.ForStmt, target: YieldTarget) -> Runner:
    start, stop, step = (compile_expr(code, e) for e in (stmt.start, stmt.stop, stmt.step))
    loop_slot = code.slots(stmt.loop_var)
    loop_type = stmt.loop_var.type
    to = code.scalar_type(loop_type.dtype if isinstance(loop_type, ScalarType) else DataType.INDEX)
    iter_slots, setup, end = _loop_carries(code, stmt)
    span = stmt.span
    machine = code.machine

    def bounds(fr: list[Any]) -> range:
        b, e, s = int(start(fr)), int(stop(fr)), int(step(fr))
        if s == 0:
            raise MachineError("for loop with step 0", span)
        trips = range(b, e, s)
        machine.budget.spend(len(trips), span)
        return trips

    items, other, closures = _body_items(code, stmt.body, iter_slots)
    generated = compile_counted_loop(code, items, iter_slots, other, setup, bounds, loop_slot, to, end)
    if generated is not None:
        return generated
    body = closures()

    def run(fr: list[Any]) -> Any:
        setup(fr)
        for i in bounds(fr):
            fr[loop_slot] = to(i)
            signal = body(fr)
            if signal is not None:
                if signal is BREAK:
                    break
                if signal is CONTINUE:
                    continue
                return signal
        end(fr)
        return None

    return run


def _while(code: FunctionCode, stmt: S.WhileStmt, target: YieldTarget) -> Runner:
    cond = compile_expr(code, stmt.condition)
    iter_slots, setup, end = _loop_carries(code, stmt)
    inner = iter_slots if stmt.iter_args else target
    span = stmt.span
    budget_of = code.machine

    items, other, closures = _body_items(code, stmt.body, inner)
    generated = compile_while_loop(code, items, inner, other, setup, cond, span, end)
    if generated is not None:
        return generated
    body = closures()

    def run(fr: list[Any]) -> Any:
        setup(fr)
        budget = budget_of.budget
        while cond(fr):
            budget.spend(1, span)
            signal = body(fr)
            if signal is not None:
                if signal is BREAK:
                    break
                if signal is CONTINUE:
                    continue
                return signal
        end(fr)
        return None

    return run


def _body_items(code: FunctionCode, body: S.Stmt, target: YieldTarget
                ) -> tuple[list[Any], Callable[[Any], Runner], Callable[[], Runner]]:
    """A loop body's statements (core-group batches as lists), the compiler of one of them into its closure
    (for the generated loop), and the body as its statements' closures run one after the other (when the loop is
    not generated), each statement compiled once either way."""
    items = _core_group_batches(code, body.stmts) if isinstance(body, S.SeqStmts) else [body]
    compiled: dict[int, Runner] = {}

    def other(item: Any) -> Runner:
        run = compiled[id(item)] = (_compile_batch(code, item, target) if isinstance(item, list)
                                    else compile_stmt(code, item, target))
        return run

    return items, other, lambda: _sequence([compiled.get(id(item)) or other(item) for item in items])


def _loop_carries(code: FunctionCode, stmt: S.ForStmt | S.WhileStmt) -> tuple[tuple[int, ...], Runner, Runner]:
    """The iter_args' slots, `setup(fr)` binding their inits, and `end(fr)` handing them to the return vars."""
    inits, iter_slots, rv_slots = _carries(code, stmt.iter_args, stmt.return_vars, stmt.span)
    stores, finish = _carry_stores(code, iter_slots, rv_slots)

    def setup(fr: list[Any]) -> None:
        values = [f(fr) for f in inits]
        for store, value in zip(stores, values):
            store(fr, value)

    def end(fr: list[Any]) -> None:
        if finish is not None:
            finish(fr)
            return
        for rv, it in zip(rv_slots, iter_slots):
            fr[rv] = fr[it]

    return iter_slots, setup, end


def _break(code: FunctionCode, stmt: S.BreakStmt, target: YieldTarget) -> Runner:
    return lambda fr: BREAK


def _continue(code: FunctionCode, stmt: S.ContinueStmt, target: YieldTarget) -> Runner:
    return lambda fr: CONTINUE


def _split_region(code: FunctionCode, stmt: S.SplitAivScopeStmt, target: YieldTarget) -> Runner:
    body = compile_stmt(code, stmt.body, target)
    machine, lanes = code.machine, stmt.count
    return lambda fr: machine.fork_region(fr, body, lanes, "split_aiv region")


def _incore_scope(code: FunctionCode, stmt: S.InCoreScopeStmt, target: YieldTarget) -> Runner:
    """A CORE_GROUP scope holding a pl.split_aiv region becomes a split_aiv kernel, which both AIV lanes run
    whole (docs/passes/outline_incore_scopes.md, attributes): so it runs here, before outlining, on the lanes
    too, and what the lanes do outside the regions is race-checked on the program as written (otherwise
    overlapping stores of a loop outside the region would race only once the scope was outlined)."""
    body = compile_stmt(code, stmt.body, target)
    if has_split_aiv_region(stmt.body):
        body = _on_lanes(code, body)
    if code.func.func_type not in SCOPE_HOST_TYPES:
        return body
    return _owning_scope_results(code, stmt, body)


def _on_lanes(code: FunctionCode, body: Runner) -> Runner:
    machine = code.machine
    return lambda fr: machine.fork_region(fr, body, machine.shape.aiv_lanes, "core-group scope with regions")


def _owning_scope_results(code: FunctionCode, stmt: S.InCoreScopeStmt, body: Runner) -> Runner:
    """The scope's values leave it as the outlined kernel's results: a view among them is copied unless it
    is one of the arrays the scope was given (kernel_results.py)."""
    defined = collect_def_vars(stmt.body)
    defined_ids = {id(v) for v in defined}
    def_slots = sorted({code.slots(v) for v in defined})
    read_slots = sorted({code.slots(v) for v in free_vars_in_order([stmt.body]) if id(v) not in defined_ids})

    def run(fr: list[Any]) -> Any:
        given = [fr[slot] for slot in read_slots]
        signal = body(fr)
        for slot in def_slots:
            fr[slot] = owned(fr[slot], given)
        return signal

    return run


# -- core-group batches ------------------------------------------------------------------------
def _core_call(code: FunctionCode, stmt: S.Stmt) -> E.Call | None:
    """The call of an AIC / AIV function made by this statement, if that is all it does."""
    expr = stmt.value if isinstance(stmt, S.AssignStmt) else stmt.expr if isinstance(stmt, S.EvalStmt) else None
    if not isinstance(expr, E.Call) or not isinstance(expr.op, E.GlobalVar):
        return None
    callee = code.machine.program.get_function(expr.op.name)
    if callee is None or callee.func_type not in CORE_KERNEL_TYPES:
        return None
    return expr


class _CrossCore(IRVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_call(self, call: E.Call) -> None:
        opdef = opdef_of(call) if type(call.op) is E.Op else None
        if opdef is not None and opdef.cross_core_role is not None:
            self.found = True
            return
        super().visit_call(call)


def _talks_to_the_other_core(func: Any) -> bool:
    """The function pushes, pops or sets up a pipe (the registry's cross_core_role): one half of a pair."""
    finder = _CrossCore()
    finder.visit_stmt(func.body)
    return finder.found


def _core_group_batches(code: FunctionCode, stmts: Sequence[S.Stmt]) -> list[Any]:
    """Consecutive AIC / AIV calls form one batch: they run together as one core group.

    A core group runs one AIC and one AIV function, so a second call of a kind already in the batch, or a
    call reading a result of the batch (two kernels one after the other), starts the next batch. A kernel
    that talks to no other core (no cross-core op: an AIC-only or AIV-only kernel after ExpandMixedKernel)
    is not half of a pair: it runs alone, after the calls before it, as the orchestration orders them
    (its GM accesses are not concurrent with its neighbours').
    """
    out: list[Any] = []
    kinds: set[FunctionType] = set()
    results: set[int] = set()
    alone = True
    for stmt in stmts:
        call = _core_call(code, stmt)
        if call is None:
            out.append(stmt)
            alone = True
            continue
        callee = code.machine.program.get_function(call.op.name)
        kind = callee.func_type  # type: ignore[union-attr]
        paired = _talks_to_the_other_core(callee)
        joins = out and isinstance(out[-1], list) and not alone and paired and kind not in kinds \
            and not _reads(call, results)
        alone = not paired
        if not joins:
            out.append([])
            kinds, results = set(), set()
        out[-1].append(stmt)
        kinds.add(kind)
        if isinstance(stmt, S.AssignStmt):
            results.add(id(stmt.var))
    return out


def _reads(call: E.Call, var_ids: set[int]) -> bool:
    return any(id(v) in var_ids for v in free_vars_in_order(call.args))


def _compile_batch(code: FunctionCode, batch: list[S.Stmt], target: YieldTarget) -> Runner:
    machine = code.machine
    calls = []
    for stmt in batch:
        call = _core_call(code, stmt)
        assert call is not None
        callee = machine.program_function(call.op.name, call.span)
        arg_fns = [compile_expr(code, a) for a in call.args]
        slot = code.store(code.slots(stmt.var)) if isinstance(stmt, S.AssignStmt) else None
        calls.append((callee, arg_fns, slot, call))

    def run(fr: list[Any]) -> None:
        launches = [(callee, [f(fr) for f in arg_fns], call) for callee, arg_fns, _, call in calls]
        results = machine.launch_group(fr[0], launches)
        for (_, _, store, _), value in zip(calls, results):
            if store is not None:
                store(fr, value)

    return run


_COMPILERS: dict[type, Callable[..., Runner]] = {
    S.SeqStmts: _seq, S.AssignStmt: _assign, S.EvalStmt: _eval, S.ReturnStmt: _return, S.YieldStmt: _yield,
    S.IfStmt: _if, S.ForStmt: _for, S.WhileStmt: _while, S.BreakStmt: _break, S.ContinueStmt: _continue,
    S.SplitAivScopeStmt: _split_region, S.InCoreScopeStmt: _incore_scope,
}
