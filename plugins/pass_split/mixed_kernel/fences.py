"""GM fences (docs/passes/expand_mixed_kernel.md, GM fences): a cube store and a later vector load of the same GM
origin run on different cores after the split, with nothing ordering them. When the store is that origin's only
store and the load sits in the store's body (the same block, or nested in a later statement of it), the AIC
pushes the stored tile right after the store and the AIV pops it into `<origin>_gm_sync` (a Vec tile of the
stored shape and dtype) and frees it, right before the load when they share a block, else right before the
statement of the store's block that holds the load (never once per iteration of a loop around the load).
Several fences may stand before one statement. A vector store read by the cube is never fenced.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.span import Span
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.mixed_kernel import transfers as T
from pypto_plugins.pass_split.mixed_kernel.aliases import gm_origin, written_tensor


@dataclass(frozen=True, eq=False)
class Fence:
    name: str
    stored: E.Expr  # the tile the cube store wrote: pushed as the token
    span: Span

    def push_stmts(self) -> list[S.Stmt]:
        """AIC: the stored tile, pushed to the AIV lanes right after the store."""
        return [T.push(T.C2V, self.stored, 0, None, self.span)]

    def pop_stmt(self) -> S.AssignStmt:
        """AIV: the token popped (its tfree follows: a pop without uses is freed at once)."""
        t = self.stored.type
        assert isinstance(t, TileType)
        token = E.Var(self.name, TileType(t.shape, t.dtype, None, None, MemorySpace.Vec), self.span)
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


class _Loads(IRVisitor):
    """The vector loads of a statement (any depth), in order."""

    def __init__(self) -> None:
        self.found: list[E.Call] = []

    def visit_call(self, call: E.Call) -> None:
        if _gm_load(call) is not None and classify_call_affinity(call) is CoreAffinity.VECTOR:
            self.found.append(call)
        super().visit_call(call)


def _vector_loads(s: S.Stmt) -> list[E.Call]:
    walker = _Loads()
    walker.visit_stmt(s)
    return walker.found


def find_fences(body: S.Stmt, fresh: FreshNames) -> tuple[dict[int, Fence], dict[int, list[Fence]]]:
    """(id(cube store) -> its fence, id(statement) -> the fences popped right before it) of a body whose
    regions are consumed."""
    walker = _Defs()
    walker.blocks.append(flatten_to_stmts(body))
    walker.visit_stmt(body)
    blocks: dict[tuple[int, ...], list[S.Stmt]] = {}
    for block in walker.blocks:  # the body itself is listed twice (flattened, and as its SeqStmts)
        blocks.setdefault(tuple(id(s) for s in block), block)
    origin_stores: dict[int, int] = {}

    class Stores(IRVisitor):
        def visit_call(self, call: E.Call) -> None:
            target = _gm_store(call)
            if target is not None:
                key = id(gm_origin(target, walker.defs))
                origin_stores[key] = origin_stores.get(key, 0) + 1
            super().visit_call(call)

    Stores().visit_stmt(body)
    after: dict[int, Fence] = {}
    before: dict[int, list[Fence]] = {}
    for block in blocks.values():
        for i, s in enumerate(block):
            value = _value(s)
            target = _gm_store(value)
            if target is None or classify_call_affinity(value) is not CoreAffinity.CUBE:  # type: ignore[arg-type]
                continue
            origin = gm_origin(target, walker.defs)
            stored = value.args[0]  # type: ignore[union-attr]
            if origin_stores.get(id(origin)) != 1 or id(s) in after or not isinstance(stored.type, TileType):
                continue
            for later in block[i + 1:]:
                if any(gm_origin(_gm_load(c), walker.defs) is origin for c in _vector_loads(later)):  # type: ignore[arg-type]
                    fence = Fence(fresh(f"{_origin_name(origin)}_gm_sync"), stored, s.span)
                    after[id(s)] = fence
                    before.setdefault(id(later), []).append(fence)
                    break
    return after, before


def _origin_name(origin: E.Expr) -> str:
    return origin.name_hint if isinstance(origin, E.Var) else "gm"
