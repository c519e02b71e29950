"""What an InCore scope reads and produces (docs/passes/outline_incore_scopes.md, parameters, scalars).

* Inputs are the scope's live-in set computed flow-sensitively (upward-exposed uses), in first-use order.
* Outputs are the values defined inside and used after the scope, in definition order.
* Before that, PlanScalarOutputHoist: a Scalar live-out whose definition is a top-level assignment of a
  pure scalar expression over live-ins and already hoisted values moves to the caller (only the chain
  it needs); a Scalar live-out that cannot move is a user error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ParamDirection
from pypto_core.ir.types import ScalarType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_plugins.pass_outline.directions import infer_param_directions
from pypto_plugins.pass_outline.stores import stored_param
from pypto_plugins.pass_outline.walk import OrderedWalk, count_uses


@dataclass
class ScopeInfo:
    scope: S.InCoreScopeStmt
    hoisted: list[S.AssignStmt]
    body: list[S.Stmt]  # the scope body without the hoisted statements
    inputs: list[E.Var]
    directions: list[ParamDirection]
    live_outs: list[E.Var]
    written: list[E.Var] = field(default_factory=list)  # inputs with a write direction, in input order


def _is_pure_scalar(e: E.Expr) -> bool:
    """Constants, variables, and Binary/Unary expressions (Cast included) over them; never a Call."""
    if isinstance(e, (E.Var, E.ConstInt, E.ConstFloat, E.ConstBool)):
        return True
    if isinstance(e, E.BinaryExpr):
        return _is_pure_scalar(e.left) and _is_pure_scalar(e.right)
    if isinstance(e, E.UnaryExpr):
        return _is_pure_scalar(e.operand)
    return False


def _vars_in(e: E.Expr) -> list[E.Var]:
    out: list[E.Var] = []
    OrderedWalk(out.append, lambda v: None).expr(e)
    return out


def plan_scalar_hoist(body: list[S.Stmt], live_outs: Sequence[E.Var], defined_inside: set[int],
                      scope: S.InCoreScopeStmt) -> list[S.AssignStmt]:
    """The top-level assignments to move before the call, in body order (docs/passes/outline_incore_scopes.md, scalars)."""
    top: dict[int, S.AssignStmt] = {id(s.var): s for s in body if isinstance(s, S.AssignStmt)}
    chosen: set[int] = set()
    failed: set[int] = set()

    def hoistable(v: E.Var) -> bool:
        return _hoistable(v, top, chosen, failed, defined_inside)

    for v in live_outs:
        if isinstance(v.type, ScalarType) and not hoistable(v):
            from pypto_core.ir.names import split_generated

            raise UserError(
                f"OutlineIncoreScopes: the scalar '{split_generated(v.name_hint)[0]}' ({v.name_hint}) is computed inside the InCore scope and used "
                f"after it, but a kernel cannot return a scalar (only tensors come back from a kernel). "
                f"Fix it in one of three ways: (1) store it into a [1] tensor output of the scope, (2) read it "
                f"back after the scope with pl.tensor.read(t, [0]), or (3) compute it outside the scope.",
                v.span if v.span.is_valid() else scope.span)
    return [s for s in body if isinstance(s, S.AssignStmt) and id(s.var) in chosen]


def _hoistable(v: E.Var, top: dict[int, S.AssignStmt], chosen: set[int], failed: set[int],
               defined_inside: set[int]) -> bool:
    """Whether `v`'s top-level assignment can move before the call with the ones it depends on.

    A module function rather than a recursive closure: a closure that calls itself is a reference
    cycle, left to the garbage collector once per scope."""
    if id(v) in chosen:
        return True
    if id(v) in failed:
        return False
    stmt = top.get(id(v))
    ok = stmt is not None and isinstance(v.type, ScalarType) and _is_pure_scalar(stmt.value)
    if ok:
        chosen.add(id(v))  # provisional: dependencies are checked next
        for dep in _vars_in(stmt.value):  # type: ignore[union-attr]
            if id(dep) in defined_inside and not _hoistable(dep, top, chosen, failed, defined_inside):
                ok = False
                break
        if not ok:
            chosen.discard(id(v))
    if not ok:
        failed.add(id(v))
    return ok


def _defs_inside(stmts: Sequence[S.Stmt]) -> list[E.Var]:
    defs: list[E.Var] = []
    walker = OrderedWalk(lambda v: None, defs.append)
    walker.stmts(stmts)
    return defs


def live_ins(stmts: Sequence[S.Stmt], function_local: set[int]) -> list[E.Var]:
    """Upward-exposed uses of function-local variables, first use first."""
    defined: set[int] = set()
    seen: set[int] = set()
    out: list[E.Var] = []

    def on_use(v: E.Var) -> None:
        if id(v) not in defined and id(v) not in seen and id(v) in function_local:
            seen.add(id(v))
            out.append(v)

    OrderedWalk(on_use, lambda v: defined.add(id(v))).stmts(stmts)
    return out


def with_type_dependencies(inputs: Sequence[E.Var], function_local: set[int]) -> list[E.Var]:
    """Inputs plus the local variables their types mention (a scalar param used as a dim), each
    dependency placed before the input whose type needs it, so parameter types can refer to it."""
    out: list[E.Var] = []
    seen: set[int] = set()
    for v in inputs:
        _add_with_dependencies(v, function_local, seen, out)
    return out


def _add_with_dependencies(v: E.Var, function_local: set[int], seen: set[int], out: list[E.Var]) -> None:
    """(A module function, not a recursive closure: see _hoistable.)"""
    if id(v) in seen:
        return
    seen.add(id(v))
    deps: list[E.Var] = []
    OrderedWalk(deps.append, lambda _: None).type(v.type)
    for d in deps:
        if id(d) in function_local:
            _add_with_dependencies(d, function_local, seen, out)
    out.append(v)


def analyze_scope(scope: S.InCoreScopeStmt, global_uses: Mapping[int, int], function_local: set[int],
                  callee_directions: Mapping[str, Sequence[ParamDirection]],
                  callee_returns: Mapping[str, list[int | None]]) -> ScopeInfo:
    body = flatten_to_stmts(scope.body)
    inside_uses = count_uses(S.SeqStmts(body))
    defs = _defs_inside(body)
    defined_inside = {id(v) for v in defs}
    live_outs = [v for v in defs if global_uses.get(id(v), 0) - inside_uses.get(id(v), 0) > 0]
    hoisted = plan_scalar_hoist(body, live_outs, defined_inside, scope)
    hoisted_ids = {id(s) for s in hoisted}
    rest = [s for s in body if id(s) not in hoisted_ids]
    moved = {id(s.var) for s in hoisted}
    live_outs = [v for v in live_outs if id(v) not in moved]
    inputs = with_type_dependencies(live_ins(rest, function_local), function_local)
    _check_ssa_rebinding(rest, inputs)
    captured = {id(v) for v in inputs}
    # A capture rebound in place (non-SSA `c = store(.., c)`) comes back as the written parameter.
    live_outs = [v for v in live_outs if id(v) not in captured]
    directions = infer_param_directions(S.SeqStmts(rest), inputs, callee_directions, callee_returns)
    written = [v for v, d in zip(inputs, directions) if d is not ParamDirection.In]
    return ScopeInfo(scope, hoisted, rest, inputs, directions, live_outs, written)


def _check_ssa_rebinding(stmts: Sequence[S.Stmt], inputs: Sequence[E.Var]) -> None:
    """A captured variable may only be rebound by a `tile.store` into itself (non-SSA `c = store(.., c)`):
    only that result gets a `<c>__store` alias; any other rebinding needs real SSA construction (docs/passes/outline_incore_scopes.md)."""
    captured = {id(v): v for v in inputs}
    for s in _all_assigns(stmts):
        if id(s.var) in captured and stored_param(s.value, captured) is not s.var:
            raise InternalError(
                f"OutlineIncoreScopes: the captured variable '{s.var.name_hint}' is rebound inside the scope by "
                f"something other than a tile.store into itself ({s.span.to_string()}); the input is not in SSA "
                f"form: run ConvertToSSA (passes.convert_to_ssa()) before OutlineIncoreScopes")


def _all_assigns(stmts: Sequence[S.Stmt]) -> list[S.AssignStmt]:
    out: list[S.AssignStmt] = []
    for s in stmts:
        for x in flatten_to_stmts(s):
            if isinstance(x, S.AssignStmt):
                out.append(x)
            elif isinstance(x, (S.ForStmt, S.WhileStmt)):
                out.extend(_all_assigns([x.body]))
            elif isinstance(x, S.IfStmt):
                out.extend(_all_assigns([x.then_body] + ([x.else_body] if x.else_body else [])))
            elif isinstance(x, S.ScopeStmt):
                out.extend(_all_assigns([x.body]))
    return out
