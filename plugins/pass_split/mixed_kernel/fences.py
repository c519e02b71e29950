"""GM fences (docs/passes/expand_mixed_kernel.md, GM fences): a cube store and a later vector load of the same GM origin run on different
cores after the split, with nothing ordering them. When the store is that origin's only store, both sit in
the same structural body and the store comes first, the AIC pushes a token right after the store and the
AIV pops (and frees) it right before the load: the load then happens after the store.

The token is the smallest Acc tile, one 16 x 16 FP32 fractal (1 KiB); it counts toward the pipe's slot_size
like any transfer.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.fresh_names import FreshNames, user_base
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.build import to_tuple
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import create_op_call, opdef_of
from pypto_plugins.pass_split.mixed_kernel import transfers as T
from pypto_plugins.pass_split.mixed_kernel.aliases import gm_origin, written_tensor

TOKEN_SHAPE = (16, 16)
TOKEN_DTYPE = DataType.FP32


@dataclass(frozen=True, eq=False)
class Fence:
    name: str
    span: Span

    def push_stmts(self) -> list[S.Stmt]:
        """AIC: a token tile, pushed to the AIV lanes."""
        create = create_op_call("tile.create", [to_tuple(list(TOKEN_SHAPE))],
                                {"dtype": TOKEN_DTYPE, "target_memory": MemorySpace.Acc}, span=self.span)
        token = E.Var(self.name, create.type, self.span)
        return [S.AssignStmt(token, create, self.span), T.push(T.C2V, token, 0, None, self.span)]

    def pop_stmt(self) -> S.AssignStmt:
        """AIV: the token popped (its tfree follows: a pop without uses is freed at once)."""
        token = E.Var(self.name, TileType(list(TOKEN_SHAPE), TOKEN_DTYPE, memory_space=MemorySpace.Vec), self.span)
        return T.pop(T.C2V, token, 0, None, self.span)


def _gm_store(call: E.Expr) -> E.Expr | None:
    """The tensor a GM transfer writes (tile.store), else None."""
    opdef = opdef_of(call) if isinstance(call, E.Call) else None
    if opdef is None or not opdef.traits.gm_transfer:
        return None
    return written_tensor(call)


def _gm_load(call: E.Expr) -> E.Expr | None:
    """The tensor a GM transfer reads into a tile (tile.load), else None."""
    opdef = opdef_of(call) if isinstance(call, E.Call) else None
    if opdef is None or not opdef.traits.gm_transfer or not isinstance(call.type, TileType):
        return None
    return next((a for a in call.args if isinstance(a.type, TensorType)), None)  # type: ignore[union-attr]


def _value(s: S.Stmt) -> E.Expr | None:
    if isinstance(s, S.AssignStmt):
        return s.value
    if isinstance(s, S.EvalStmt):
        return s.expr
    return None


class _Defs(IRVisitor):
    def __init__(self) -> None:
        self.defs: dict[int, E.Expr] = {}
        self.blocks: list[list[S.Stmt]] = []

    def visit_seq_stmts(self, s: S.SeqStmts) -> None:
        self.blocks.append(list(s.stmts))
        super().visit_seq_stmts(s)

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        self.defs[id(s.var)] = s.value
        super().visit_assign_stmt(s)


def find_fences(body: S.Stmt, fresh: FreshNames) -> tuple[dict[int, Fence], dict[int, Fence]]:
    """(id(cube store) -> fence, id(vector load) -> fence) of a body whose regions are consumed."""
    walker = _Defs()
    walker.blocks.append(flatten_to_stmts(body))
    walker.visit_stmt(body)
    blocks: dict[tuple[int, ...], list[S.Stmt]] = {}
    for block in walker.blocks:  # the body itself is listed twice (flattened, and as its SeqStmts)
        blocks.setdefault(tuple(id(s) for s in block), block)
    origin_stores: dict[int, int] = {}
    for block in blocks.values():
        for s in block:
            target = _gm_store(_value(s))
            if target is not None:
                key = id(gm_origin(target, walker.defs))
                origin_stores[key] = origin_stores.get(key, 0) + 1
    after: dict[int, Fence] = {}
    before: dict[int, Fence] = {}
    for block in blocks.values():
        for i, s in enumerate(block):
            value = _value(s)
            target = _gm_store(value)
            if target is None or classify_call_affinity(value) is not CoreAffinity.CUBE:  # type: ignore[arg-type]
                continue
            origin = gm_origin(target, walker.defs)
            if origin_stores.get(id(origin)) != 1 or id(s) in after:
                continue
            for later in block[i + 1:]:
                read = _gm_load(_value(later))
                if (read is not None and classify_call_affinity(_value(later)) is CoreAffinity.VECTOR  # type: ignore[arg-type]
                        and gm_origin(read, walker.defs) is origin):
                    fence = Fence(fresh(f"{_origin_name(origin)}_fence"), s.span)
                    after[id(s)] = before[id(later)] = fence
                    break
    return after, before


def _origin_name(origin: E.Expr) -> str:
    return user_base(origin) if isinstance(origin, E.Var) else "gm"
