"""Kernel tensors written in place inside loops and ifs get explicit carries (ConvertTensorToTileOps, before the
lowering; docs/passes/convert_tensor_to_tile_ops.md, in-place writes).

A tensor the kernel computes itself (`t = pl.tensor.full(...)`, `pl.tensor.create`, a sum, ...) lives on chip once
lowered, as a tile; pypto's tiles are values, so a write into one returns the written tile. PyPTO writes tiles in
place, and programs written for it update such a tensor inside a loop or a branch with a statement:

    t = pl.tensor.full([1, 32], dtype=pl.INT32, value=0)
    for i in pl.range(4):
        pl.tensor.write(t, [0, i * 2], pl.const(1, pl.INT32))

This step gives such writes the carries the loop and the if need, as ConvertToSSA does for `t = pl.assemble(t, ..)`:

    t = pl.tensor.full([1, 32], dtype=pl.INT32, value=0)
    for i, (t__iter_v0,) in pl.range(4, init_values=(t,)):
        t__ssa_v1 = pl.tensor.write(t__iter_v0, [0, i * 2], pl.const(1, pl.INT32))
        t__rv_v0 = pl.yield_(t__ssa_v1)

(an if gets a merge `t__phi_vN` yielded by both branches; every later read reads the latest version). It applies to
a tensor defined by an op call that has a tile form, written in place (the registry's Effect.WRITE / READ_WRITE on
an operand of a statement call whose result has the operand's type) inside a loop or an if that does not define it,
and otherwise only read by op calls whose result does not share its buffer (no `buffer_view`, no `aliases_operand`)
or returned: then the value semantics and the in-place ones agree. Anything else (an alias `k = t`, a view, a loop
with break / continue) is left to the lowering, which refuses what it cannot say (tensor_to_tile/in_place_writes.py).
"""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.walk import statements, vars_read, walk
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.names import VersionCounter, generated
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TensorType
from pypto_core.ir.utils import (
    append_to_yield,
    collect_def_vars,
    flatten_to_stmts,
    make_body,
    substitute_expr,
)
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import op_registry, opdef_of
from pypto_plugins.pass_tile.interfaces import TILE_FORM

_WRITES = (Effect.WRITE, Effect.READ_WRITE)
_BRANCHING = (S.ForStmt, S.WhileStmt, S.IfStmt)


def _written_operand(s: S.Stmt) -> E.Var | None:
    """The tensor a statement call writes in place and returns (`pl.tensor.write(t, ...)`), else None."""
    if not isinstance(s, S.EvalStmt) or not isinstance(s.expr, E.Call):
        return None
    opdef = opdef_of(s.expr)
    if opdef is None:
        return None
    for i, arg in enumerate(s.expr.args):
        if isinstance(arg, E.Var) and isinstance(arg.type, TensorType) and opdef.arg_effect(i, s.expr.kwargs) in \
                _WRITES and structural_equal(s.expr.type, arg.type):
            return arg
    return None


def _computed_on_chip(value: E.Expr) -> bool:
    """A tensor the kernel computes (an op call with a tile form writing no operand): a tile once lowered."""
    opdef = opdef_of(value)
    if opdef is None or not isinstance(value.type, TensorType) or opdef.traits.gm_transfer:
        return False
    assert isinstance(value, E.Call)
    if any(opdef.arg_effect(i, value.kwargs) in _WRITES for i in range(len(value.args))):
        return False
    return op_registry().implementation(TILE_FORM.name, value.op.name) is not None


def _plain_reads(call: E.Call, var: E.Var) -> int:
    """How many operands of `call` read `var` without sharing its buffer (0 for a view or a write)."""
    opdef = opdef_of(call)
    if opdef is None or opdef.traits.buffer_view or opdef.traits.aliases_operand:
        return 0
    return sum(1 for i, a in enumerate(call.args) if a is var and opdef.arg_effect(i, call.kwargs) not in _WRITES)


