"""The tfree of each popped tile (docs/passes/expand_mixed_kernel.md, frees): a pop takes a FIFO slot and only the matching
`tfree_to_aic` / `tfree_to_aiv` gives it back, so it goes right after the tile's last use in the block that
pops it -- a use of anything that may share the slot's buffer counts (registry trait `aliases_operand`:
moves and views of it, and of those). A pop without uses is freed at once. A pop the program already frees
is left alone. When the last use is an if (or scope) holding a `return` (a `return` may stand inside
if branches), the tile is also freed right before each such return: the path that returns never reaches the
free after the statement.
"""

from __future__ import annotations

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CoreAffinity, CrossCoreRole
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.mixed_kernel import transfers as T
from pypto_plugins.pass_split.mixed_kernel.dce import add_uses

PASS = "ExpandMixedKernel"


def _role(e: E.Expr) -> CrossCoreRole | None:
    opdef = opdef_of(e) if isinstance(e, E.Call) and type(e.op) is E.Op else None
    return opdef.cross_core_role if opdef is not None else None


def _aliases_operand(e: E.Expr) -> bool:
    opdef = opdef_of(e) if isinstance(e, E.Call) and type(e.op) is E.Op else None
    return opdef is not None and opdef.traits.aliases_operand


class _Freed(IRVisitor):
    def __init__(self) -> None:
        self.ids: set[int] = set()

    def visit_call(self, call: E.Call) -> None:
        if _role(call) is CrossCoreRole.FREE:
            self.ids.update(id(a) for a in call.args if isinstance(a, E.Var))
        super().visit_call(call)


def _uses(s: S.Stmt) -> set[int]:
    used: set[int] = set()
    if isinstance(s, S.AssignStmt):
        return add_uses(used, s.value)  # not the variable it defines
    return add_uses(used, s)


class _Placer:
    def __init__(self, func_name: str, freed: set[int]) -> None:
        self.func_name = func_name
        self.freed = freed

    def block(self, stmts: list[S.Stmt]) -> list[S.Stmt]:
        stmts = [self.nested(s) for s in stmts]
        inserts: dict[int, list[S.Stmt]] = {}
        for i, s in enumerate(stmts):
            if isinstance(s, S.AssignStmt) and _role(s.value) is CrossCoreRole.POP and id(s.var) not in self.freed:
                last = self.last_use(stmts, i)
                free = self.free_stmt(s)
                inserts.setdefault(last, []).append(free)
                if last != i:
                    stmts[last] = _free_before_returns(stmts[last], free)
        if not inserts:
            return stmts
        out: list[S.Stmt] = []
        for i, s in enumerate(stmts):
            out.append(s)
            out.extend(inserts.get(i, []))
        return out

    def nested(self, s: S.Stmt) -> S.Stmt:
        if isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
            return s.with_fields(body=make_body(self.block(flatten_to_stmts(s.body)), s.body.span))
        if isinstance(s, S.IfStmt):
            then_body = make_body(self.block(flatten_to_stmts(s.then_body)), s.then_body.span)
            else_body = None if s.else_body is None else make_body(self.block(flatten_to_stmts(s.else_body)),
                                                                   s.else_body.span)
            return s.with_fields(then_body=then_body, else_body=else_body)
        return s

    def last_use(self, stmts: list[S.Stmt], pop_at: int) -> int:
        popped = stmts[pop_at]
        aliases = {id(popped.var)}  # type: ignore[attr-defined]
        last = pop_at
        for j in range(pop_at + 1, len(stmts)):
            s = stmts[j]
            if not aliases & _uses(s):
                continue
            leaving = s if isinstance(s, (S.YieldStmt, S.ReturnStmt)) else _returning(s, aliases)
            if leaving is not None:
                raise UserError(f"{PASS}: InCore function '{self.func_name}': the tile popped into "
                                f"'{popped.var.name_hint}' (or a view of it) leaves its block through a "  # type: ignore[attr-defined]
                                f"{'yield' if isinstance(leaving, S.YieldStmt) else 'return'}, so its FIFO slot "
                                f"could never be released by tfree; compute a new tile from it "
                                f"(pl.tile.adds(x, 0), ...) and carry that instead", leaving.span)
            last = j
            if isinstance(s, S.AssignStmt) and _aliases_operand(s.value):
                aliases.add(id(s.var))
        return last

    def free_stmt(self, pop: S.AssignStmt) -> S.EvalStmt:
        direction = T.C2V if classify_call_affinity(pop.value) is CoreAffinity.VECTOR else T.V2C
        return T.free(direction, pop.var, pop.span)


class _ReturnsUsing(IRVisitor):
    """The first nested return statement that returns one of `aliases`."""

    def __init__(self, aliases: set[int]) -> None:
        self.aliases = aliases
        self.found: S.ReturnStmt | None = None

    def visit_return_stmt(self, s: S.ReturnStmt) -> None:
        if self.found is None and self.aliases & add_uses(set(), s):
            self.found = s


def _returning(s: S.Stmt, aliases: set[int]) -> S.ReturnStmt | None:
    finder = _ReturnsUsing(aliases)
    finder.visit_stmt(s)
    return finder.found


def _free_before_returns(s: S.Stmt, free: S.EvalStmt) -> S.Stmt:
    """`s` with `free` right before every return nested in it (the early exits of its paths)."""
    if isinstance(s, S.ReturnStmt):
        return make_body([free, s], s.span)
    if isinstance(s, S.SeqStmts):
        stmts = [_free_before_returns(c, free) for c in s.stmts]
        return s if all(a is b for a, b in zip(stmts, s.stmts)) else make_body(
            [x for c in stmts for x in flatten_to_stmts(c)], s.span)
    if isinstance(s, S.IfStmt):
        then_body = _free_before_returns(s.then_body, free)
        else_body = None if s.else_body is None else _free_before_returns(s.else_body, free)
        if then_body is s.then_body and else_body is s.else_body:
            return s
        return s.with_fields(then_body=then_body, else_body=else_body)
    if isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
        body = _free_before_returns(s.body, free)
        return s if body is s.body else s.with_fields(body=body)
    return s


def place_tfrees(func_name: str, stmts: list[S.Stmt]) -> list[S.Stmt]:
    freed = _Freed()
    for s in stmts:
        freed.visit_stmt(s)
    return _Placer(func_name, freed.ids).block(stmts)
