"""The tfree of each popped tile (docs/passes/expand_mixed_kernel.md, frees): a pop takes a FIFO slot and only
the matching `tfree_to_aic` / `tfree_to_aiv` gives it back, so it goes right after the tile's last use in the
block that pops it. A use of anything that shares the slot's buffer counts:

* a copy `h = v` of it, a view of it (registry trait `aliases_operand`) that stays in its memory space (a move
  into another space is a copy on the device: its result does not hold the slot);
* an if whose branch yields it (or an alias): the if's merged value is an alias too, read after the if;
* a loop carrying it in: the carry and the loop's result.

When the last use is the block's own trailing yield (the tile leaves a branch or a loop body), the tfree goes
right before that yield: the slot is released at the end of the block that popped it. A pop without uses is
freed at once. A pop the program already frees is left alone; a tfree the program wrote on an alias of a popped
tile is re-pointed to the popped variable, its kwargs kept. When the last use is an if (or scope) holding a
`return` (a `return` may stand inside if branches), the tile is also freed right before each such return: the
path that returns never reaches the free after the statement.
"""

from __future__ import annotations

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator, IRVisitor
from pypto_core.ops.opdef import CoreAffinity, CrossCoreRole
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.mixed_kernel import transfers as T
from pypto_plugins.pass_split.mixed_kernel.dce import add_uses

PASS = "ExpandMixedKernel"


def _role(e: E.Expr) -> CrossCoreRole | None:
    opdef = opdef_of(e) if isinstance(e, E.Call) and type(e.op) is E.Op else None
    return opdef.cross_core_role if opdef is not None else None


def _space(e: E.Expr) -> object:
    t = getattr(e, "type", None)
    return t.memory_space if isinstance(t, TileType) else None


def aliased_operand(s: S.AssignStmt) -> E.Var | None:
    """The variable whose buffer `s.var` shares: `h = v`, or a view of v (nested views too) in v's own memory
    space."""
    value: E.Expr = s.value
    while not isinstance(value, E.Var):
        opdef = opdef_of(value) if isinstance(value, E.Call) and type(value.op) is E.Op else None
        if opdef is None or not opdef.traits.aliases_operand or not value.args:  # type: ignore[union-attr]
            return None
        if _space(value.args[0]) is not _space(value):  # type: ignore[union-attr]
            return None  # a move into another memory space copies
        value = value.args[0]  # type: ignore[union-attr]
    return value


def _branch_yield(body: S.Stmt | None, aliases: set[int]) -> tuple[S.YieldStmt | None, set[int]]:
    """The trailing yield of a branch, and `aliases` extended by the branch's own copies / views of them."""
    stmts = flatten_to_stmts(body) if body is not None else []
    inner = set(aliases)
    for s in stmts:
        if isinstance(s, S.AssignStmt):
            source = aliased_operand(s)
            if source is not None and id(source) in inner:
                inner.add(id(s.var))
    yielded = stmts[-1] if stmts and isinstance(stmts[-1], S.YieldStmt) else None
    return yielded, inner


def _extend(s: S.Stmt, aliases: set[int]) -> None:
    """The variables `s` defines that share the popped buffer (its copies, views, merges and carries)."""
    if isinstance(s, S.AssignStmt):
        source = aliased_operand(s)
        if source is not None and id(source) in aliases:
            aliases.add(id(s.var))
    elif isinstance(s, S.IfStmt):
        for body in (s.then_body, s.else_body):
            yielded, inner = _branch_yield(body, aliases)
            if yielded is None:
                continue
            for k, rv in enumerate(s.return_vars):
                value = yielded.value[k] if k < len(yielded.value) else None
                if isinstance(value, E.Var) and id(value) in inner:
                    aliases.add(id(rv))
    elif isinstance(s, (S.ForStmt, S.WhileStmt)):
        for k, ia in enumerate(s.iter_args):
            init = ia.initValue
            if isinstance(init, E.Var) and id(init) in aliases:
                aliases.add(id(ia))
                if k < len(s.return_vars):
                    aliases.add(id(s.return_vars[k]))


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
        after: dict[int, list[S.Stmt]] = {}
        before: dict[int, list[S.Stmt]] = {}
        for i, s in enumerate(stmts):
            if isinstance(s, S.AssignStmt) and _role(s.value) is CrossCoreRole.POP and id(s.var) not in self.freed:
                last = self.last_use(stmts, i)
                free = self.free_stmt(s)
                if isinstance(stmts[last], S.YieldStmt):
                    before.setdefault(last, []).append(free)  # the tile leaves the block: freed at its end
                    continue
                after.setdefault(last, []).append(free)
                if last != i:
                    stmts[last] = _free_before_returns(stmts[last], free)
        if not after and not before:
            return stmts
        out: list[S.Stmt] = []
        for i, s in enumerate(stmts):
            out.extend(before.get(i, []))
            out.append(s)
            out.extend(after.get(i, []))
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
            if aliases & _uses(s):
                leaving = s if isinstance(s, S.ReturnStmt) else _returning(s, aliases)
                if leaving is not None:
                    raise UserError(f"{PASS}: InCore function '{self.func_name}': the tile popped into "
                                    f"'{popped.var.name_hint}' (or a view of it) leaves its block through a "  # type: ignore[attr-defined]
                                    f"return, so its FIFO slot could never be released by tfree; compute a new "
                                    f"tile from it (pl.tile.adds(x, 0), ...) and return that instead", leaving.span)
                last = j
            _extend(s, aliases)
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


class _PopDefs(IRVisitor):
    """Each pop's variable, and each copy / view of it back to the popped variable."""

    def __init__(self) -> None:
        self.popped: dict[int, E.Var] = {}

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        if _role(s.value) is CrossCoreRole.POP:
            self.popped[id(s.var)] = s.var
        else:
            source = aliased_operand(s)
            if source is not None and id(source) in self.popped:
                self.popped[id(s.var)] = self.popped[id(source)]
        super().visit_assign_stmt(s)


class _Repoint(IRMutator):
    def __init__(self, popped: dict[int, E.Var]) -> None:
        self.popped = popped

    def visit_call(self, call: E.Call) -> E.Expr:
        if _role(call) is CrossCoreRole.FREE and call.args and isinstance(call.args[0], E.Var):
            target = self.popped.get(id(call.args[0]))
            if target is not None and target is not call.args[0]:
                return call.with_fields(args=(target, *call.args[1:]))
        return super().visit_call(call)


def repoint_alias_frees(stmts: list[S.Stmt]) -> list[S.Stmt]:
    """A tfree the program wrote on an alias of a popped tile (`same = got`) frees the popped variable itself,
    with its own kwargs (docs/passes/expand_mixed_kernel.md, frees)."""
    defs = _PopDefs()
    for s in stmts:
        defs.visit_stmt(s)
    if not any(k != id(v) for k, v in defs.popped.items()):
        return stmts
    mutator = _Repoint(defs.popped)
    return flatten_to_stmts(mutator.visit_stmt(make_body(stmts)))


def place_tfrees(func_name: str, stmts: list[S.Stmt]) -> list[S.Stmt]:
    stmts = repoint_alias_frees(stmts)
    freed = _Freed()
    for s in stmts:
        freed.visit_stmt(s)
    return _Placer(func_name, freed.ids).block(stmts)
