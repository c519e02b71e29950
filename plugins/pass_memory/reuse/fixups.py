"""What MemoryReuse does after the buffers are committed (docs/passes/memory_reuse.md, afterwards), in order:

1. each loop's iter_args and results take their init value's MemRef (outer loops first);
2. the **yield fix-up**: a loop whose yielded tile lives on another buffer than the loop's carried one gets
   `<y>_mv = pl.tile.move(<y>, target_memory=<space>)` (typed with the carried MemRef) right before its yield;
   an if's then-yield is canonical, an else-yield on another buffer gets such a move, the if's result takes the
   canonical MemRef (a move between two Acc buffers is an InternalError);
3. a bare tile copy `x = y` takes y's MemRef;
4. allocation statements of the function's top-level block that no tile or tensor uses any more are deleted;
5. the `pipeline_membership` call attr is removed.
"""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.walk import statements
from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef, PtrType, TensorType, TileType
from pypto_core.ir.utils import collect_def_vars, flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.registry import create_op_call
from pypto_plugins.pass_memory.memrefs import bound_vars, retype
from pypto_plugins.pass_memory.reuse.sharing import PIPELINE_ATTR


def _memref(e: Any) -> MemRef | None:
    t = getattr(e, "type", None)
    return t.memref if isinstance(t, TileType) else None


def align_loop_carries(func: F.Function) -> F.Function:
    new: dict[int, MemRef] = {}
    for stmt in statements(func.body):
        if not isinstance(stmt, (S.ForStmt, S.WhileStmt)):
            continue
        for ia, rv in zip(stmt.iter_args, stmt.return_vars):
            init = ia.initValue
            m = new.get(id(init)) or _memref(init)
            if m is None or not isinstance(ia.type, TileType):
                continue
            if _memref(ia) is not m:
                new[id(ia)] = m
            if isinstance(rv.type, TileType) and _memref(rv) is not m:
                new[id(rv)] = m
    return retype(func, lambda v: v.type.with_fields(memref=new[id(v)]) if id(v) in new else None)


def fix_yields(func: F.Function) -> F.Function:
    fixer = _YieldFixup(func)
    body = fixer.visit_stmt(func.body)
    if body is not func.body:
        func = func.with_fields(body=body)  # type: ignore[assignment]
    canonical = fixer.if_results
    return retype(func, lambda v: v.type.with_fields(memref=canonical[id(v)]) if id(v) in canonical else None)


class _YieldFixup(IRMutator):
    def __init__(self, func: F.Function) -> None:
        self.func = func
        self.if_results: dict[int, MemRef] = {}

    def visit_for_stmt(self, stmt: S.ForStmt) -> S.Stmt:
        stmt = self.visit_node(stmt)
        targets = [(_memref(ia), ia.type) for ia in stmt.iter_args]
        body = _moved_into(stmt.body, targets, stmt)
        return stmt if body is stmt.body else stmt.with_fields(body=body)

    def visit_while_stmt(self, stmt: S.WhileStmt) -> S.Stmt:
        return self.visit_for_stmt(stmt)  # type: ignore[arg-type]

    def visit_if_stmt(self, stmt: S.IfStmt) -> S.Stmt:
        stmt = self.visit_node(stmt)
        then_yield = _trailing_yield(stmt.then_body)
        if then_yield is None or stmt.else_body is None:
            return stmt
        local = {id(v) for v in collect_def_vars(stmt.then_body)}
        targets: list[tuple[MemRef | None, Any]] = []
        for i, rv in enumerate(stmt.return_vars):
            value = then_yield.value[i] if i < len(then_yield.value) else None
            m = _memref(value)
            own = _memref(rv)
            if m is not None and own is not None and id(value) not in local and own.base is not m.base:
                # The then-branch yields a value from before the if, which InitMemRef found still read after
                # it (docs/passes/init_mem_ref.md, ifs): the result keeps its own buffer, which both branches
                # move into, rather than the else-branch overwriting that value's buffer.
                targets.append((own, rv.type))
                continue
            targets.append((m, rv.type))
            if m is not None and isinstance(rv.type, TileType) and own is not m:
                self.if_results[id(rv)] = m
        then_body = _moved_into(stmt.then_body, targets, stmt)
        else_body = _moved_into(stmt.else_body, targets, stmt)
        if then_body is stmt.then_body and else_body is stmt.else_body:
            return stmt
        return stmt.with_fields(then_body=then_body, else_body=else_body)


