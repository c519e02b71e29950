"""The walk of one function (init_mem_ref.md 3.2 - 3.4): parameters first, then every definition of the body
in program order gets its MemRef; loops and ifs hand their carried MemRefs to their results."""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.fresh_names import FreshNames, user_base
from pypto_core.ir.types import MemRef, TensorType, TileType, Type
from pypto_core.ir.utils import Substituter, flatten_to_stmts
from pypto_core.ops.registry import create_op_call
from pypto_plugins.pass_memory.init_mem_ref_steps.buffer_facts import (
    BufferlessTiles,
    lands_in_source_buffer,
    reused_operand,
    view_kind,
)
from pypto_plugins.pass_memory.init_mem_ref_steps.declarations import Declaration, is_declared, slot_memref
from pypto_plugins.pass_memory.init_mem_ref_steps.liveness import UsePositions
from pypto_plugins.pass_memory.init_mem_ref_steps.naming import MemRefMinter
from pypto_plugins.pass_memory.init_mem_ref_steps.views import view_memref


def shaped(t: Type) -> bool:
    return isinstance(t, (TileType, TensorType))


def memref_of(value: E.Expr) -> MemRef | None:
    return value.type.memref if isinstance(value, E.Var) and shaped(value.type) else None


def with_memref(var: E.Var, memref: MemRef | None, space: Any = None) -> E.Var:
    """`var` retyped: the same type with `memref` (and the memory space `space` when given). A tile that has
    no memory space (a Tile parameter of an orchestration function) gets the one its MemRef lives in, DDR
    (docs/passes/init_mem_ref.md): a tile type printed with a MemRef names its space."""
    t = var.type
    changes: dict[str, Any] = {"memref": memref}
    if space is not None and isinstance(t, TileType):
        changes["memory_space"] = space
    elif memref is not None and isinstance(t, TileType) and t.memory_space is None:
        changes["memory_space"] = MemorySpace.DDR
    new_type = t.with_fields(**changes)
    new = var.with_fields(type=new_type)
    assert isinstance(new, E.Var)
    return new


