"""Memory-space demands: where each tile variable's consumers want it (InferTileMemorySpace, step 1).

Each operand the registry constrains (OpDef.input_memory) demands its first allowed space. A non-Vec
demand wins over Vec, and the first non-Vec demand met stays (the others get moves). Demands flow
backwards through ops whose result inherits an input's space (slice, reshape, transpose, ...), through
`y = x`, into loop inits and branch yields, all in one reverse sweep: consumers come before producers
when the statements are walked backwards.
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ops.registry import opdef_of


def inherited_operand(call: E.Call) -> int | None:
    """The operand whose space the call's result takes (the registry's rule, else the first tile)."""
    opdef = opdef_of(call)
    if opdef is None:
        return None
    om = opdef.output_memory
    if om is not None:
        return om.inherit_input
    for i, a in enumerate(call.args):
        if isinstance(a.type, TileType):
            return i
    return None


class Demands:
    def __init__(self) -> None:
        self.space: dict[int, MemorySpace] = {}

    def get(self, e: E.Expr) -> MemorySpace | None:
        return self.space.get(id(e))

    def add(self, e: E.Expr, space: MemorySpace) -> None:
        if not isinstance(e, E.Var):
            return
        old = self.space.get(id(e))
        if old is None or (old is MemorySpace.Vec and space is not MemorySpace.Vec):
            self.space[id(e)] = space

    # -- the sweep -------------------------------------------------------------------------------
    def call(self, call: E.Call, wanted: MemorySpace | None) -> None:
        """A call whose result is demanded in `wanted`: its operands' demands (nested calls too)."""
        opdef = opdef_of(call)
        if opdef is None:
            return
        inherit = inherited_operand(call) if wanted is not None else None
        for i, arg in enumerate(call.args):
            allowed = opdef.accepted_spaces(i)
            demand = allowed[0] if allowed and isinstance(arg.type, TileType) else None
            if demand is None and i == inherit:
                demand = wanted
            if isinstance(arg, E.Call):
                self.call(arg, demand)
            elif demand is not None:
                self.add(arg, demand)

    def expr(self, e: E.Expr, result: E.Expr | None) -> None:
        wanted = self.get(result) if result is not None else None
        if isinstance(e, E.Call):
            self.call(e, wanted)
        elif isinstance(e, E.Var) and wanted is not None:
            self.add(e, wanted)

    def body(self, stmt: S.Stmt | None) -> None:
        for s in reversed(flatten_to_stmts(stmt)):
            self.stmt(s)

    def _flow(self, targets: tuple[E.Var, ...], sources: tuple[E.Expr, ...]) -> None:
        for t, v in zip(targets, sources):
            wanted = self.get(t)
            if wanted is not None:
                self.add(v, wanted)

    def stmt(self, s: S.Stmt) -> None:
        if isinstance(s, S.AssignStmt):
            self.expr(s.value, s.var)
        elif isinstance(s, (S.EvalStmt,)):
            self.expr(s.expr, None)
        elif isinstance(s, (S.ReturnStmt, S.YieldStmt)):
            for v in s.value:
                self.expr(v, None)
        elif isinstance(s, (S.ForStmt, S.WhileStmt)):
            self._loop(s)
        elif isinstance(s, S.IfStmt):
            for branch in (s.then_body, s.else_body):
                last = flatten_to_stmts(branch)[-1:] if branch is not None else []
                if last and isinstance(last[0], S.YieldStmt):
                    self._flow(s.return_vars, last[0].value)
                self.body(branch)
        elif isinstance(s, S.ScopeStmt):
            self.body(s.body)

    def _loop(self, s: S.ForStmt | S.WhileStmt) -> None:
        last = flatten_to_stmts(s.body)[-1:]
        if last and isinstance(last[0], S.YieldStmt):
            self._flow(s.return_vars, last[0].value)
        self.body(s.body)
        self._flow(s.iter_args, tuple(ia.initValue for ia in s.iter_args))


def collect_demands(body: S.Stmt) -> Demands:
    demands = Demands()
    demands.body(body)
    return demands