class _Survey:
    """Where each kernel tensor is defined and written (inside which loops / ifs), and whether all its reads are
    plain ones."""

    def __init__(self, body: S.Stmt) -> None:
        self.defined: dict[int, tuple[E.Var, tuple[int, ...]]] = {}
        self.nested_writes: set[int] = set()  # written inside a loop / if that does not define it
        self.accounted: dict[int, int] = {}  # reads that are plain reads, write targets or returns
        self.unsafe_loops: set[int] = set()  # tensors written inside a loop with break / continue
        self._scan(body, ())

    def _scan(self, stmt: S.Stmt, path: tuple[int, ...], loops: tuple[S.Stmt, ...] = ()) -> None:
        for s in flatten_to_stmts(stmt):
            if isinstance(s, S.AssignStmt):
                if _computed_on_chip(s.value):
                    self.defined[id(s.var)] = (s.var, path)
                self._count_reads(s.value)
            elif isinstance(s, S.EvalStmt):
                target = _written_operand(s)
                if target is not None:
                    self._write(target, path, loops)
                self._count_reads(s.expr, target)
            elif isinstance(s, S.ReturnStmt):
                for v in s.value:
                    if isinstance(v, E.Var):
                        self.accounted[id(v)] = self.accounted.get(id(v), 0) + 1
            elif isinstance(s, (S.ForStmt, S.WhileStmt)):
                self._scan(s.body, (*path, id(s)), (*loops, s))
            elif isinstance(s, S.IfStmt):
                self._scan(s.then_body, (*path, id(s)), loops)
                if s.else_body is not None:
                    self._scan(s.else_body, (*path, id(s)), loops)
            elif isinstance(s, S.ScopeStmt):
                self._scan(s.body, path, loops)

    def _write(self, target: E.Var, path: tuple[int, ...], loops: tuple[S.Stmt, ...]) -> None:
        found = self.defined.get(id(target))
        if found is None or len(path) <= len(found[1]):
            return
        self.nested_writes.add(id(target))
        inner = {id(loop) for loop in loops} - set(found[1])
        if any(isinstance(n, (S.BreakStmt, S.ContinueStmt)) for loop in loops if id(loop) in inner
               for n in walk(loop.body)):  # type: ignore[attr-defined]
            self.unsafe_loops.add(id(target))

    def _count_reads(self, e: E.Expr, target: E.Var | None = None) -> None:
        for call in (n for n in walk(e) if isinstance(n, E.Call)):
            for a in {id(a): a for a in call.args if isinstance(a, E.Var)}.values():
                n = _plain_reads(call, a)
                if a is target and call is e:
                    n += 1
                self.accounted[id(a)] = self.accounted.get(id(a), 0) + n

    def carried(self, body: S.Stmt) -> dict[int, E.Var]:
        reads: dict[int, int] = {}
        for v in vars_read(body):
            reads[id(v)] = reads.get(id(v), 0) + 1
        return {key: self.defined[key][0] for key in self.nested_writes
                if key not in self.unsafe_loops and reads.get(key, 0) == self.accounted.get(key, 0)}


