"""The canonical split-K pre-pass (docs/passes/auto_tile_matmul_l0.md, user K loops): a K loop the user wrote
around window loads, whose accumulator does not fit L0C, becomes one copy of that loop per output tile.

The form it recognises, in one block (the registry says which calls are matmuls, loads and stores):

    acc0 = <fresh Acc tile [M, N]>                       # read once: the loop's init
    for ko, (acc,) in pl.pipeline(..., init_values=(acc0,)):
        <scalar assignments>
        lhs = <Mat window load [M, K']>     rhs = <Mat window load [K', N]>
        if ...: c1 = matmul(lhs, rhs)  else: c2 = matmul_acc(acc, lhs, rhs)     (either order)
        r = pl.yield_(<the if's value>)
    out2 = store(r, [r0, q0], out)                       # right after the loop, r read only there

When the chooser (output-stationary forced) splits `[M, N]`, the create, loop and store become, per tile
`(mi, ni)` N-major, a `[m, n]` Acc create, the loop with both loads narrowed to the tile's rows / columns, and
a store chained `out -> out_t0 -> out_t1 ...`; every copied variable's name gets `_mn<s>` (the loop variable
keeps its own). The ordinary rewrite then K-tiles the copies' matmuls where they still do not fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.memory import static_dims
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ForKind, MemorySpace
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.types import ScalarType, TileType
from pypto_core.ir.utils import flatten_to_stmts, make_body, substitute_expr, substitute_stmt
from pypto_core.ops.registry import create_op_call, op_registry
from pypto_plugins.pass_matmul.interfaces import L0_MATMUL, L0_OPERAND_LOAD, L0_RESULT_STORE
from pypto_plugins.pass_matmul.l0_rewrite.build import Emitter, plus
from pypto_plugins.pass_matmul.l0_rewrite.candidate import MatmulSite, choose, matmul_site, operands_in_place
from pypto_plugins.pass_matmul.l0_rewrite.grid import StorePlacement


@dataclass(frozen=True)
class UserKLoop:
    create: S.AssignStmt
    loop: S.ForStmt
    store: S.AssignStmt
    lhs_load: S.AssignStmt
    rhs_load: S.AssignStmt
    site: MatmulSite  # the first block's matmul, for the chooser


def _call(stmt: S.Stmt) -> E.Call | None:
    if isinstance(stmt, S.AssignStmt) and isinstance(stmt.value, E.Call) and type(stmt.value.op) is E.Op:
        return stmt.value
    return None


def _form(interface: Any, stmt: S.Stmt) -> Any:
    call = _call(stmt)
    return op_registry().implementation(interface.name, call.op.name) if call is not None else None


def _reads(var: E.Var, node: Any) -> int:
    from pypto_core.analysis.walk import vars_read

    return sum(1 for v in vars_read(node) if v is var)


def _branch_matmul(body: S.Stmt | None) -> S.AssignStmt | None:
    """A branch that is one matmul statement and the yield of its result."""
    stmts = flatten_to_stmts(body)
    if len(stmts) != 2 or not isinstance(stmts[1], S.YieldStmt) or _form(L0_MATMUL, stmts[0]) is None:
        return None
    first = stmts[0]
    assert isinstance(first, S.AssignStmt)
    values = stmts[1].value
    return first if len(values) == 1 and values[0] is first.var else None


def match_user_k_loop(stmts: list[S.Stmt], i: int) -> UserKLoop | None:
    """The user K loop whose `for` is stmts[i], or None."""
    loop = stmts[i]
    if not isinstance(loop, S.ForStmt) or loop.kind is not ForKind.Pipeline or i + 1 >= len(stmts):
        return None
    if len(loop.iter_args) != 1 or len(loop.return_vars) != 1:
        return None
    init = loop.iter_args[0].initValue
    create = next((s for s in stmts[:i] if isinstance(s, S.AssignStmt) and s.var is init), None)
    create_call = _call(create) if create is not None else None
    if create_call is None or not op_registry().get_opdef(create_call.op.name).traits.pure_generator:
        return None
    acc_type = init.type
    if not isinstance(acc_type, TileType) or acc_type.memory_space is not MemorySpace.Acc or \
            static_dims(acc_type) is None or len(acc_type.shape) != 2 or _reads(init, stmts) != 1:
        return None
    store = stmts[i + 1]
    form = _form(L0_RESULT_STORE, store)
    result = loop.return_vars[0]
    if form is None or store.value.args[form.tile] is not result or _reads(result, stmts[i + 1:]) != 1:  # type: ignore[attr-defined]
        return None
    offsets = store.value.args[form.offsets]  # type: ignore[attr-defined]
    if not isinstance(offsets, E.MakeTuple) or len(offsets.elements) != 2:
        return None
    return _match_body(create, loop, store)  # type: ignore[arg-type]


def _match_body(create: S.AssignStmt, loop: S.ForStmt, store: S.AssignStmt) -> UserKLoop | None:
    body = flatten_to_stmts(loop.body)
    loads: list[S.AssignStmt] = []
    branch: S.IfStmt | None = None
    for stmt in body[:-1]:
        if isinstance(stmt, S.AssignStmt) and isinstance(stmt.var.type, ScalarType):
            continue
        if isinstance(stmt, S.AssignStmt) and _form(L0_OPERAND_LOAD, stmt) is not None:
            loads.append(stmt)
            continue
        if isinstance(stmt, S.IfStmt) and branch is None:
            branch = stmt
            continue
        return None
    last = body[-1] if body else None
    if branch is None or len(loads) != 2 or len(branch.return_vars) != 1 or not isinstance(last, S.YieldStmt):
        return None
    if len(last.value) != 1 or last.value[0] is not branch.return_vars[0]:
        return None
    then, other = _branch_matmul(branch.then_body), _branch_matmul(branch.else_body)
    if then is None or other is None:
        return None
    carry = loop.iter_args[0]
    sites = [matmul_site(then), matmul_site(other)]
    if any(s is None or s.bias is not None for s in sites):
        return None
    first = [s for s in sites if s is not None and s.acc is None]
    later = [s for s in sites if s is not None and s.acc is carry]
    if len(first) != 1 or len(later) != 1:
        return None
    site = first[0]
    by_var = {id(s.var): s for s in loads}
    lhs_load, rhs_load = by_var.get(id(site.lhs)), by_var.get(id(site.rhs))
    if lhs_load is None or rhs_load is None or lhs_load is rhs_load:
        return None
    if later[0].lhs is not site.lhs or later[0].rhs is not site.rhs:
        return None
    for load in (lhs_load, rhs_load):
        t = load.var.type
        if not isinstance(t, TileType) or t.memory_space is not MemorySpace.Mat or static_dims(t) is None or \
                len(t.shape) != 2:
            return None
    if static_dims(create.var.type) != [site.dims()[0], site.dims()[1]]:
        return None
    return UserKLoop(create, loop, store, lhs_load, rhs_load, site)


class _Cloner:
    """One copy of the user K loop computing output tile `s` at rows [mi, mi+m), columns [ni, ni+n)."""

    def __init__(self, em: Emitter, found: UserKLoop, s: int, mi: int, ni: int, m: int, n: int) -> None:
        self.em, self.found, self.s = em, found, s
        self.mi, self.ni, self.m, self.n = mi, ni, m, n
        self.mapping: dict[E.Var, E.Expr] = {}

    def name(self, var: E.Var) -> str:
        return self.em.fresh(f"{var.name_hint}_mn{self.s}")

    def emit(self) -> E.Var:
        em, found = self.em, self.found
        acc_type = found.create.var.type
        assert isinstance(acc_type, TileType)
        init = em.create(f"{found.create.var.name_hint}_mn{self.s}", [self.m, self.n], acc_type.dtype,
                         MemorySpace.Acc)
        loop = found.loop
        carry = loop.iter_args[0]
        loop_var = E.Var(loop.loop_var.name_hint, loop.loop_var.type, loop.loop_var.span)
        new_carry = E.IterArg(self.name(carry), init.type, init, carry.span)
        self.mapping[loop.loop_var] = loop_var
        self.mapping[carry] = new_carry
        body = [self.stmt(st) for st in flatten_to_stmts(loop.body)]
        result = loop.return_vars[0]
        new_result = E.Var(self.name(result), init.type, result.span)
        em.stmts.append(S.ForStmt(loop_var, loop.start, loop.stop, loop.step, [new_carry],
                                  S.SeqStmts(body, loop.body.span), [new_result], loop.span, kind=loop.kind,
                                  attrs=dict(loop.attrs)))
        return new_result

    def stmt(self, stmt: S.Stmt) -> S.Stmt:
        if stmt is self.found.lhs_load or stmt is self.found.rhs_load:
            return self.narrowed_load(stmt)  # type: ignore[arg-type]
        if isinstance(stmt, S.IfStmt):
            then = [self.stmt(s) for s in flatten_to_stmts(stmt.then_body)]
            other = [self.stmt(s) for s in flatten_to_stmts(stmt.else_body)]
            value = then[0].var  # type: ignore[attr-defined]
            phi = stmt.return_vars[0]
            new_phi = E.Var(self.name(phi), value.type, phi.span)
            self.mapping[phi] = new_phi
            return S.IfStmt(substitute_expr(stmt.condition, self.mapping), S.SeqStmts(then, stmt.span),
                            S.SeqStmts(other, stmt.span), [new_phi], stmt.span)
        if isinstance(stmt, S.AssignStmt):
            value = substitute_expr(stmt.value, self.mapping)
            if isinstance(value, E.Call) and type(value.op) is E.Op:
                value = _recreate(value, list(value.args))
            var = E.Var(self.name(stmt.var), value.type, stmt.var.span)
            self.mapping[stmt.var] = var
            return S.AssignStmt(var, value, stmt.span)
        return substitute_stmt(stmt, self.mapping)

    def narrowed_load(self, stmt: S.AssignStmt) -> S.AssignStmt:
        call = stmt.value
        assert isinstance(call, E.Call)
        form = op_registry().implementation(L0_OPERAND_LOAD.name, call.op.name)
        args = [substitute_expr(a, self.mapping) for a in call.args]
        offsets = list(args[form.offsets].elements)  # type: ignore[attr-defined]
        shape = [int(d.value) for d in stmt.var.type.shape]  # type: ignore[attr-defined]
        if stmt is self.found.lhs_load:
            offsets[0] = plus(offsets[0], self.mi)
            shape[0] = self.m
        else:
            offsets[1] = plus(offsets[1], self.ni)
            shape[1] = self.n
        args[form.offsets] = E.MakeTuple(offsets)
        args[form.shape] = E.MakeTuple([E.ConstInt(d, offsets[0].type.dtype) for d in shape])  # type: ignore[attr-defined]
        if len(args) > form.valid_shape:
            args[form.valid_shape] = E.MakeTuple([E.ConstInt(d, offsets[0].type.dtype) for d in shape])  # type: ignore[attr-defined]
        value = _recreate(call, args)
        var = E.Var(self.name(stmt.var), value.type, stmt.var.span)
        self.mapping[stmt.var] = var
        return S.AssignStmt(var, value, stmt.span)


def _recreate(call: E.Call, args: list[E.Expr]) -> E.Call:
    """The call on new operands, its type deduced again by the registry (attrs kept)."""
    new = create_op_call(call.op.name, args, kwargs=dict(call.kwargs), span=call.span)
    return new.with_fields(attrs=call.attrs) if call.attrs else new  # type: ignore[return-value]


def _clone_per_tile(found: UserKLoop, choice: Any, fresh: FreshNames) -> tuple[list[S.Stmt], E.Var]:
    em = Emitter(fresh, found.loop.span)
    call = found.store.value
    assert isinstance(call, E.Call)
    form = op_registry().implementation(L0_RESULT_STORE.name, call.op.name)
    target, offsets = call.args[form.target], call.args[form.offsets]
    assert isinstance(offsets, E.MakeTuple)
    place = StorePlacement(call.op.name, (offsets.elements[0], offsets.elements[1]), target,
                           getattr(target, "name_hint", "out"), dict(call.kwargs))
    big_m, big_n, _ = found.site.dims()
    current: E.Expr = target
    s = 0
    for ni in range(0, big_n, choice.n):
        for mi in range(0, big_m, choice.m):
            tile = _Cloner(em, found, s, mi, ni, min(choice.m, big_m - mi), min(choice.n, big_n - ni)).emit()
            current = place.place(em, tile, mi, ni, current)
            s += 1
    return em.stmts, current  # type: ignore[return-value]


class SplitKPrepass:
    """Walks every block of a function, cloning each user K loop whose output needs M/N tiles."""

    def __init__(self, fresh: FreshNames, backend: Any, ctx: Any) -> None:
        self.fresh, self.backend, self.ctx = fresh, backend, ctx
        self.changed = False

    def block(self, body: S.Stmt) -> S.Stmt:
        stmts = flatten_to_stmts(body)
        out: list[S.Stmt] = []
        subst: dict[E.Var, E.Expr] = {}
        skip: set[int] = set()
        for i, original in enumerate(stmts):
            if id(original) in skip:
                continue
            found = match_user_k_loop(stmts, i)
            replaced = self.split(found) if found is not None else None
            if replaced is not None:
                new_stmts, last = replaced
                if subst:  # the copies read what earlier statements of this block were rewritten to
                    new_stmts = [substitute_stmt(s, subst) for s in new_stmts]
                out = [s for s in out if s is not found.create]  # type: ignore[union-attr]
                out.extend(new_stmts)
                subst[found.store.var] = last  # type: ignore[union-attr]
                skip.add(id(found.store))  # type: ignore[union-attr]
                continue
            stmt = substitute_stmt(original, subst) if subst else original
            out.append(self.nested(stmt))
        return make_body(out, body.span) if self.changed else body

    def nested(self, stmt: S.Stmt) -> S.Stmt:
        if isinstance(stmt, (S.ForStmt, S.WhileStmt)):
            return stmt.with_fields(body=self.block(stmt.body))  # type: ignore[return-value]
        if isinstance(stmt, S.IfStmt):
            else_body = self.block(stmt.else_body) if stmt.else_body is not None else None
            return stmt.with_fields(then_body=self.block(stmt.then_body), else_body=else_body)  # type: ignore[return-value]
        if isinstance(stmt, S.ScopeStmt):
            return stmt.with_fields(body=self.block(stmt.body))  # type: ignore[return-value]
        return stmt

    def split(self, found: UserKLoop) -> tuple[list[S.Stmt], E.Var] | None:
        if not operands_in_place(found.site, self.backend):
            return None
        choice = choose(found.site, self.backend, self.ctx, force_output_stationary=True)
        big_m, big_n, _ = found.site.dims()
        if choice is None or (choice.m, choice.n) == (big_m, big_n):
            return None
        self.changed = True
        return _clone_per_tile(found, choice, self.fresh)
