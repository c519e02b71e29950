"""When a buffer may be handed on: the program-order positions of a function's statements and reads, and loops.

A loop carry writes its buffer every iteration, and an if result's buffer is written by the branch that did not
yield the value already there (its yield fix-up). Either may take the buffer of a value defined before it only if
nothing reads a variable on that buffer once the carry or the other branch may have written it: after the point
where the writes start, and — the part program order alone misses — anywhere in an enclosing loop that does not
define the variable, whose next iteration reads it again (docs/passes/init_mem_ref.md, loops and ifs).
"""

from __future__ import annotations

from bisect import bisect_left

from pypto_core.analysis.walk import walk
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S


class UsePositions:
    """Statements numbered in program order (a statement before the statements it holds); for each variable the
    positions of the statements that read it (a loop reads its header, its inits included, before its body's
    statements; a carry read in the body is not a read of its init: `walk`'s rule), and where it is defined."""

    def __init__(self, func: F.Function) -> None:
        self.positions: dict[int, int] = {}
        self.reads: dict[int, list[int]] = {}
        self.defined_at: dict[int, int] = {}
        at = -1
        for node in walk(func.body, defs=False):
            if isinstance(node, S.Stmt):
                at = len(self.positions)
                self.positions[id(node)] = at
                for v in _defined_by(node):
                    self.defined_at[id(v)] = at
            elif isinstance(node, E.Var):
                self.reads.setdefault(id(node), []).append(at)
        self._ends: dict[int, int] = {}

    def position(self, stmt: S.Stmt) -> int:
        return self.positions.get(id(stmt), 0)

    def end(self, stmt: S.Stmt) -> int:
        """The position of the last statement `stmt` holds (itself when it holds none)."""
        found = self._ends.get(id(stmt))
        if found is None:
            found = max((self.positions.get(id(n), 0) for n in walk(stmt) if isinstance(n, S.Stmt)),
                        default=self.position(stmt))
            self._ends[id(stmt)] = found
        return found

    def last_use(self, var_id: int) -> int:
        reads = self.reads.get(var_id)
        return reads[-1] if reads else -1

    def read_between(self, var_id: int, first: int, last: int) -> bool:
        reads = self.reads.get(var_id, [])
        k = bisect_left(reads, first)
        return k < len(reads) and reads[k] <= last

    def live_after(self, var_id: int, at: int, loops: list[S.Stmt]) -> bool:
        """`var` is read after position `at`, or in an enclosing loop (of `loops`) that does not define it."""
        if self.last_use(var_id) > at:
            return True
        defined = self.defined_at.get(var_id, -1)
        # A read in the loop's header (its bounds, its inits) happens once, before the first iteration.
        return any(defined < self.position(loop) and
                   self.read_between(var_id, self.position(loop) + 1, self.end(loop)) for loop in loops)

    def inside(self, var_id: int, stmt: S.Stmt) -> bool:
        """`var` is defined by a statement `stmt` holds."""
        defined = self.defined_at.get(var_id, -1)
        return self.position(stmt) < defined <= self.end(stmt)


def _defined_by(stmt: S.Stmt) -> list[E.Var]:
    if isinstance(stmt, S.AssignStmt):
        return [stmt.var]
    if isinstance(stmt, S.ForStmt):
        return [stmt.loop_var, *stmt.iter_args, *stmt.return_vars]
    if isinstance(stmt, S.WhileStmt):
        return [*stmt.iter_args, *stmt.return_vars]
    if isinstance(stmt, S.IfStmt):
        return list(stmt.return_vars)
    return []
