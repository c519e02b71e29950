"""A user K step whose matmuls are K-tiled accumulates on the user loop's carried accumulator
(docs/passes/auto_tile_matmul_l0.md, user K loops whose accumulator fits L0C).

A user K loop of the page's form

    for ko, (acc,) in pl.pipeline(...):
        ...
        if ko == 0:  c1 = tile.matmul(am, bm); cp = pl.yield_(c1)
        else:        c2 = tile.matmul_acc(acc, am, bm); cp = pl.yield_(c2)
        r = pl.yield_(cp)

computes one K step of the user's loop per trip. Rewriting each branch's matmul into its own K loop would give
the first branch a fresh `c1_l0_init` accumulator next to the user's: two full L0C tiles, and two Acc buffers
the branches yield that no plan can join (an Acc -> Acc move does not exist). So the if becomes one K loop
carried on `acc` whose first block is a fresh matmul only on the user's first step (the if's condition), and
accumulates onto `acc` on every other one; the if's result is that loop's result.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.analysis.walk import vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.scalar_ops import not_
from pypto_core.ir.utils import find_yield_stmt, flatten_to_stmts
from pypto_plugins.pass_matmul.l0_rewrite.candidate import MatmulSite, matmul_site


@dataclass(frozen=True)
class CarriedKStep:
    """The if of a user K step: `first` (a fresh matmul) runs when `first_when` holds, `later` (a matmul_acc
    onto the user loop's `carry`) otherwise; both of the same operands, the if's result is `phi`."""

    stmt: S.IfStmt
    first: MatmulSite
    later: MatmulSite
    carry: E.IterArg
    first_when: E.Expr
    phi: E.Var


def carried_k_step(stmt: S.Stmt, loop: S.ForStmt | None) -> CarriedKStep | None:
    """`stmt` as such a K step of `loop` (the innermost loop around it), or None: each branch is exactly one
    matmul and the yield of its result, one a fresh `tile.matmul`, the other accumulating the same operands onto
    a carry of `loop`; the if's one result is yielded back to that carry, which nothing else in the body reads."""
    if loop is None or not isinstance(stmt, S.IfStmt) or stmt.else_body is None or len(stmt.return_vars) != 1:
        return None
    then_site, else_site = _lone_matmul(stmt.then_body), _lone_matmul(stmt.else_body)
    if then_site is None or else_site is None:
        return None
    if then_site.acc is None and else_site.acc is not None:
        first, later, first_when = then_site, else_site, stmt.condition
    elif else_site.acc is None and then_site.acc is not None:
        first, later, first_when = else_site, then_site, not_(stmt.condition, stmt.span)
    else:
        return None
    if first.bias is not None or first.form.accumulate_op != later.op or \
            first.lhs is not later.lhs or first.rhs is not later.rhs or first.result.type != later.result.type:
        return None
    carry, phi = later.acc, stmt.return_vars[0]
    loop_yield = find_yield_stmt(loop.body)
    if not isinstance(carry, E.IterArg) or loop_yield is None:
        return None
    slots = [j for j, v in enumerate(loop_yield.value) if v is phi]
    if len(slots) != 1 or slots[0] >= len(loop.iter_args) or loop.iter_args[slots[0]] is not carry:
        return None
    if sum(1 for s in flatten_to_stmts(loop.body) for v in vars_read(s) if v is carry) != 1:
        return None  # the carry is read elsewhere too: its buffer is not free to accumulate in
    return CarriedKStep(stmt, first, later, carry, first_when, phi)


def _lone_matmul(branch: S.Stmt) -> MatmulSite | None:
    stmts = flatten_to_stmts(branch)
    if len(stmts) != 2 or not isinstance(stmts[1], S.YieldStmt):
        return None
    site = matmul_site(stmts[0])
    if site is None or len(stmts[1].value) != 1 or stmts[1].value[0] is not site.result:
        return None
    return site