class _Threading:
    """The statement walk that turns in-place writes into versions and gives loops and ifs their carries."""

    def __init__(self, func: F.Function, carried: dict[int, E.Var]) -> None:
        self.carried = carried
        self.env: dict[int, E.Expr] = {}  # carried tensor -> its current version
        names = [p.name_hint for p in func.params] + [v.name_hint for v in collect_def_vars(func.body)]
        self.versions = VersionCounter(names)

    def _name(self, var: E.Var, role: str) -> str:
        base = user_base(var)
        return generated(base, role, self.versions.take(base))

    def _current(self, e: E.Expr) -> E.Expr:
        mapping = {self.carried[k]: v for k, v in self.env.items() if v is not self.carried[k]}
        return substitute_expr(e, mapping) if mapping else e

    def _written_inside(self, *bodies: S.Stmt | None) -> list[E.Var]:
        keys = {id(t) for b in bodies if b is not None for s in statements(b)
                if (t := _written_operand(s)) is not None}
        found = [self.carried[k] for k in keys if k in self.carried and k in self.env]
        return sorted(found, key=lambda v: v.name_hint)

    def block(self, body: S.Stmt) -> list[S.Stmt]:
        out: list[S.Stmt] = []
        for s in flatten_to_stmts(body):
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if isinstance(s, S.AssignStmt):
            if id(s.var) in self.carried:
                self.env[id(s.var)] = s.var
            value = self._current(s.value)
            return [s if value is s.value else s.with_fields(value=value)]  # type: ignore[list-item]
        if isinstance(s, S.EvalStmt):
            target = _written_operand(s)
            expr = self._current(s.expr)
            if target is not None and id(target) in self.carried and id(target) in self.env:
                version = E.Var(self._name(target, "ssa"), expr.type, s.span)
                self.env[id(target)] = version
                return [S.AssignStmt(version, expr, s.span, s.leading_comments)]
            return [s if expr is s.expr else s.with_fields(expr=expr)]  # type: ignore[list-item]
        if isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            values = [self._current(v) for v in s.value]
            return [s.with_fields(value=tuple(values))]  # type: ignore[list-item]
        if isinstance(s, (S.ForStmt, S.WhileStmt)):
            return [self._loop(s)]
        if isinstance(s, S.IfStmt):
            return [self._if(s)]
        if isinstance(s, S.ScopeStmt):
            return [s.with_fields(body=make_body(self.block(s.body), s.body.span))]  # type: ignore[list-item]
        return [s]

    def _loop(self, s: S.ForStmt | S.WhileStmt) -> S.Stmt:
        written = self._written_inside(s.body)
        # A carried tensor is read by no iter_arg's init (the survey), so the user's carries stay as they are.
        versions = [self.versions.take(user_base(t)) for t in written]  # one version per carry, as ConvertToSSA
        new_args = [E.IterArg(generated(user_base(t), "iter", v), t.type, self.env[id(t)], t.span)
                    for t, v in zip(written, versions)]
        new_rvs = [E.Var(generated(user_base(t), "rv", v), t.type, t.span) for t, v in zip(written, versions)]
        outer = dict(self.env)
        for t, ia in zip(written, new_args):
            self.env[id(t)] = ia
        stmts = self.block(s.body)
        values = [self.env[id(t)] for t in written]
        self.env = outer
        for t, rv in zip(written, new_rvs):
            self.env[id(t)] = rv
        changes: dict[str, Any] = {"iter_args": (*s.iter_args, *new_args),
                                   "body": append_to_yield(stmts, values, s.body.span),
                                   "return_vars": (*s.return_vars, *new_rvs)}
        return s.with_fields(**changes)

    def _if(self, s: S.IfStmt) -> S.Stmt:
        written = self._written_inside(s.then_body, s.else_body)
        condition = self._current(s.condition)
        outer = dict(self.env)
        branches: list[S.Stmt | None] = []
        for branch in (s.then_body, s.else_body):
            if branch is None and not written:
                branches.append(None)
                continue
            stmts = self.block(branch) if branch is not None else []
            values = [self.env[id(t)] for t in written]
            branches.append(append_to_yield(stmts, values, (branch or s).span))
            self.env = dict(outer)
        merges = [E.Var(self._name(t, "phi"), t.type, t.span) for t in written]
        for t, phi in zip(written, merges):
            self.env[id(t)] = phi
        return s.with_fields(condition=condition, then_body=branches[0], else_body=branches[1],
                             return_vars=(*s.return_vars, *merges))


def carry_in_place_writes(func: F.Function) -> F.Function:
    """`func` with every kernel tensor written in place inside a loop or an if carried through it explicitly."""
    carried = _Survey(func.body).carried(func.body)
    if not carried:
        return func
    body = _Threading(func, carried).block(func.body)
    return func.with_fields(body=make_body(body, func.body.span))  # type: ignore[return-value]
