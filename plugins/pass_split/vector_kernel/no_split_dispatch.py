"""The no-split dual-AIV dispatch (docs/passes/split_vector_kernel.md, what it does): on a backend that requires it,
an AIV function marked `dual_aiv_dispatch` runs on both AIV lanes, lane 0 doing the real work and lane 1 a
replay on empty tiles (lane_replay.py), so the cube sees the same handshakes from both lanes.

    subblock_idx = tile.get_subblock_idx()      # always injected (a fresh name if `subblock_idx` is taken)
    <the leading pipe setup: the registry's PIPE_SETUP ops>   # both lanes
    if subblock_idx == 0:
        <the rest of the body, unchanged, its return included>
    else:
        <lane 1's replay of the same statements, ending in its own return>

The if has no return variables and nothing follows it: each lane returns from its own branch (lane 1 returns
the buffers its stores would have written, docs/passes/split_vector_kernel.md).
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import scalar_ops
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.types import ScalarType
from pypto_core.ir.utils import deep_clone, flatten_to_stmts, make_body
from pypto_core.ops.opdef import CrossCoreRole
from pypto_core.ops.registry import create_op_call, opdef_of
from pypto_plugins.pass_split.vector_kernel.lane_replay import Lane1Replay

LANE_NAME = "subblock_idx"


def _is_pipe_setup(s: S.Stmt) -> bool:
    """A pipe-setup statement (registry: cross-core role PIPE_SETUP -- reserve / import a slot buffer,
    initialize a pipe), run by both lanes before the dispatch."""
    value = s.value if isinstance(s, S.AssignStmt) else s.expr if isinstance(s, S.EvalStmt) else None
    if not (isinstance(value, E.Call) and type(value.op) is E.Op):
        return False
    opdef = opdef_of(value)
    return opdef is not None and opdef.cross_core_role is CrossCoreRole.PIPE_SETUP


def dual_dispatch_body(func: F.Function) -> F.Function:
    stmts = flatten_to_stmts(func.body)
    span = func.body.span
    lane = E.Var(FreshNames(func)(LANE_NAME), ScalarType(DataType.INDEX), func.span)
    lane_stmt = S.AssignStmt(lane, create_op_call("tile.get_subblock_idx", [], span=func.span), func.span)
    setup = 0
    while setup < len(stmts) and _is_pipe_setup(stmts[setup]):
        setup += 1
    prefix, rest = stmts[:setup], stmts[setup:]
    replay = Lane1Replay(frozenset(p.name_hint for p in func.params)).block(rest)
    condition = scalar_ops.eq(lane, E.ConstInt(0, DataType.INDEX))
    dispatch = S.IfStmt(condition, make_body(rest, span), make_body(replay, span), [], span)
    # Deep-cloned: lane 1's fresh variables and the parameters are new objects (names kept).
    return deep_clone(func.with_fields(body=make_body([lane_stmt, *prefix, dispatch], span)))  # type: ignore[arg-type]
