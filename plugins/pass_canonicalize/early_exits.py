"""The rewrite rules of CtrlFlowTransform for one loop body (docs/passes/ctrl_flow_transform.md, rules).

A body is a list of statements and the values its trailing yield carries to the next iteration (None
when it has no yield). `eliminate` removes every `continue` and `break` that belongs to this loop,
reading the statements top to bottom:

* a bare exit drops the statements after it; the path then yields the loop's iter_args (the machine's
  meaning of an exit: the yield of an abandoned iteration never runs);
* an `if` whose branch ends with the exit takes the statements after it into both branches (the
  exiting branch drops them at the exit), so each path ends where the iteration ends;
* an `if` holding a `continue` deeper does the same: both branches take the rest;
* an `if` holding a `break` deeper keeps its branches apart and the rest runs under
  `if not <break flag>:`.

A `break` also sets the loop's break flag. With carried values every rewritten `if` merges them into
fresh `<base>__phi_v<N>` variables that the path's yield carries on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.utils import flatten_to_stmts, make_body

Stmts = list[S.Stmt]
Carried = tuple[E.Expr, ...] | None


def owns_exit(stmt: S.Stmt | None, exit_cls: type[S.Stmt] | tuple[type[S.Stmt], ...]) -> bool:
    """An exit of the current loop inside `stmt` (a nested loop's exits are its own)."""
    if stmt is None:
        return False
    if isinstance(stmt, exit_cls):
        return True
    if isinstance(stmt, S.SeqStmts):
        return any(owns_exit(s, exit_cls) for s in stmt.stmts)
    if isinstance(stmt, S.IfStmt):
        return owns_exit(stmt.then_body, exit_cls) or owns_exit(stmt.else_body, exit_cls)
    if isinstance(stmt, S.ScopeStmt):
        return owns_exit(stmt.body, exit_cls)
    return False


def split_trailing_yield(body: S.Stmt) -> tuple[Stmts, Carried]:
    stmts = flatten_to_stmts(body)
    if stmts and isinstance(stmts[-1], S.YieldStmt):
        return stmts[:-1], tuple(stmts[-1].value)
    return stmts, None


@dataclass
class ExitRules:
    """How the continues and breaks of one loop body are removed."""

    iter_args: Sequence[E.IterArg]          # what a path leaving the iteration carries on
    new_name: Callable[[str, str], str]     # (base, role) -> a fresh `<base>__<role>_v<N>`
    flag: E.Var | None = None               # the break flag (a loop with break)

    # -- the rules, top to bottom ------------------------------------------------------------------
    def eliminate(self, stmts: Stmts, carried: Carried, yield_at_end: bool = False) -> Stmts:
        """`stmts` without exits; every path ends with a yield of `carried` (of nothing when `yield_at_end`
        and nothing is carried)."""
        for k, s in enumerate(stmts):
            if isinstance(s, EXITS):
                return [*stmts[:k], *self.exit_path(s, carried, yield_at_end)]
            if isinstance(s, S.ScopeStmt) and owns_exit(s, EXITS):
                raise UserError(f"CtrlFlowTransform: a '{_word(s)}' inside a `with` scope of a loop body cannot "
                                "be rewritten; put the scope inside an if, or the exit outside the scope", s.span)
            if isinstance(s, S.IfStmt) and owns_exit(s, EXITS):
                self.check_no_results(s)
                breaks = owns_exit(s, S.BreakStmt)
                if breaks and not owns_exit(s, S.ContinueStmt) and not _ends_with(s, S.BreakStmt):
                    return [*stmts[:k], *self.guarded_rest(s, stmts[k + 1:], carried, yield_at_end)]
                return [*stmts[:k], *self.rest_in_both_branches(s, stmts[k + 1:], carried, breaks)]
        if carried is not None:
            return [*stmts, S.YieldStmt(list(carried), stmts[-1].span if stmts else None)]
        if yield_at_end:
            return [*stmts, S.YieldStmt([], stmts[-1].span if stmts else None)]
        return list(stmts)

    def exit_path(self, exit_stmt: S.Stmt, carried: Carried, yield_at_end: bool) -> Stmts:
        """A bare exit: a break sets the break flag; the iter_args are carried on."""
        out: Stmts = []
        if isinstance(exit_stmt, S.BreakStmt):
            if self.flag is None:
                raise InternalError("CtrlFlowTransform: a break in a loop without a break flag")
            out.append(S.AssignStmt(self.flag, E.ConstBool(True, exit_stmt.span), exit_stmt.span))
        if carried is not None:
            out.append(S.YieldStmt(list(self.iter_args), exit_stmt.span))
        elif yield_at_end:
            out.append(S.YieldStmt([], exit_stmt.span))
        return out

    def rest_in_both_branches(self, s: S.IfStmt, rest: Stmts, carried: Carried, breaks: bool) -> Stmts:
        """`if c: ... exit` (or an if holding a continue deeper): both branches run the rest of the body; the
        path that leaves drops it at its exit. The branches of an if that breaks end with a yield."""
        then_body = self.eliminate([*flatten_to_stmts(s.then_body), *rest], carried, breaks)
        else_body = self.eliminate([*flatten_to_stmts(s.else_body), *rest], carried, breaks)
        return self.merged_if(s, s.condition, then_body, else_body, carried)

    def guarded_rest(self, s: S.IfStmt, rest: Stmts, carried: Carried, yield_at_end: bool) -> Stmts:
        """An if holding a break deeper: its branches lose their breaks; the rest runs `if not <flag>:`."""
        inner = S.IfStmt(s.condition, make_body(self.eliminate(flatten_to_stmts(s.then_body), None), s.span),
                         make_body(self.eliminate(flatten_to_stmts(s.else_body), None), s.span), (), s.span,
                         s.leading_comments)
        if not rest and carried is None and not yield_at_end:
            return [inner]
        assert self.flag is not None
        not_broken = E.Not(self.flag, DataType.BOOL, s.span)
        then_body = self.eliminate(rest, carried, True)
        else_body = [S.YieldStmt(list(self.iter_args) if carried is not None else [], s.span)]
        return [inner, *self.merged_if(s, not_broken, then_body, else_body, carried, keep_comments=False)]

    # -- helpers -----------------------------------------------------------------------------------
    @staticmethod
    def check_no_results(s: S.IfStmt) -> None:
        if s.return_vars:
            raise UserError(f"CtrlFlowTransform: this if names results with pl.yield_ and holds a '{_word(s)}' of "
                            "its loop; a path that leaves the loop has no value for them: assign the values "
                            f"without pl.yield_, or move the '{_word(s)}' out of the if", s.span)

    def merged_if(self, s: S.IfStmt, condition: E.Expr, then_body: Stmts, else_body: Stmts, carried: Carried,
                  keep_comments: bool = True) -> Stmts:
        comments = s.leading_comments if keep_comments else None
        if carried is None:
            return [S.IfStmt(condition, make_body(then_body, s.span), make_body(else_body, s.span), (), s.span,
                             comments)]
        phis = [E.Var(self.new_name(user_base(ia), "phi"), ia.type, s.span) for ia in self.iter_args]
        merged = S.IfStmt(condition, make_body(then_body, s.span), make_body(else_body, s.span), phis, s.span,
                          comments)
        return [merged, S.YieldStmt(list(phis), s.span)]


EXITS = (S.BreakStmt, S.ContinueStmt)


def _ends_with(s: S.IfStmt, exit_cls: type[S.Stmt]) -> bool:
    return any(branch and isinstance(branch[-1], exit_cls)
               for branch in (flatten_to_stmts(s.then_body), flatten_to_stmts(s.else_body)))


def _word(s: S.Stmt) -> str:
    return "break" if owns_exit(s, S.BreakStmt) else "continue"
