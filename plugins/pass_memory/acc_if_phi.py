"""Accumulator if-phi coalescing (docs/passes/memory_reuse.md, afterwards; docs/passes/materialize_semantic_aliases.md,
planner extras): an if whose branches yield Acc tiles on two buffers cannot be reconciled by the yield fix-up (no
Acc -> Acc move exists). When one branch yields an *in-place accumulator result* — a tile computed in that branch
by an op writing into its operand's buffer (`OpTraits.output_reuses_input`, e.g. `tile.matmul_acc`) — the other
branch's *seed* (the tile it yields, e.g. a `tile.matmul` of a peeled first K step) is retargeted onto the
accumulator's buffer with MaterializeSemanticAliases' rules (for the seed itself, later uses of that buffer are
looked for in its own branch only: after the if the buffer holds the if's result), and the if's result follows. A refused retarget is
an InternalError: the program would need the impossible move.

Run by MemoryReuse (PYPTO, after the buffers are committed and loop carries aligned) and by
MaterializeSemanticAliases (DSA_RP), each before its yield fix-up.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pypto_core.analysis.walk import statements
from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_plugins.pass_memory.init_mem_ref_steps.buffer_facts import reused_operand
from pypto_plugins.pass_memory.materialize_semantic_aliases_steps.apply import PlanApplier
from pypto_plugins.pass_memory.materialize_semantic_aliases_steps.definitions import Definition, yielded
from pypto_plugins.pass_memory.materialize_semantic_aliases_steps.retarget import Retargeter


def coalesce_acc_if_phis(body: S.Stmt, backend: Any, pass_name: str) -> S.Stmt:
    """`body` with every accumulator if-phi on one buffer (each coalescing re-reads the body it changed)."""
    done: set[tuple[int, int]] = set()
    while True:
        site = _next_site(body, done)
        if site is None:
            return body
        stmt, index, accumulator, seed, branch = site
        done.add((id(stmt), index))
        retargeter = _SeedRetargeter(body, backend, seed, branch)
        target = accumulator.type.memref  # type: ignore[union-attr]
        if not retargeter.retarget(seed, target, MemorySpace.Acc):
            raise InternalError(
                f"{pass_name}: cannot coalesce L0C accumulator across a peeled if-phi: the if yields the in-place "
                f"accumulator '{accumulator.name_hint}' on '{target.name_hint}' from one branch, but the other "
                f"branch's seed '{seed.name_hint}' cannot be computed in that buffer (the buffer is read or "
                f"rewritten after it, or its op may not write there), and an Acc -> Acc move does not exist")
        retargeter.plan(stmt.return_vars[index], target, MemorySpace.Acc)
        body = PlanApplier(retargeter.plans).stmt(body)  # type: ignore[arg-type]


class _SeedRetargeter(Retargeter):
    """MaterializeSemanticAliases' retarget, except that for the seed itself only its own branch is scanned for
    later uses of the accumulator's buffer: after the if, that buffer holds the if's result (the accumulating
    branch wrote it in place), so reading it there reads the value the coalescing produces."""

    def __init__(self, body: S.Stmt, backend: Any, seed: E.Var, branch: S.Stmt) -> None:
        super().__init__(body, backend)
        self.seed = seed
        branch_stmts = flatten_to_stmts(branch)
        self.branch_first = branch_stmts[0] if branch_stmts else None

    def _touched_later(self, d: Definition, base: E.Var) -> bool:
        if d.kind == "assign" and getattr(d.stmt, "var", None) is self.seed:
            inner = [i for i, (block, _) in enumerate(d.frames) if block and block[0] is self.branch_first]
            if inner:
                d = replace(d, frames=d.frames[inner[0]:])
        return super()._touched_later(d, base)


def _next_site(body: S.Stmt, done: set[tuple[int, int]]) -> tuple[S.IfStmt, int, E.Var, E.Var, S.Stmt] | None:
    """The first if result (outer ifs first) whose Acc branches sit on two buffers, one an in-place accumulator:
    (the if, the result's index, the accumulator, the other branch's seed, the seed's branch)."""
    for stmt in statements(body):
        if not isinstance(stmt, S.IfStmt) or stmt.else_body is None:
            continue
        then_values, else_values = yielded(stmt.then_body), yielded(stmt.else_body)
        for i, rv in enumerate(stmt.return_vars):
            if (id(stmt), i) in done or i >= len(then_values) or i >= len(else_values):
                continue
            tv, ev = then_values[i], else_values[i]
            if not (_acc_tile(rv) and _acc_tile(tv) and _acc_tile(ev)):
                continue
            if tv.type.memref.base is ev.type.memref.base:  # type: ignore[union-attr]
                continue
            then_acc = _in_place_accumulator(tv, stmt.then_body)
            else_acc = _in_place_accumulator(ev, stmt.else_body)
            if then_acc and not else_acc:
                return stmt, i, tv, ev, stmt.else_body  # type: ignore[return-value]
            if else_acc and not then_acc:
                return stmt, i, ev, tv, stmt.then_body  # type: ignore[return-value]
    return None


def _acc_tile(e: E.Expr) -> bool:
    t = getattr(e, "type", None)
    return isinstance(e, E.Var) and isinstance(t, TileType) and t.memref is not None \
        and t.memory_space is MemorySpace.Acc


def _in_place_accumulator(value: E.Expr, branch: S.Stmt) -> bool:
    """`value` is computed in `branch` by an op that writes into its operand k's buffer, and really is there."""
    for s in statements(branch):
        if isinstance(s, S.AssignStmt) and s.var is value:
            k = reused_operand(s.value)
            if k is None or not isinstance(s.value, E.Call) or k >= len(s.value.args):
                return False
            operand = s.value.args[k]
            m = getattr(getattr(operand, "type", None), "memref", None)
            return m is not None and m.base is value.type.memref.base  # type: ignore[union-attr]
    return False
