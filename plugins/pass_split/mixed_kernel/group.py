"""The Group function of an expanded kernel (docs/passes/expand_mixed_kernel.md, what it does, and its example): `F` calls `F_aic` then `F_aiv`
with its own parameters and returns what F returned -- the parameters its results alias (traced through
stores, copies, carries and merges), else the AIV function's results. A Group that already called F calls
the pair in place instead.
"""

from __future__ import annotations

from pypto_core.analysis.lineage import Lineage
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.calls import call_return_type
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.utils import deep_clone, make_body
from pypto_core.ir.visitor import IRMutator, IRVisitor


class _Returns(IRVisitor):
    """Every return statement of a body, in branches too (a `return` may stand inside if branches; docs/passes/expand_mixed_kernel.md)."""

    def __init__(self) -> None:
        self.found: list[S.ReturnStmt] = []

    def visit_return_stmt(self, s: S.ReturnStmt) -> None:
        self.found.append(s)


def returned_params(func: F.Function) -> list[E.Var | None]:
    """For each value F returns, the parameter whose buffer it is at every return of F, else None."""
    finder = _Returns()
    finder.visit_stmt(func.body)
    count = len(func.return_types)
    if not finder.found:
        return [None] * count
    lineage = Lineage().scan(func.body)
    params = {id(p): p for p in func.params}

    def param_of(ret: S.ReturnStmt, i: int) -> E.Var | None:
        value = ret.value[i] if i < len(ret.value) else None
        root = lineage.root(value) if isinstance(value, E.Var) else None
        return params.get(id(root)) if root is not None else None

    out: list[E.Var | None] = []
    for i in range(count):
        found = [param_of(ret, i) for ret in finder.found]
        out.append(found[0] if all(p is found[0] for p in found) else None)
    return out


def _call(callee: F.Function, args: list[E.Expr], span: object) -> E.Call:
    return E.Call(E.GlobalVar(callee.name), args, {}, {},
                  call_return_type(list(callee.params), list(callee.return_types), args), span)


def group_function(func: F.Function, aic: F.Function, aiv: F.Function) -> F.Function:
    params = list(func.params)
    span = func.span
    body: list[S.Stmt] = [S.EvalStmt(_call(aic, params, span), span)]
    roots = returned_params(func)
    aiv_call = _call(aiv, params, span)
    if all(r is not None for r in roots):
        body.append(S.EvalStmt(aiv_call, span))
        returns: list[E.Expr] = list(roots)  # type: ignore[arg-type]
    else:
        result = E.Var(f"{func.name}_result", aiv_call.type, span)
        body.append(S.AssignStmt(result, aiv_call, span))
        if len(roots) == 1:
            returns = [result]
        else:
            returns = [r if r is not None else E.TupleGetItemExpr(result, i, span) for i, r in enumerate(roots)]
    if func.return_types:
        body.append(S.ReturnStmt(returns, span))
    group = F.Function(func.name, func.param_items(), func.return_types, make_body(body, span), span,
                       FunctionType.Group, attrs=func.attrs)
    return deep_clone(group)  # its own parameters, not the InCore function's


class _CallsPair(IRMutator):
    """`x = self.F(args)` in a Group becomes `self.F_aic(args)`; `x = self.F_aiv(args)`."""

    def __init__(self, func: F.Function, aic: F.Function, aiv: F.Function) -> None:
        self.name, self.aic, self.aiv = func.name, aic, aiv
        self.found = False

    def _pair(self, call: E.Expr, span: object) -> tuple[S.EvalStmt, E.Call] | None:
        if not (isinstance(call, E.Call) and isinstance(call.op, E.GlobalVar) and call.op.name == self.name):
            return None
        self.found = True
        args = list(call.args)
        return S.EvalStmt(_call(self.aic, args, span), span), _call(self.aiv, args, span)

    def _paired(self, stmt: S.AssignStmt | S.EvalStmt) -> S.Stmt:
        value = stmt.value if isinstance(stmt, S.AssignStmt) else stmt.expr
        pair = self._pair(value, stmt.span)
        if pair is None:
            return stmt
        aic_stmt, aiv_call = pair
        aiv_stmt = stmt.with_fields(value=aiv_call) if isinstance(stmt, S.AssignStmt) else S.EvalStmt(aiv_call,
                                                                                                      stmt.span)
        return S.SeqStmts([aic_stmt, aiv_stmt], stmt.span)

    # A call may be a whole loop / branch body (a bare statement), not only an item of a SeqStmts.
    def visit_assign_stmt(self, s: S.AssignStmt) -> S.Stmt:
        return self._paired(s)

    def visit_eval_stmt(self, s: S.EvalStmt) -> S.Stmt:
        return self._paired(s)

    def visit_seq_stmts(self, s: S.SeqStmts) -> S.Stmt:
        return make_body([self.visit_stmt(stmt) for stmt in s.stmts], s.span)  # flattens the pairs


def call_pair_in_place(group: F.Function, func: F.Function, aic: F.Function, aiv: F.Function) -> F.Function:
    """A Group that called F calls the pair instead."""
    mutator = _CallsPair(func, aic, aiv)
    body = mutator.visit_stmt(group.body)
    return group.with_fields(body=body) if mutator.found else group  # type: ignore[return-value]


class _Callers(IRVisitor):
    def __init__(self, caller: str, into: dict[str, list[str]]) -> None:
        self.caller, self.into = caller, into

    def visit_call(self, call: E.Call) -> None:
        if isinstance(call.op, E.GlobalVar):
            names = self.into.setdefault(call.op.name, [])
            if self.caller not in names:
                names.append(self.caller)
        super().visit_call(call)


def callers_by_callee(program: F.Program) -> dict[str, list[str]]:
    """For each called function, the functions calling it (one walk over the program)."""
    out: dict[str, list[str]] = {}
    for f in program.functions.values():
        _Callers(f.name, out).visit_stmt(f.body)
    return out
