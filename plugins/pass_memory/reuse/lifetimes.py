"""Program points and tile lifetimes for MemoryReuse (docs/passes/memory_reuse.md, program points).

One counter walks the body in statement order (nested bodies inline, then-branch before else). Each
assignment (allocation statements included), evaluation, yield and return takes the next number; an if
condition and a loop's bounds and init values are read at the current number. A tile's *def* is its
assignment's number, its *last use* the largest number reading it (its def when unread).

* A read of an iter_arg or of a loop's result is a read of the loop's init value; a read of an if result is a
  read of the values its branches yield (its *phi family*: the result and the yields defined in the branches).
* A tile defined before a loop and read at or after the loop's first point lives to the loop's last point.
* Only tiles an assignment binds are tracked (parameters, iter_args and results are not intervals).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pypto_core.analysis.walk import vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.utils import flatten_to_stmts
from pypto_plugins.pass_memory.memrefs import on_chip_memref


@dataclass
class Lifetimes:
    """Per tracked tile variable (by id): its def point, last use, defining statement; the phi families."""

    defs: dict[int, int] = field(default_factory=dict)
    last: dict[int, int] = field(default_factory=dict)
    var: dict[int, E.Var] = field(default_factory=dict)
    stmt: dict[int, S.AssignStmt] = field(default_factory=dict)
    families: dict[int, set[int]] = field(default_factory=dict)  # var id -> ids of the phi families it is in
    order: list[int] = field(default_factory=list)  # tracked vars in definition order

    def interval(self, vid: int) -> tuple[int, int]:
        return self.defs[vid], self.last[vid]

    def same_family(self, a: int, b: int) -> bool:
        return bool(self.families.get(a, set()) & self.families.get(b, set()))


def analyze(func: F.Function) -> Lifetimes:
    walker = _Walker()
    walker.stmt(func.body)
    life = walker.life
    for first, last in walker.loops:
        for vid in life.order:
            if life.defs[vid] < first <= life.last[vid]:
                life.last[vid] = max(life.last[vid], last)
    return life


class _Walker:
    def __init__(self) -> None:
        self.life = Lifetimes()
        self.point = 0
        self.loops: list[tuple[int, int]] = []
        # what a read of a loop / if result or an iter_arg stands for
        self.aliases: dict[int, list[E.Expr]] = {}
        self.next_family = 0

    def next(self) -> int:
        self.point += 1
        return self.point

    # -- reads ------------------------------------------------------------------------------------
    def read(self, node: object, point: int) -> None:
        if node is None:
            return
        for var in vars_read(node):  # type: ignore[arg-type]
            for vid in self.sources(var, set()):
                if point > self.life.last.get(vid, point):
                    self.life.last[vid] = point

    def sources(self, var: E.Var, seen: set[int]) -> list[int]:
        """The tracked tiles a read of `var` reads."""
        if id(var) in seen:
            return []
        seen.add(id(var))
        if id(var) in self.life.defs:
            return [id(var)]
        out: list[int] = []
        targets = self.aliases.get(id(var))
        if targets is None and isinstance(var, E.IterArg):
            targets = [var.initValue]
        for target in targets or ():
            for inner in vars_read(target):
                out.extend(self.sources(inner, seen))
        return out

    # -- statements ---------------------------------------------------------------------------------
    def stmt(self, s: S.Stmt | None) -> None:
        if s is None:
            return
        if isinstance(s, S.SeqStmts):
            for inner in s.stmts:
                self.stmt(inner)
        elif isinstance(s, S.AssignStmt):
            point = self.next()
            self.read(s.value, point)
            if on_chip_memref(s.var) is not None:
                vid = id(s.var)
                self.life.defs[vid] = point
                self.life.last.setdefault(vid, point)
                self.life.var[vid] = s.var
                self.life.stmt[vid] = s
                self.life.order.append(vid)
        elif isinstance(s, (S.EvalStmt, S.YieldStmt, S.ReturnStmt)):
            point = self.next()
            self.read(s.expr if isinstance(s, S.EvalStmt) else s.value, point)
        elif isinstance(s, S.IfStmt):
            self.if_stmt(s)
        elif isinstance(s, (S.ForStmt, S.WhileStmt)):
            self.loop(s)
        elif isinstance(s, S.ScopeStmt):
            self.stmt(s.body)

    def loop(self, s: S.ForStmt | S.WhileStmt) -> None:
        if isinstance(s, S.ForStmt):
            for bound in (s.start, s.stop, s.step):
                self.read(bound, self.point)
        for ia in s.iter_args:
            self.read(ia.initValue, self.point)
        first = self.point + 1
        if isinstance(s, S.WhileStmt):
            self.read(s.condition, first)
        self.stmt(s.body)
        self.loops.append((first, self.point))
        for ia, rv in zip(s.iter_args, s.return_vars):
            self.aliases[id(rv)] = [ia.initValue]

    def if_stmt(self, s: S.IfStmt) -> None:
        self.read(s.condition, self.point)
        branch_defs: list[set[int]] = []
        yields: list[list[E.Expr]] = []
        for body in (s.then_body, s.else_body):
            before = set(self.life.defs) | set(self.aliases)
            self.stmt(body)
            branch_defs.append((set(self.life.defs) | set(self.aliases)) - before)
            last = flatten_to_stmts(body)[-1] if body is not None and flatten_to_stmts(body) else None
            value = last.value if isinstance(last, S.YieldStmt) else None
            yields.append(list(value) if isinstance(value, (tuple, list)) else [value] if value is not None else [])
        for i, rv in enumerate(s.return_vars):
            values = [branch[i] for branch in yields if i < len(branch)]
            self.aliases[id(rv)] = values
            family = self.next_family
            self.next_family += 1
            members = [id(rv)]
            for branch, local in zip(yields, branch_defs):
                if i < len(branch) and isinstance(branch[i], E.Var) and id(branch[i]) in local:
                    members.extend(self.sources(branch[i], set()))
            for vid in members:
                self.life.families.setdefault(vid, set()).add(family)