def _trailing_yield(body: S.Stmt | None) -> S.YieldStmt | None:
    stmts = flatten_to_stmts(body)
    return stmts[-1] if stmts and isinstance(stmts[-1], S.YieldStmt) else None


def _moved_into(body: S.Stmt, targets: list[tuple[MemRef | None, Any]], owner: S.Stmt) -> S.Stmt:
    """`body` with each yielded tile not on its target's base moved into the target before the yield."""
    stmts = flatten_to_stmts(body)
    if not stmts or not isinstance(stmts[-1], S.YieldStmt):
        return body
    yield_stmt = stmts[-1]
    values = list(yield_stmt.value)
    moves: list[S.Stmt] = []
    for i, (target, target_type) in enumerate(targets):
        value = values[i] if i < len(values) else None
        m = _memref(value)
        if target is None or m is None or m.base is target.base or not isinstance(value, E.Var):
            continue
        space = target_type.memory_space if isinstance(target_type, TileType) else None
        if space is MemorySpace.Acc and value.type.memory_space is MemorySpace.Acc:  # type: ignore[union-attr]
            raise InternalError(f"MemoryReuse cannot reconcile divergent L0C accumulator buffers with tile.move: "
                                f"'{value.name_hint}' is yielded on '{m.name_hint}' but the carried value lives on "
                                f"'{target.name_hint}' (an Acc to Acc move does not exist)")
        call = create_op_call("tile.move", [value], {"target_memory": space}, span=owner.span)
        moved_type = value.type.with_fields(memref=target, memory_space=space)
        moved = E.Var(f"{value.name_hint}_mv", moved_type, value.span)
        moves.append(S.AssignStmt(moved, call, owner.span))
        values[i] = moved
    if not moves:
        return body
    new_yield = yield_stmt.with_fields(value=tuple(values))
    return make_body([*stmts[:-1], *moves, new_yield], body.span)


def retype_copies(func: F.Function) -> F.Function:
    """A bare `x = y` tile copy lives where y lives."""
    copies = {id(s.var): s.value for s in statements(func.body)
              if isinstance(s, S.AssignStmt) and isinstance(s.value, E.Var) and isinstance(s.var.type, TileType)
              and _memref(s.value) is not None}
    return retype(func, lambda v: v.type.with_fields(memref=_memref(copies[id(v)]))
                  if id(v) in copies and _memref(v) is not _memref(copies[id(v)]) else None)


def drop_unused_allocs(func: F.Function) -> F.Function:
    """Allocation statements of the top-level block whose base no tile or tensor uses any more are deleted."""
    used: set[int] = set()
    for var in bound_vars(func):
        t = var.type
        if isinstance(t, (TileType, TensorType)) and t.memref is not None:
            used.add(id(t.memref.base))
    stmts = flatten_to_stmts(func.body)
    kept = [s for s in stmts if not (isinstance(s, S.AssignStmt) and isinstance(s.var.type, PtrType)
                                     and id(s.var) not in used)]
    if len(kept) == len(stmts):
        return func
    return func.with_fields(body=make_body(kept, func.body.span))  # type: ignore[return-value]


def strip_pipeline_membership(func: F.Function) -> F.Function:
    return _StripAttr().visit_function(func)


class _StripAttr(IRMutator):
    def visit_call(self, call: E.Call) -> Any:
        call = self.visit_node(call)
        if PIPELINE_ATTR not in call.attrs:
            return call
        return call.with_fields(attrs={k: v for k, v in call.attrs.items() if k != PIPELINE_ATTR})
