"""InferParamDirections (docs/passes/outline_incore_scopes.md, parameters): In / Out / InOut of each captured tensor, from the registry.

Evidence is collected as two flags per capture, read and write, and combined once at the end:
  * an op argument contributes what the registry declares for that slot (Write is not a read);
  * an argument of a program function contributes what the callee's parameter direction says
    (In -> read, Out -> write, InOut -> both), so a capture passed only to Out slots stays Out;
  * SSA aliases of a capture (results of in-place writes, copies, carries) count as the capture;
  * loop initial values, yields and copies only move the buffer: they are not accesses;
  * anything unrecognised is a read, so the inference can only lean towards InOut.
`dump_vars` / `arg_direction_overrides_vars` are bookkeeping, never reads.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pypto_core.analysis.lineage import Lineage
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ParamDirection
from pypto_core.ir.types import TensorType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of


@dataclass
class Evidence:
    read: bool = False
    write: bool = False

    def direction(self) -> ParamDirection:
        if self.write:
            return ParamDirection.InOut if self.read else ParamDirection.Out
        return ParamDirection.In


class _Scan:
    def __init__(self, captured: Sequence[E.Var], lineage: Lineage,
                 callee_directions: Mapping[str, Sequence[ParamDirection]]) -> None:
        self.ids = {id(v): i for i, v in enumerate(captured)}
        self.evidence = [Evidence() for _ in captured]
        self.lineage = lineage
        self.callee_directions = callee_directions

    def _capture(self, e: E.Expr) -> Evidence | None:
        root = self.lineage.root(e) if isinstance(e, E.Var) else None
        if root is None:
            return None
        idx = self.ids.get(id(root))
        return self.evidence[idx] if idx is not None else None

    # -- expressions ----------------------------------------------------------------------------
    def read_context(self, e: E.Expr) -> None:
        """`e` appears where its content is used: every capture inside it is read."""
        if isinstance(e, E.Var):
            ev = self._capture(e)
            if ev is not None:
                ev.read = True
            return
        if isinstance(e, E.Call):
            self.call(e)
            return
        for spec in e.COMPARED_FIELDS:
            if spec.name == "type":
                continue
            value = getattr(e, spec.name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, E.Expr):
                    self.read_context(item)

    def call(self, c: E.Call) -> None:
        if isinstance(c.op, E.GlobalVar):
            dirs = self.callee_directions.get(c.op.name)
            for j, arg in enumerate(c.args):
                ev = self._capture(arg)
                if ev is None or dirs is None or j >= len(dirs):
                    self.read_context(arg)
                    continue
                ev.read |= dirs[j] in (ParamDirection.In, ParamDirection.InOut)
                ev.write |= dirs[j] in (ParamDirection.Out, ParamDirection.InOut)
            return
        opdef = opdef_of(c)
        for j, arg in enumerate(c.args):
            ev = self._capture(arg)
            if ev is None or opdef is None:
                self.read_context(arg)
                continue
            effect = opdef.arg_effect(j, c.kwargs)
            ev.read |= effect in (Effect.READ, Effect.READ_WRITE)
            ev.write |= effect in (Effect.WRITE, Effect.READ_WRITE)

    def moved(self, e: E.Expr) -> None:
        """A position that only passes the buffer along (copy, yield, init value)."""
        if isinstance(e, E.Var) and self._capture(e) is not None:
            return
        self.read_context(e)

    # -- statements -----------------------------------------------------------------------------
    def stmt(self, s: S.Stmt | None) -> None:
        for x in flatten_to_stmts(s):
            if isinstance(x, S.AssignStmt):
                self.moved(x.value)
            elif isinstance(x, S.EvalStmt):
                self.read_context(x.expr)
            elif isinstance(x, S.YieldStmt):
                for v in x.value:
                    self.moved(v)
            elif isinstance(x, S.ReturnStmt):
                for v in x.value:
                    self.read_context(v)
            elif isinstance(x, (S.ForStmt, S.WhileStmt)):
                if isinstance(x, S.ForStmt):
                    for e in (x.start, x.stop, x.step):
                        self.read_context(e)
                else:
                    self.read_context(x.condition)
                for a in x.iter_args:
                    self.moved(a.initValue)
                self.stmt(x.body)
            elif isinstance(x, S.IfStmt):
                self.read_context(x.condition)
                self.stmt(x.then_body)
                self.stmt(x.else_body)
            elif isinstance(x, S.ScopeStmt):
                self.stmt(x.body)  # attrs (dump_vars, no_dep_args, ...) are bookkeeping


def infer_param_directions(body: S.Stmt, captured: Sequence[E.Var],
                           callee_directions: Mapping[str, Sequence[ParamDirection]],
                           callee_returns: Mapping[str, list[int | None]]) -> list[ParamDirection]:
    """Direction of each captured variable; only tensors can be Out/InOut."""
    lineage = Lineage(callee_returns).scan(body)
    scan = _Scan(captured, lineage, callee_directions)
    scan.stmt(body)
    out = []
    for var, ev in zip(captured, scan.evidence):
        out.append(ev.direction() if isinstance(var.type, TensorType) else ParamDirection.In)
    return out
