"""Matmul operand loads left without a space become Mat bridge loads before tiling
(docs/passes/auto_tile_matmul_l0.md, operands ConvertTensorToTileOps left without a space).

pypto's ConvertTensorToTileOps leaves a tensor-level matmul's operand loads without a space
(`target_memory=None`) for InferTileMemorySpace, which runs later and would place them in Mat (their
demand, Left / Right, clamped to what a load can reach). PyPTO's ConvertTensorToTileOps stamps Mat on them
(and the bridge marker) at once, which is what lets AutoTileMatmulL0 tile them: this step gives them that
form, so the same programs are tiled. The result is what InferTileMemorySpace would decide anyway.
"""

from __future__ import annotations

from pypto_core.analysis.walk import statements
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import substitute_stmt
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.registry import create_op_call, opdef_of
from pypto_core.ops.retyping import FollowDerivedTypes
from pypto_plugins.pass_matmul.l0_rewrite.candidate import matmul_site

MAT_BRIDGE_MARKER = "__compiler_tensor_to_tile_mat_bridge"


def place_operand_loads_in_mat(func: F.Function) -> F.Function:
    """`func` with each matmul operand (lhs, rhs) defined by a space-less load re-made as a marked Mat load."""
    defs = {id(s.var): s for s in statements(func.body) if isinstance(s, S.AssignStmt)}
    remade: dict[int, S.AssignStmt] = {}  # id(old load statement) -> the Mat load statement
    mapping: dict[E.Var, E.Expr] = {}
    for s in statements(func.body):
        site = matmul_site(s)
        for operand in (site.lhs, site.rhs) if site is not None else ():
            load = defs.get(id(operand))
            if operand in mapping or load is None:
                continue
            bridge = _as_mat_bridge(load)
            if bridge is not None:
                remade[id(load)] = bridge
                mapping[operand] = bridge.var
    if not mapping:
        return func
    body = substitute_stmt(_Rebind(remade).visit_stmt(func.body), mapping)
    func = func.with_fields(body=body)  # type: ignore[assignment]
    return func.with_fields(body=FollowDerivedTypes(func, _space_follows).body(func.body))  # type: ignore[return-value]


def _as_mat_bridge(load: S.AssignStmt) -> S.AssignStmt | None:
    call = load.value
    if not isinstance(call, E.Call) or not isinstance(load.var.type, TileType):
        return None
    opdef = opdef_of(call)
    retarget = opdef.retarget_kwarg if opdef is not None else None
    if opdef is None or retarget is None or not opdef.traits.gm_transfer or not retarget.deferred:
        return None
    if call.kwargs.get(retarget.name) is not None or (retarget.choices and MemorySpace.Mat not in retarget.choices):
        return None
    mat = create_op_call(call.op.name, list(call.args), {**call.kwargs, retarget.name: MemorySpace.Mat},
                         span=call.span)
    mat = mat.with_fields(attrs={**call.attrs, MAT_BRIDGE_MARKER: True})
    return S.AssignStmt(E.Var(load.var.name_hint, mat.type, load.var.span), mat, load.span, load.leading_comments)


def _space_follows(old: TileType, derived: TileType) -> TileType | None:
    """A value computed from a load now in Mat, whose type names no space yet, takes the space its op's type
    rule derives (a `tile.transpose` of a Mat operand is in Mat)."""
    if old.memory_space is not None or derived.memory_space is None:
        return None
    return old.with_fields(memory_space=derived.memory_space)  # type: ignore[return-value]


class _Rebind(IRMutator):
    def __init__(self, remade: dict[int, S.AssignStmt]) -> None:
        self.remade = remade

    def visit_assign_stmt(self, a: S.AssignStmt) -> S.Stmt:
        return self.remade.get(id(a)) or super().visit_node(a)  # type: ignore[return-value]
