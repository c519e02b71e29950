"""Cube <-> vector boundaries and the transfer pairs they become (docs/passes/expand_mixed_kernel.md, transfers).

A boundary is a statement that hands one tile across: `tile.aiv_shard` / `tile.aic_gather` (registry trait
`split_boundary`) or a `tile.move` between a cube space and Vec (MIXED affinity). The producer side pushes
the source tile, the consumer side pops into the boundary's variable:

* C->V: AIC `tile.tpush_to_aiv(src, split=code[, lane_stride=S])`, AIV `dst = tile.tpop_from_aic(...)`; a Vec
  pop keeps its type (view included);
* V->C: AIV `tile.tpush_to_aic(src, split=code)`, AIC `dst = tile.tpop_from_aiv(split=code)` whose type takes
  the backend's transfer view (NZ for Mat / Left / Right). A backend that requires the V->C fractal adapter
  gets `src_nz = tile.move(src, target_memory=Vec, blayout=col_major, slayout=row_major)` pushed instead,
  unless `src` already is NZ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace, TileLayout
from pypto_core.ir.span import Span
from pypto_core.ir.types import TileType, TileView, Type, dims_equal, implicit_layout
from pypto_core.ops.registry import create_op_call, get_op, opdef_of
from pypto_plugins.pass_split.mixed_kernel.split_codes import gather_code, shard_code
from pypto_plugins.pass_split.vector_split.auto_path import crossing

C2V, V2C = "c2v", "v2c"
PUSH_OP = {C2V: "tile.tpush_to_aiv", V2C: "tile.tpush_to_aic"}
POP_OP = {C2V: "tile.tpop_from_aic", V2C: "tile.tpop_from_aiv"}
FREE_OP = {C2V: "system.tfree_to_aic", V2C: "system.tfree_to_aiv"}


@dataclass(frozen=True, eq=False)
class Boundary:
    direction: str  # C2V | V2C
    source: E.Expr  # the tile the producer pushes
    result: E.Var  # what the consumer pops into
    code: int
    lane_stride: int | None
    span: Span


def boundary_of(s: S.Stmt, where: str, lanes: frozenset[int]) -> Boundary | None:
    if not (isinstance(s, S.AssignStmt) and isinstance(s.value, E.Call) and type(s.value.op) is E.Op):
        return None
    call = s.value
    opdef = opdef_of(call)
    kind = opdef.traits.split_boundary if opdef is not None else None
    if kind == C2V:
        stride = call.kwargs.get("lane_stride")
        return Boundary(C2V, call.args[0], s.var, shard_code(call, where, lanes, s.var.type), stride, s.span)
    if kind == V2C:
        return Boundary(V2C, call.args[0], s.var, gather_code(call, where, lanes), None, s.span)
    direction = crossing(call)
    if direction is None:
        return None
    return Boundary(direction, call.args[0], s.var, 0, None, s.span)


def _kwargs(code: int, lane_stride: int | None) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"split": code}
    if lane_stride is not None:
        kwargs["lane_stride"] = lane_stride
    return kwargs


def push(direction: str, tile: E.Expr, code: int, lane_stride: int | None, span: Span) -> S.EvalStmt:
    stride = lane_stride if direction == C2V else None
    return S.EvalStmt(create_op_call(PUSH_OP[direction], [tile], _kwargs(code, stride), span=span), span)


def pop(direction: str, var: E.Var, code: int, lane_stride: int | None, span: Span) -> S.AssignStmt:
    stride = lane_stride if direction == C2V else None
    call = E.Call(get_op(POP_OP[direction]), [], kwargs=_kwargs(code, stride), type=var.type, span=span)
    return S.AssignStmt(var, call, span)


def free(direction: str, popped: E.Var, span: Span) -> S.EvalStmt:
    return S.EvalStmt(create_op_call(FREE_OP[direction], [popped], span=span), span)


def popped_type(t: Type, backend: Any) -> Type:
    """The consumer's tile: the backend's cross-core transfer view (NZ for cube spaces, Vec kept)."""
    if not isinstance(t, TileType) or t.memory_space is None or t.memory_space is MemorySpace.Vec:
        return t
    view = backend.cross_core_transfer_view(t, t.memory_space)
    return TileType(t.shape, t.dtype, t.memref, view, t.memory_space)


def mat_type(t: TileType) -> TileType:
    """The Mat tile a V->C pop lands in: the destination's shape and dtype, its valid region, no layout."""
    valid = t.tile_view.valid_shape if t.tile_view is not None else ()
    view = TileView(valid_shape=valid) if valid and not dims_equal(valid, t.shape) else None
    return TileType(t.shape, t.dtype, None, view, MemorySpace.Mat)


def move_out_of_mat(mat: E.Var, dst: E.Var, span: Span) -> S.AssignStmt:
    """`dst = tile.move(mat, target_memory=S, blayout=..., slayout=...)`: the layouts of dst's effective view."""
    t = dst.type
    assert isinstance(t, TileType)
    view = t.effective_view()
    if t.tile_view is not None and t.tile_view.blayout is TileLayout.row_major and \
            t.tile_view.slayout is TileLayout.none_box:  # a view that only narrows the valid region
        blayout, slayout, _ = implicit_layout(t.shape, t.memory_space)
    else:
        blayout, slayout = view.blayout, view.slayout
    call = create_op_call("tile.move", [mat], {"target_memory": t.memory_space, "blayout": blayout,
                                               "slayout": slayout}, span=span)
    return S.AssignStmt(dst, call, span)


def is_nz(t: Type) -> bool:
    if not isinstance(t, TileType):
        return False
    view = t.effective_view()
    return view.blayout is TileLayout.col_major and view.slayout is TileLayout.row_major


def fractal_adapter(tile: E.Expr, name: str, span: Span) -> S.AssignStmt:
    """The Ascend950 V->C adapter: the pushed tile moved to an NZ Vec layout (docs/architecture.md, backends)."""
    call = create_op_call("tile.move", [tile], {"target_memory": MemorySpace.Vec, "blayout": TileLayout.col_major,
                                                "slayout": TileLayout.row_major}, span=span)
    return S.AssignStmt(E.Var(name, call.type, span), call, span)
