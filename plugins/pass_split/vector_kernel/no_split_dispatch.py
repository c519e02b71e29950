"""The no-split dual-AIV dispatch (docs/passes/split_vector_kernel.md, what it does): on a backend that requires it,
an AIV function marked `dual_aiv_dispatch` runs on both AIV lanes, lane 0 doing the real work and lane 1 a
replay on empty tiles (lane_replay.py), so the cube sees the same handshakes from both lanes.

    subblock_idx = tile.get_subblock_idx()      # one, injected unless the body starts with it
    <the leading pipe setup: reserve_buffer / import_peer_buffer / *_initialize_pipe>   # both lanes
    if subblock_idx == 0: <the body>  else: <lane 1's replay>
    return ...                                   # the values lane 0 returns; a store result is its tensor

A returned value the branches define (other than a parameter's buffer) is merged by the if.
"""

from __future__ import annotations

from pypto_core.analysis.lineage import Lineage
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import scalar_ops
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.fresh_names import FreshNames, user_base
from pypto_core.ir.types import ScalarType
from pypto_core.ir.utils import deep_clone, flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CrossCoreRole
from pypto_core.ops.registry import create_op_call, opdef_of
from pypto_plugins.pass_split.vector_kernel.lane_replay import Lane1Replay


def _op(s: S.Stmt) -> object | None:
    value = s.value if isinstance(s, S.AssignStmt) else s.expr if isinstance(s, S.EvalStmt) else None
    if isinstance(value, E.Call) and type(value.op) is E.Op:
        return opdef_of(value)
    return None


def _is_lane_index(s: S.Stmt) -> bool:
    opdef = _op(s)
    return isinstance(s, S.AssignStmt) and opdef is not None and opdef.traits.lane_index  # type: ignore[attr-defined]


def _is_pipe_setup(s: S.Stmt) -> bool:
    opdef = _op(s)
    return opdef is not None and opdef.cross_core_role is CrossCoreRole.PIPE_SETUP  # type: ignore[attr-defined]


class _Defined(IRVisitor):
    def __init__(self) -> None:
        self.ids: set[int] = set()

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        self.ids.add(id(s.var))
        super().visit_assign_stmt(s)

    def visit_for_stmt(self, s: S.ForStmt) -> None:
        self.ids.update(id(v) for v in s.return_vars)
        super().visit_for_stmt(s)

    def visit_while_stmt(self, s: S.WhileStmt) -> None:
        self.ids.update(id(v) for v in s.return_vars)
        super().visit_while_stmt(s)

    def visit_if_stmt(self, s: S.IfStmt) -> None:
        self.ids.update(id(v) for v in s.return_vars)
        super().visit_if_stmt(s)


def dual_dispatch_body(func: F.Function) -> F.Function:
    stmts = flatten_to_stmts(func.body)
    fresh = FreshNames(func)
    if stmts and _is_lane_index(stmts[0]):
        lane_stmt, stmts = stmts[0], stmts[1:]
        lane = lane_stmt.var  # type: ignore[attr-defined]
    else:
        lane = E.Var(fresh("subblock_idx"), ScalarType(DataType.INDEX), func.span)
        lane_stmt = S.AssignStmt(lane, create_op_call("tile.get_subblock_idx", [], span=func.span), func.span)
    prefix: list[S.Stmt] = []
    while stmts and _is_pipe_setup(stmts[0]):
        prefix.append(stmts.pop(0))
    ret = stmts.pop() if stmts and isinstance(stmts[-1], S.ReturnStmt) else None
    lane1 = Lane1Replay()
    replay = lane1.block(stmts)
    branch_stmts, returns, merged = list(stmts), [], []
    if ret is not None:
        defined = _Defined()
        for s in stmts:
            defined.visit_stmt(s)
        lineage = Lineage().scan(func.body)
        params = {id(p) for p in func.params}
        then_yield, else_yield = [], []
        for v in ret.value:
            root = lineage.root(v) if isinstance(v, E.Var) else None
            if not (isinstance(v, E.Var) and id(v) in defined.ids):
                returns.append(v)  # a parameter, or a value of the prefix: the same on both lanes
            elif root is not None and id(root) in params:
                returns.append(root)  # the buffer a store wrote (docs/passes/split_vector_kernel.md: lane 1 passes the target through)
            else:
                rv = E.Var(fresh(user_base(v)), v.type, v.span)
                merged.append(rv)
                then_yield.append(v)
                else_yield.append(lane1.sub(v))
                returns.append(rv)
        if merged:
            branch_stmts.append(S.YieldStmt(then_yield, ret.span))
            replay.append(S.YieldStmt(else_yield, ret.span))
    condition = scalar_ops.eq(lane, E.ConstInt(0, DataType.INDEX))
    dispatch = S.IfStmt(condition, make_body(branch_stmts, func.body.span), make_body(replay, func.body.span),
                        merged, func.body.span)
    body = [lane_stmt, *prefix, dispatch]
    if ret is not None:
        body.append(S.ReturnStmt(returns, ret.span))
    return deep_clone(func.with_fields(body=make_body(body, func.body.span)))  # type: ignore[arg-type]
