"""The V->C fractal adapter of hand-written pushes (docs/passes/expand_mixed_kernel.md, backends): on a backend
with `requires_vtoc_fractal_adapt` (Ascend950) every AIV function the pass emits -- passed through as written,
or an InCore body that became AIV -- pushes to the cube only tiles in the boundary's NZ view. A statement
`tile.tpush_to_aic(x, ...)` whose x is not NZ becomes `x_nz = tile.move(x, target_memory=Vec,
blayout=col_major, slayout=row_major)` and the same push of x_nz (kwargs and attrs kept). An NZ tile is left
alone, so a second run changes nothing.
"""

from __future__ import annotations

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.ops.opdef import CoreAffinity, CrossCoreRole
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.mixed_kernel import transfers as T


def _v2c_push(s: S.Stmt) -> E.Call | None:
    if not isinstance(s, S.EvalStmt) or not isinstance(s.expr, E.Call) or type(s.expr.op) is not E.Op:
        return None
    opdef = opdef_of(s.expr)
    if opdef is None or opdef.cross_core_role is not CrossCoreRole.PUSH or len(s.expr.args) != 1:
        return None
    return s.expr if classify_call_affinity(s.expr) is CoreAffinity.VECTOR else None


class _Adapter:
    def __init__(self, func: F.Function) -> None:
        self.fresh = FreshNames(func)
        self.changed = False

    def block(self, body: S.Stmt) -> S.Stmt:
        out: list[S.Stmt] = []
        for s in flatten_to_stmts(body):
            out.extend(self.stmt(s))
        return make_body(out, body.span)

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        push = _v2c_push(s)
        if push is not None:
            tile = push.args[0]
            if T.is_nz(tile.type):
                return [s]
            base = tile.name_hint if isinstance(tile, E.Var) else "tile"
            adapter = T.fractal_adapter(tile, self.fresh(f"{base}_nz"), s.span)
            self.changed = True
            return [adapter, s.with_fields(expr=push.with_fields(args=(adapter.var,)))]
        if isinstance(s, (S.ForStmt, S.WhileStmt, S.ScopeStmt)):
            return [s.with_fields(body=self.block(s.body))]
        if isinstance(s, S.IfStmt):
            else_body = None if s.else_body is None else self.block(s.else_body)
            return [s.with_fields(then_body=self.block(s.then_body), else_body=else_body)]
        return [s]


def adapt_vtoc_pushes(func: F.Function) -> F.Function:
    adapter = _Adapter(func)
    body = adapter.block(func.body)
    return func.with_fields(body=body) if adapter.changed else func  # type: ignore[return-value]
