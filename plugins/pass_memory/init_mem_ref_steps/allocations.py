"""The allocation statements (init_mem_ref.md 3.5): one `tile.alloc` per distinct on-chip base a tile uses
(`tensor.alloc` for a DDR tile), in order of first appearance (parameters first), prepended to the body.
Tensor MemRefs get none; a declared allocation's is `pinned=True` and holds all its slots."""

from __future__ import annotations

from collections.abc import Iterator

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef, TileType
from pypto_core.ir.utils import flatten_to_stmts
from pypto_core.ops.registry import create_op_call
from pypto_plugins.pass_memory.init_mem_ref_steps.declarations import Declaration


def defined_vars(stmt: S.Stmt) -> Iterator[E.Var]:
    """The variables a statement tree defines, in program order (a loop: its carries, body, then results)."""
    if isinstance(stmt, S.SeqStmts):
        for s in stmt.stmts:
            yield from defined_vars(s)
    elif isinstance(stmt, S.AssignStmt):
        yield stmt.var
    elif isinstance(stmt, (S.ForStmt, S.WhileStmt)):
        yield from stmt.iter_args
        yield from defined_vars(stmt.body)
        yield from stmt.return_vars
    elif isinstance(stmt, S.IfStmt):
        yield from defined_vars(stmt.then_body)
        if stmt.else_body is not None:
            yield from defined_vars(stmt.else_body)
        yield from stmt.return_vars
    elif isinstance(stmt, S.ScopeStmt):
        yield from defined_vars(stmt.body)


def allocation_stmts(params: list[E.Var], body: S.Stmt, decls: dict[int, Declaration], span: object) -> list[S.Stmt]:
    seen: set[int] = set()
    out: list[S.Stmt] = []
    for var in [*params, *defined_vars(body)]:
        t = var.type
        if not isinstance(t, TileType) or t.memref is None or id(t.memref.base) in seen:
            continue
        seen.add(id(t.memref.base))
        out.append(_alloc(t.memref, t.memory_space or MemorySpace.DDR, decls.get(id(t.memref.base)), span))
    return out


def _alloc(memref: MemRef, space: MemorySpace, decl: Declaration | None, span: object) -> S.Stmt:
    size = decl.total if decl is not None else memref.size
    op = "tensor.alloc" if space is MemorySpace.DDR else "tile.alloc"
    call = create_op_call(op, [E.ConstInt(space.value, DataType.INDEX), E.ConstInt(size, DataType.INDEX)],
                          {"pinned": True} if decl is not None and op == "tile.alloc" else {}, span=span)
    return S.AssignStmt(memref.base, call, span)  # type: ignore[arg-type]


def prepend(body: S.Stmt, allocs: list[S.Stmt]) -> S.Stmt:
    if not allocs:
        return body
    return S.SeqStmts([*allocs, *flatten_to_stmts(body)], body.span)
