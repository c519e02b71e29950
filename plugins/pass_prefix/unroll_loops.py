"""UnrollLoops: every `pl.unroll` loop becomes one copy of its body per iteration (docs/passes/unroll_loops.md).

The loop variable is replaced by that iteration's `ConstInt(i, INDEX)` (not folded: `i * 32` becomes
`0 * 32`); the variables the body defines are not renamed, so the copies assign the same Var objects and the
result is not SSA (convert_to_ssa, which runs after this pass, versions them). Each copy is visited again, so
unroll loops nested in it expand too. Loops of other kinds are searched and kept.

One difference from PyPTO: the copies are spliced flat into the enclosing block (a one-statement result stays
bare, a zero-trip loop disappears), so the output keeps NoRedundantBlocks / NormalizedStmtStructure; PyPTO
leaves nested SeqStmts behind a nested unroll. The printed program is the same.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import ForKind
from pypto_core.ir.utils import Substituter, flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator, IRVisitor
from pypto_core.passes.pass_base import Pass

MAX_TRIP_COUNT = 1024


def _bound(loop: S.ForStmt, which: str) -> int:
    """A bound of an unroll loop: a ConstInt or Neg(ConstInt); anything else is not a compile-time constant."""
    e = getattr(loop, which)
    if isinstance(e, E.ConstInt):
        return e.value
    if isinstance(e, E.Neg) and isinstance(e.operand, E.ConstInt):
        return -e.operand.value
    raise UserError(f"Unroll loop {which} must be a compile-time integer constant, got {type(e).__name__}",
                    loop.span)


def trip_count(start: int, stop: int, step: int) -> int:
    if step > 0 and start < stop:
        return (stop - start + step - 1) // step
    if step < 0 and start > stop:
        return (start - stop - step - 1) // -step
    return 0


class _LoopDefinitions(IRVisitor):
    def __init__(self) -> None:
        self.found: list[E.Var] = []

    def visit_for_stmt(self, loop: S.ForStmt) -> None:
        self.found.extend([loop.loop_var, *loop.iter_args])
        self.visit_node(loop)

    def visit_while_stmt(self, loop: S.WhileStmt) -> None:
        self.found.extend(loop.iter_args)
        self.visit_node(loop)


def _fresh_loop_definitions(body: S.Stmt) -> dict[E.Var, E.Expr]:
    """New objects (same names) for the loop variables and iter_args of the loops inside `body`.

    PyPTO's copies share them; pypto gives every copy after the first its own, since a printed program binds a
    new variable at each `for j in ...` (so shared ones would not parse back equal) and the variables of
    two sibling loops are two variables to every later pass. Assigned variables stay shared, as in PyPTO.
    """
    finder = _LoopDefinitions()
    finder.visit_stmt(body)
    mapping: dict[E.Var, E.Expr] = {}
    for v in finder.found:
        if isinstance(v, E.IterArg):
            mapping[v] = E.IterArg(v.name_hint, v.type, v.initValue, v.span)
        else:
            mapping[v] = E.Var(v.name_hint, v.type, v.span)
    return mapping


class _IterationSubstituter(Substituter):
    """The loop variable -> the iteration's constant, everywhere (Call attrs too: `device=d`). In an attr the
    constant becomes a plain int, which is what the parser makes of the printed `device=0`."""

    def __init__(self, mapping: dict[E.Var, E.Expr], value: E.ConstInt) -> None:
        super().__init__(mapping)
        self.value = value

    def visit_call(self, call: E.Call) -> E.Expr:
        new = super().visit_call(call)
        if isinstance(new, E.Call) and any(v is self.value for v in new.attrs.values()):
            attrs = {k: (v.value if v is self.value else v) for k, v in new.attrs.items()}
            return new.with_fields(attrs=attrs)
        return new


class _Unroller(IRMutator):
    def visit_for_stmt(self, loop: S.ForStmt) -> S.Stmt:
        if loop.kind is not ForKind.Unroll:
            return self.visit_node(loop)
        start, stop, step = (_bound(loop, w) for w in ("start", "stop", "step"))
        if step == 0:
            raise UserError("Unroll loop step cannot be zero", loop.span)
        if loop.iter_args:
            raise InternalError(f"Unroll loops cannot have iter_args (init_values): the pl.unroll loop over "
                                f"'{loop.loop_var.name_hint}' at {loop.span.to_string()} carries "
                                f"{len(loop.iter_args)} value(s)")
        trips = trip_count(start, stop, step)
        if trips > MAX_TRIP_COUNT:
            raise UserError(f"Unroll loop trip count {trips} exceeds maximum allowed ({MAX_TRIP_COUNT}). "
                            f"Reduce the loop range or use pl.range() instead", loop.span)
        copies: list[S.Stmt] = []
        for k in range(trips):
            value = E.ConstInt(start + k * step, DataType.INDEX, loop.loop_var.span)
            mapping: dict[E.Var, E.Expr] = {loop.loop_var: value}
            if k:
                mapping.update(_fresh_loop_definitions(loop.body))
            copy = _IterationSubstituter(mapping, value).visit_stmt(loop.body)
            copies.extend(flatten_to_stmts(self.visit_stmt(copy)))
        if copies and loop.leading_comments:
            first = copies[0]
            copies[0] = first.with_comments([*loop.leading_comments, *first.leading_comments])
        return make_body(copies, loop.span)

    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        stmts = [self.visit_stmt(s) for s in seq.stmts]
        if all(a is b for a, b in zip(stmts, seq.stmts)):
            return seq
        body = make_body(stmts, seq.span)
        if seq.leading_comments and isinstance(body, S.SeqStmts):
            body = body.with_comments(seq.leading_comments)
        return body


def unroll_function(func: F.Function) -> F.Function:
    """The function with its unroll loops expanded; the same object when it has none."""
    return _Unroller().visit_function(func)


class UnrollLoops(Pass):
    """Expand every pl.unroll loop into straight-line copies of its body."""

    name = "UnrollLoops"
    factory_name = "unroll_loops"
    produced = ("UnrollResolved",)
    description = ("Replace each pl.unroll loop by one copy of its body per iteration, the loop variable "
                   "replaced by the iteration's constant (docs/passes/unroll_loops.md).")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        return _Unroller().visit_program(program)
