"""A value one core computes and the other reads without a boundary (docs/passes/expand_mixed_kernel.md, errors): only tiles cross
between the cores, so once dead code is gone any remaining use of the other side's value is the program's
error, reported where it is read."""

from __future__ import annotations

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.span import Span
from pypto_core.ir.visitor import IRVisitor
from pypto_plugins.pass_split.mixed_kernel.sides import Side

PASS = "ExpandMixedKernel"


class _FirstUse(IRVisitor):
    def __init__(self, foreign: dict[int, tuple[str, Span]]) -> None:
        self.foreign = foreign
        self.found: tuple[E.Var, S.Stmt] | None = None
        self.current: S.Stmt | None = None

    def visit_stmt(self, stmt: S.Stmt) -> None:
        if self.found is not None:
            return
        outer, self.current = self.current, stmt
        super().visit_stmt(stmt)
        self.current = outer

    def visit_var_like(self, var: E.Var) -> None:
        if self.found is None and id(var) in self.foreign and self.current is not None:
            self.found = (var, self.current)
        super().visit_var_like(var)


def check_no_cross_core_use(func_name: str, side: Side, stmts: list[S.Stmt],
                            foreign: dict[int, tuple[str, Span]]) -> None:
    if not foreign:
        return
    walker = _FirstUse(foreign)
    for s in stmts:
        walker.visit_stmt(s)
    if walker.found is None:
        return
    var, stmt = walker.found
    what, where = foreign[id(var)]
    used_at = stmt.span
    raise UserError(f"{PASS}: InCore function '{func_name}': '{var.name_hint}' is computed on the "
                    f"{side.other.core_name} side ({what}, at {where}) but the {side.core_name} side reads it here; "
                    f"only tiles cross between the cores, through a boundary (a tile.move between a cube space and "
                    f"Vec, pl.aiv_shard, pl.aic_gather): compute the value on both sides from the same inputs, or "
                    f"pass it in as a parameter", used_at)