class FunctionMemRefs:
    """Rewrites one function's parameters and body; `self.subst` maps each old variable to its retyped one."""

    def __init__(self, func: F.Function, minter: MemRefMinter, decls: dict[int, Declaration]) -> None:
        self.func = func
        self.minter = minter
        self.decls = decls
        self.subst = Substituter({})
        self.bufferless = BufferlessTiles()
        self.uses = UsePositions(func)
        self.names = FreshNames(func)
        self.base_members: dict[int, list[int]] = {}  # a MemRef base -> the old variables bound to it
        self.loops: list[S.Stmt] = []  # the loops around the statement being rewritten, outermost first

    # -- variables -----------------------------------------------------------------------------------------
    def bind(self, old: E.Var, new: E.Var) -> E.Var:
        if new is not old:
            self.subst.mapping[id(old)] = new
        memref = memref_of(new)
        if memref is not None:
            self.base_members.setdefault(id(memref.base), []).append(id(old))
        return new

    def carry_may_take(self, memref: MemRef, loop: S.Stmt, claimed: set[int]) -> bool:
        """A carry writes its buffer every iteration: it may take its init's buffer only when nothing reads
        that buffer once the loop starts (no other carry of the loop holds it, no variable on it is read inside
        or after the loop, nor again by an enclosing loop's next iteration). Else it gets a buffer of its own
        (docs/passes/init_mem_ref.md, loops)."""
        if id(memref.base) in claimed:
            return False
        start = self.uses.position(loop)
        return not any(self.uses.live_after(v, start, self.loops) for v in self.base_members.get(id(memref.base), []))

    def merge_may_take(self, memref: MemRef | None, merge: S.IfStmt) -> bool:
        """An if result's buffer is written by the branch that does not yield the value already in it: it may
        take a yielded value's buffer only when no variable on that buffer defined outside the if is read after
        it, nor again by an enclosing loop's next iteration (docs/passes/init_mem_ref.md, ifs)."""
        if memref is None:
            return False
        end = self.uses.end(merge)
        return not any(self.uses.live_after(v, end, self.loops) for v in self.base_members.get(id(memref.base), [])
                       if not self.uses.inside(v, merge))

    def expr(self, e: E.Expr) -> E.Expr:
        return self.subst.visit_expr(e)

    def declared(self, var: E.Var) -> MemRef | None:
        """The slot MemRef of a tile written with a declared allocation, else None."""
        t = var.type
        if not isinstance(t, TileType) or not is_declared(t.memref):
            return None
        return slot_memref(self.decls[id(t.memref.base)], t.memref)

    def fresh(self, var: E.Var) -> MemRef:
        return self.declared(var) or self.minter.fresh(var, var.type)

    # -- parameters ----------------------------------------------------------------------------------------
    def params(self) -> list[E.Var]:
        out = []
        for p in self.func.params:
            out.append(self.bind(p, with_memref(p, self.fresh(p))) if shaped(p.type) else p)
        return out

    # -- statements ----------------------------------------------------------------------------------------
    def stmt(self, stmt: S.Stmt) -> S.Stmt:
        if isinstance(stmt, S.SeqStmts):
            # a loop may come back with the copies of its inits before it (iter_args): one flat block
            return S.SeqStmts([inner for s in stmt.stmts for inner in flatten_to_stmts(self.stmt(s))], stmt.span,
                              stmt.leading_comments)
        if isinstance(stmt, S.AssignStmt):
            return self.assign(stmt)
        if isinstance(stmt, S.ForStmt):
            return self.for_stmt(stmt)
        if isinstance(stmt, S.IfStmt):
            return self.if_stmt(stmt)
        if isinstance(stmt, S.WhileStmt):
            return self.while_stmt(stmt)
        if isinstance(stmt, S.ScopeStmt):
            return stmt.with_fields(body=self.stmt(stmt.body))  # type: ignore[return-value]
        return self.subst.visit_stmt(stmt)

    def assign(self, stmt: S.AssignStmt) -> S.Stmt:
        value = self.expr(stmt.value)
        copy = self.in_place_copy(stmt, value)
        if copy is not None:
            k = reused_operand(value)
            value = value.with_fields(args=tuple(copy.var if i == k else a  # type: ignore[union-attr]
                                                 for i, a in enumerate(value.args)))  # type: ignore[union-attr]
            return S.SeqStmts([copy, self.assign_value(stmt, value)], stmt.span)
        return self.assign_value(stmt, value)

    def in_place_copy(self, stmt: S.AssignStmt, value: E.Expr) -> S.AssignStmt | None:
        """An op writing its result into an operand tile's buffer (rule 4) while a variable on that buffer is read
        again afterwards (or by an enclosing loop's next iteration) would change what that read sees: the operand
        is copied first (`<operand>_mv = pl.tile.move(...)`) and the op writes into the copy. An Acc operand
        cannot be copied (no Acc -> Acc move): a located error (docs/passes/init_mem_ref.md, in-place results)."""
        k = reused_operand(value) if isinstance(value, E.Call) else None
        if k is None or k >= len(value.args):  # type: ignore[union-attr]
            return None
        operand = value.args[k]  # type: ignore[union-attr]
        memref = memref_of(operand)
        if memref is None or not isinstance(operand.type, TileType) or not isinstance(operand, E.Var):
            return None
        at = self.uses.position(stmt)
        if not any(self.uses.live_after(v, at, self.loops) for v in self.base_members.get(id(memref.base), [])):
            return None
        if operand.type.memory_space is MemorySpace.Acc:
            raise UserError(f"InitMemRef: in function '{self.func.name}', {value.op.name} accumulates into "  # type: ignore[union-attr]
                            f"'{user_base(operand)}' in place (its L0C buffer), "
                            f"but '{user_base(operand)}' is read again afterwards, and an Acc tile cannot be "
                            f"copied to keep its old value: accumulate into it once and read the result "
                            f"('{user_base(stmt.var)}') afterwards, or start the other accumulation from its own "
                            f"pl.matmul", stmt.span)
        return self.copied(operand, stmt)

    def assign_value(self, stmt: S.AssignStmt, value: E.Expr) -> S.Stmt:
        var = stmt.var
        if shaped(var.type):
            var = self.bind(var, with_memref(var, self.memref_for(stmt, value), None))
            if isinstance(var.type, TileType) and var.type.memref is None:
                self.bufferless.add(var)
        if var is stmt.var and value is stmt.value:
            return stmt
        return S.AssignStmt(var, value, stmt.span, stmt.leading_comments)

    def memref_for(self, stmt: S.AssignStmt, value: E.Expr) -> MemRef | None:
        """The first rule of init_mem_ref.md 3.3 that matches."""
        var = stmt.var
        is_tile = isinstance(var.type, TileType)
        if is_tile and self.bufferless.is_bufferless_value(value):
            return None  # rule 1: the data lives in the pipe ring
        if isinstance(value, E.Call) and lands_in_source_buffer(value) and is_tile and is_declared(var.type.memref):
            raise UserError(
                f"Tile '{var.name_hint}' is produced by '{value.op.name}', which lands in its source tile's "
                f"allocation, so it cannot be given one of its own. Bind the source tile instead.", stmt.span)
        if isinstance(value, E.Call):
            kind = view_kind(value)
            source = value.args[0] if kind and value.args else None
            if source is not None and memref_of(source) is not None:
                return view_memref(value, source.type, kind)  # rule 3
            k = reused_operand(value)
            if k is not None and k < len(value.args) and memref_of(value.args[k]) is not None:
                return memref_of(value.args[k])  # rule 4
        if is_tile and memref_of(value) is not None:
            return memref_of(value)  # rule 5: a tile copy shares its source's buffer
        return self.fresh(var)  # rule 6

    def iter_args(self, iter_args: tuple[E.IterArg, ...], loop: S.Stmt) -> tuple[list[E.IterArg], list[S.Stmt]]:
        """Each carry takes its init value's MemRef (and, for a tile, its memory space). A tile init whose buffer
        the carry may not take (carry_may_take) is first copied (`<init>_mv = pl.tile.move(<init>)`, a buffer
        of its own), and the carry starts from the copy: the statements to put before the loop are returned."""
        out = []
        copies: list[S.Stmt] = []
        claimed: set[int] = set()
        for ia in iter_args:
            init = self.expr(ia.initValue)
            source = memref_of(init)
            if source is not None and isinstance(init.type, TileType) and not self.carry_may_take(source, loop, claimed):
                copy = self.copied(init, loop)
                copies.append(copy)
                init = copy.var
                source = memref_of(init)
            if source is not None:
                claimed.add(id(source.base))
            new: E.IterArg = ia if init is ia.initValue else ia.with_fields(initValue=init)  # type: ignore[assignment]
            if shaped(ia.type) and source is not None:
                space = init.type.memory_space if isinstance(init.type, TileType) else None
                new_type = ia.type.with_fields(**({"memref": source, "memory_space": space}
                                                  if isinstance(ia.type, TileType) and space is not None
                                                  else {"memref": source}))
                new = new.with_fields(type=new_type)  # type: ignore[assignment]
            out.append(self.bind(ia, new))  # type: ignore[arg-type]
        return out, copies

    def copied(self, init: E.Var, loop: S.Stmt) -> S.AssignStmt:
        """`<init>_mv = pl.tile.move(<init>, target_memory=<its space>)` on a fresh buffer."""
        call = create_op_call("tile.move", [init], {"target_memory": init.type.memory_space}, span=loop.span)
        var = E.Var(self.names(f"{user_base(init)}_mv"), call.type.with_fields(memref=None), loop.span)
        var = with_memref(var, self.minter.fresh(var, var.type))
        self.base_members.setdefault(id(memref_of(var).base), [])  # type: ignore[union-attr]
        return S.AssignStmt(var, call, loop.span)

    def for_stmt(self, stmt: S.ForStmt) -> S.Stmt:
        start, stop, step = self.expr(stmt.start), self.expr(stmt.stop), self.expr(stmt.step)
        iter_args, copies = self.iter_args(stmt.iter_args, stmt)
        self.loops.append(stmt)
        body = self.stmt(stmt.body)
        self.loops.pop()
        return_vars = []
        for rv, ia in zip(stmt.return_vars, iter_args):
            if not shaped(rv.type):
                return_vars.append(rv)
                continue
            minted = self.with_fresh(rv)  # takes a number even though the carry's MemRef replaces it
            carried = memref_of(ia)
            space = ia.type.memory_space if isinstance(ia.type, TileType) else None
            return_vars.append(self.bind(rv, with_memref(rv, carried, space) if carried is not None else minted))
        return_vars += list(stmt.return_vars[len(iter_args):])
        loop = stmt.with_fields(start=start, stop=stop, step=step, iter_args=tuple(iter_args), body=body,
                                return_vars=tuple(return_vars))
        return S.SeqStmts([*copies, loop], stmt.span) if copies else loop  # type: ignore[return-value]

    def with_fresh(self, var: E.Var) -> E.Var:
        return with_memref(var, self.minter.fresh(var, var.type))

    def if_stmt(self, stmt: S.IfStmt) -> S.Stmt:
        condition = self.expr(stmt.condition)
        then_body = self.stmt(stmt.then_body)
        else_body = self.stmt(stmt.else_body) if stmt.else_body is not None else None
        then_yield, else_yield = _yielded(then_body), _yielded(else_body)
        return_vars = []
        for i, rv in enumerate(stmt.return_vars):
            if not shaped(rv.type):
                return_vars.append(rv)
                continue
            minted = self.with_fresh(rv)
            candidates = [m for m in (_memref_at(then_yield, i), _memref_at(else_yield, i)) if m is not None]
            source = next((m for m in candidates if self.merge_may_take(m, stmt)), None)
            return_vars.append(self.bind(rv, with_memref(rv, source) if source is not None else minted))
        return stmt.with_fields(condition=condition, then_body=then_body, else_body=else_body,
                                return_vars=tuple(return_vars))  # type: ignore[return-value]

    def while_stmt(self, stmt: S.WhileStmt) -> S.Stmt:
        iter_args, copies = self.iter_args(stmt.iter_args, stmt)
        condition = self.expr(stmt.condition)
        self.loops.append(stmt)
        body = self.stmt(stmt.body)
        self.loops.pop()
        return_vars = [self.bind(rv, self.with_fresh(rv)) if shaped(rv.type) else rv for rv in stmt.return_vars]
        loop = stmt.with_fields(iter_args=tuple(iter_args), condition=condition, body=body,
                                return_vars=tuple(return_vars))
        return S.SeqStmts([*copies, loop], stmt.span) if copies else loop  # type: ignore[return-value]


def _yielded(body: S.Stmt | None) -> tuple[E.Expr, ...]:
    stmts = flatten_to_stmts(body)
    return stmts[-1].value if stmts and isinstance(stmts[-1], S.YieldStmt) else ()


def _memref_at(values: tuple[E.Expr, ...], i: int) -> MemRef | None:
    return memref_of(values[i]) if i < len(values) else None
