"""Return lineage: which buffer a tensor value is, traced back through in-place writes (docs/passes/outline_incore_scopes.md).

A call whose result has the type of an argument the registry declares Write/ReadWrite returns that
argument's buffer (tile.store -> its target, tensor.assemble -> its target); a call of a program
function that returns one of its own parameters returns the corresponding argument's buffer;
copies, tuple projections, loop carries and if-merges whose branches agree keep the lineage.
"""

from __future__ import annotations

from collections.abc import Mapping

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of


def written_arg_index(call: E.Call, callee_returns: Mapping[str, list[int | None]] | None = None,
                      result_index: int = 0) -> int | None:
    """The argument whose buffer an op/function call returns (as its `result_index`-th result), if any."""
    if isinstance(call.op, E.GlobalVar):
        params = (callee_returns or {}).get(call.op.name)
        if params is None or result_index >= len(params):
            return None
        return params[result_index]
    opdef = opdef_of(call)
    if opdef is None or not (callable(opdef.effects) or opdef.effects):
        return None  # most ops write nothing: no per-argument scan
    hits = [i for i, eff in opdef.arg_effects(call.kwargs).items()
            if eff in (Effect.WRITE, Effect.READ_WRITE) and i < len(call.args)
            and structural_equal(call.args[i].type, call.type)]
    return hits[0] if len(hits) == 1 else None


class Lineage:
    """Maps variables to the variable whose buffer they are (a root has no entry)."""

    def __init__(self, callee_returns: Mapping[str, list[int | None]] | None = None) -> None:
        self.parent: dict[int, E.Var] = {}
        self.callee_returns = callee_returns or {}
        # Tuple-valued function results: result index -> the buffer that result is.
        self.tuple_items: dict[int, dict[int, E.Var | None]] = {}
        self.calls_functions = False  # the scan met a call of a program function (callee_returns matter)

    def root(self, v: E.Expr | None) -> E.Var | None:
        if not isinstance(v, E.Var):
            return None
        seen = 0
        while id(v) in self.parent and seen < 10_000:
            v = self.parent[id(v)]
            seen += 1
        return v

    def source_of(self, value: E.Expr) -> E.Var | None:
        """The variable `value` aliases, if it is a copy or an in-place write of one."""
        if isinstance(value, E.Var):
            return value
        if isinstance(value, E.Call):
            idx = written_arg_index(value, self.callee_returns)
            if idx is not None:
                return self.root(value.args[idx])
        return None

    def scan(self, stmt: S.Stmt | None) -> Lineage:
        for s in flatten_to_stmts(stmt):
            self._scan_one(s)
        return self

    def _link(self, var: E.Var, src: E.Var | None) -> None:
        if src is not None and src is not var:
            self.parent[id(var)] = src

    def _scan_one(self, s: S.Stmt) -> None:
        if isinstance(s, S.AssignStmt):
            value = s.value
            if isinstance(value, E.TupleGetItemExpr) and isinstance(value.tuple, E.Var):
                self._link(s.var, self.tuple_items.get(id(value.tuple), {}).get(value.index))
            else:
                self._link(s.var, self.source_of(value))
            if isinstance(value, E.Call) and isinstance(value.op, E.GlobalVar):
                self.calls_functions = True
                items = {}
                for i in range(len(self.callee_returns.get(value.op.name, []))):
                    idx = written_arg_index(value, self.callee_returns, i)
                    if idx is not None:
                        items[i] = self.root(value.args[idx])
                self.tuple_items[id(s.var)] = items
        elif isinstance(s, (S.ForStmt, S.WhileStmt)):
            for a in s.iter_args:
                self._link(a, self.root(a.initValue) if isinstance(a.initValue, E.Var) else None)
            self.scan(s.body)
            y = _trailing_yield(s.body)
            for j, (a, r) in enumerate(zip(s.iter_args, s.return_vars)):
                if y is not None and j < len(y.value) and self.root(y.value[j]) is self.root(a):
                    self._link(r, self.root(a))
        elif isinstance(s, S.IfStmt):
            self.scan(s.then_body)
            self.scan(s.else_body)
            ty, ey = _trailing_yield(s.then_body), _trailing_yield(s.else_body)
            for j, r in enumerate(s.return_vars):
                if ty is None or ey is None or j >= len(ty.value) or j >= len(ey.value):
                    continue
                a, b = self.root(ty.value[j]), self.root(ey.value[j])
                if a is not None and a is b:
                    self._link(r, a)
        elif isinstance(s, S.ScopeStmt):
            self.scan(s.body)


def _trailing_yield(body: S.Stmt | None) -> S.YieldStmt | None:
    stmts = flatten_to_stmts(body)
    return stmts[-1] if stmts and isinstance(stmts[-1], S.YieldStmt) else None
