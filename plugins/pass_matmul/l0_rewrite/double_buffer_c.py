"""The dbC plan of a user's own pipelined matmul loop (docs/passes/auto_tile_matmul_l0.md, user pipelines):
a `pl.pipeline` whose every iteration computes one L0C tile and drains it through the loop's carry may
double-buffer L0C, so the drain of one tile overlaps the next tile's matmul. Such a loop gets the attrs
`pipeline_overlap_stores=False, pipeline_double_buffer_c=True` when:

* its trip count is static and a multiple of its stage count F >= 2;
* its body computes exactly one first-block matmul of a Left and a Right operand, one of them made in the body
  from a Mat tile (the moving operand), the other defined outside the loop;
* that result is drained once, through the carry: a store into the carried tensor yielded back (at least 4
  trips) or an assemble into the carried tile yielded back (at least 8 trips, an Acc tile of at least L0C / 4);
* every Acc tile of the function, plus one more of each such loop's tile, fits L0C together;
* the planner double-buffers L0C (PTOAS, DSA_RP, or PYPTO with `enable_pypto_l0c_double_buffer`).

A loop that already has `pipeline_double_buffer_c` is left alone. Matmuls, stores and assembles are the
registry's answer (the `l0_matmul`, `l0_result_store` and `l0_result_assemble` op interfaces).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.memory import tile_bytes
from pypto_core.analysis.walk import op_calls, statements, vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ForKind, MemorySpace
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import collect_def_vars, flatten_to_stmts
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.registry import op_registry
from pypto_plugins.pass_matmul.interfaces import L0_MATMUL, L0_RESULT_ASSEMBLE, L0_RESULT_STORE

DOUBLE_BUFFER_C = "pipeline_double_buffer_c"
OVERLAP_STORES = "pipeline_overlap_stores"
STORE_DRAIN_MIN_TRIPS = 4  # a store drain overlaps only over enough tiles
ASSEMBLE_DRAIN_MIN_TRIPS = 8
ASSEMBLE_MIN_L0C_SHARE = 4  # an assembled Acc tile of at least L0C / 4


@dataclass(frozen=True)
class DrainedLoop:
    loop: S.ForStmt
    acc_bytes: int


def _static(e: E.Expr) -> int | None:
    return e.value if isinstance(e, E.ConstInt) else None


def _implementation(interface: Any, call: E.Call) -> Any:
    return op_registry().implementation(interface.name, call.op.name) if type(call.op) is E.Op else None


def _reads(var: E.Var, node: Any) -> int:
    return sum(1 for v in vars_read(node) if v is var)


def drained_loop(loop: S.ForStmt, backend: Any) -> DrainedLoop | None:
    """The loop and its L0C tile's bytes when it is a pipelined one-tile-per-iteration matmul loop."""
    stages = int(loop.attrs.get("pipeline_stages", 0) or 0)
    if loop.kind is not ForKind.Pipeline or stages < 2 or DOUBLE_BUFFER_C in loop.attrs:
        return None
    start, stop, step = _static(loop.start), _static(loop.stop), _static(loop.step)
    if start is None or stop is None or not step or step <= 0 or stop <= start:
        return None
    trips = -(-(stop - start) // step)
    if trips % stages:
        return None
    matmuls = [c for c in op_calls(loop.body) if (f := _implementation(L0_MATMUL, c)) is not None
               and f.acc is None and f.bias is None and len(c.args) == f.arity]
    if len(matmuls) != 1:
        return None
    body = flatten_to_stmts(loop.body)
    product = next((s for s in body if isinstance(s, S.AssignStmt) and s.value is matmuls[0]), None)
    if product is None or not _operands_stream(matmuls[0], loop):
        return None
    acc_type = product.var.type
    if not isinstance(acc_type, TileType) or acc_type.memory_space is not MemorySpace.Acc:
        return None
    acc_bytes = tile_bytes(acc_type, backend)
    if acc_bytes is None:
        return None
    need = _drain_trips(product.var, body, loop, acc_bytes, backend)
    if need is None or trips < need:
        return None
    return DrainedLoop(loop, acc_bytes)


def _operands_stream(call: E.Call, loop: S.ForStmt) -> bool:
    """Left and Right operands: one made in the body from a Mat tile, the other defined outside the loop."""
    form = _implementation(L0_MATMUL, call)
    lhs, rhs = call.args[form.lhs], call.args[form.rhs]
    spaces = [getattr(a.type, "memory_space", None) for a in (lhs, rhs)]
    if spaces != [MemorySpace.Left, MemorySpace.Right]:
        return False
    made = {id(v): s for s in statements(loop.body) if isinstance(s, S.AssignStmt) for v in [s.var]}
    inside = [id(a) in made for a in (lhs, rhs)]
    if inside.count(True) != 1:
        return False
    moving = made[id(lhs if inside[0] else rhs)]
    if not isinstance(moving.value, E.Call) or not moving.value.args:
        return False
    source = moving.value.args[0].type
    return isinstance(source, TileType) and source.memory_space is MemorySpace.Mat


def _drain_trips(acc: E.Var, body: list[S.Stmt], loop: S.ForStmt, acc_bytes: int, backend: Any) -> int | None:
    """The trips the drain of `acc` through the carry needs, or None when it is not drained so."""
    if len(loop.iter_args) != 1 or not body or not isinstance(body[-1], S.YieldStmt) or _reads(acc, body) != 1:
        return None
    carry, yielded = loop.iter_args[0], body[-1].value
    if len(yielded) != 1:
        return None
    for stmt in body:
        if not isinstance(stmt, S.AssignStmt) or not isinstance(stmt.value, E.Call) or stmt.var is not yielded[0]:
            continue
        call = stmt.value
        store = _implementation(L0_RESULT_STORE, call)
        if store is not None and call.args[store.tile] is acc and call.args[store.target] is carry:
            return STORE_DRAIN_MIN_TRIPS
        assemble = _implementation(L0_RESULT_ASSEMBLE, call)
        if assemble is not None and call.args[assemble.tile] is acc and call.args[assemble.target] is carry:
            if acc_bytes * ASSEMBLE_MIN_L0C_SHARE < backend.capacity(MemorySpace.Acc):
                return None
            return ASSEMBLE_DRAIN_MIN_TRIPS
    return None


def _acc_bytes(body: S.Stmt, backend: Any) -> int:
    """An upper bound of the function's Acc use: every Acc tile it defines, live together."""
    total = 0
    for var in collect_def_vars(body):
        t = var.type
        if isinstance(t, TileType) and t.memory_space is MemorySpace.Acc and not isinstance(var, E.IterArg):
            total += tile_bytes(t, backend) or 0
    return total


def plan_double_buffer_c(body: S.Stmt, backend: Any) -> S.Stmt | None:
    """The body with the qualifying loops marked, or None when none qualifies."""
    found = [d for s in statements(body) if isinstance(s, S.ForStmt) and (d := drained_loop(s, backend))]
    if not found:
        return None
    if _acc_bytes(body, backend) + sum(d.acc_bytes for d in found) > backend.capacity(MemorySpace.Acc):
        return None
    marked = {id(d.loop) for d in found}
    return _Marker(marked).visit_stmt(body)


class _Marker(IRMutator):
    """Adds the dbC attrs to the loops found (matched by identity before their bodies are visited)."""

    def __init__(self, loops: set[int]) -> None:
        self.loops = loops

    def visit_for_stmt(self, s: S.ForStmt) -> S.Stmt:
        mark = id(s) in self.loops
        new = super().visit_node(s)
        if not mark:
            return new  # type: ignore[return-value]
        attrs = {**dict(new.attrs), OVERLAP_STORES: False, DOUBLE_BUFFER_C: True}  # type: ignore[attr-defined]
        return new.with_fields(attrs=attrs)  # type: ignore[return-value]
