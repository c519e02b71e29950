"""The yield fix-up of the PTOAS and DSA_RP planners (materialize_semantic_aliases.md 3.6; memory_reuse.md 3.8):
a yielded tile that is not on its carry's buffer is copied into it right before the yield
(`<y>_mv = pl.tile.move(<y>, target_memory=<space>)`, typed with the carry's MemRef). Loops always; ifs under
DSA_RP (the then-branch yield is canonical, an else yield elsewhere gets the move). A bare tile copy `x = y`
then takes y's MemRef (identity-copy repair, DSA_RP)."""

from __future__ import annotations

from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef, TileType
from pypto_core.ir.utils import Substituter, collect_def_vars, flatten_to_stmts, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.registry import create_op_call


def _moved_into(value: E.Expr, memref: MemRef, space: MemorySpace | None) -> tuple[list[S.Stmt], E.Expr]:
    """([the move], the moved tile) when `value` is a tile on another buffer than `memref`, else ([], value)."""
    t = value.type
    if not isinstance(value, E.Var) or not isinstance(t, TileType) or t.memref is None \
            or t.memref.base is memref.base or space is None:
        return [], value
    if space is MemorySpace.Acc and t.memory_space is MemorySpace.Acc:
        raise InternalError(f"MemoryReuse cannot reconcile divergent L0C accumulator buffers with tile.move: "
                            f"'{value.name_hint}' is yielded on {t.memref.name_hint} but its carry lives on "
                            f"{memref.name_hint} (an Acc -> Acc move does not exist)")
    call = create_op_call("tile.move", [value], {"target_memory": space}, span=value.span)
    moved = E.Var(f"{value.name_hint}_mv", t.with_fields(memref=memref, memory_space=space), value.span)
    return [S.AssignStmt(moved, call, value.span)], moved


def _with_yield_fixed(body: S.Stmt, carried: list[tuple[MemRef, MemorySpace | None] | None]) -> S.Stmt:
    stmts = flatten_to_stmts(body)
    if not stmts or not isinstance(stmts[-1], S.YieldStmt):
        return body
    last = stmts[-1]
    moves: list[S.Stmt] = []
    values = list(last.value)
    for i, target in enumerate(carried):
        if target is None or i >= len(values):
            continue
        new_moves, values[i] = _moved_into(values[i], *target)
        moves += new_moves
    if not moves:
        return body
    return make_body([*stmts[:-1], *moves, S.YieldStmt(values, last.span)], body.span)


def _other_buffer(value: E.Var, result: E.Var) -> bool:
    a, b = value.type, result.type
    return isinstance(a, TileType) and isinstance(b, TileType) and a.memref is not None and \
        b.memref is not None and a.memref.base is not b.memref.base


def _carried(vars_: tuple[E.Var, ...]) -> list[tuple[MemRef, MemorySpace | None] | None]:
    return [(v.type.memref, v.type.memory_space) if isinstance(v.type, TileType) and v.type.memref is not None
            else None for v in vars_]


class YieldFixup(IRMutator):
    def __init__(self, fix_ifs: bool) -> None:
        self.fix_ifs = fix_ifs
        self._renamed: dict[int, E.Expr] = {}

    def visit_for_stmt(self, stmt: S.ForStmt) -> S.Stmt:
        stmt = self.visit_node(stmt)
        targets = _carried(stmt.iter_args)  # InitMemRef gave each carry its init's MemRef
        body = _with_yield_fixed(stmt.body, targets)
        return stmt if body is stmt.body else stmt.with_fields(body=body)  # type: ignore[return-value]

    def visit_if_stmt(self, stmt: S.IfStmt) -> S.Stmt:
        stmt = self.visit_node(stmt)
        if not self.fix_ifs or stmt.else_body is None:
            return stmt
        then_values = flatten_to_stmts(stmt.then_body)[-1:]
        if not then_values or not isinstance(then_values[0], S.YieldStmt):
            return stmt
        local = {id(v) for v in collect_def_vars(stmt.then_body)}
        # The then-yield's buffer is canonical, unless the then-branch yields a value from before the if that
        # InitMemRef found read again (docs/passes/init_mem_ref.md, ifs): then the result keeps its own buffer,
        # which both branches move into.
        canonical = tuple(rv if isinstance(v, E.Var) and id(v) not in local and _other_buffer(v, rv) else
                          v if isinstance(v, E.Var) else rv for v, rv in zip(then_values[0].value, stmt.return_vars))
        targets = _carried(canonical)
        then_body = _with_yield_fixed(stmt.then_body, targets)
        else_body = _with_yield_fixed(stmt.else_body, targets)
        return_vars = tuple(rv.with_fields(type=rv.type.with_fields(memref=t[0])) if t is not None
                            and isinstance(rv.type, TileType) and rv.type.memref is not t[0] else rv
                            for rv, t in zip(stmt.return_vars, targets))
        if then_body is stmt.then_body and else_body is stmt.else_body and \
                all(a is b for a, b in zip(return_vars, stmt.return_vars)):
            return stmt
        self._renamed.update({id(a): b for a, b in zip(stmt.return_vars, return_vars) if a is not b})
        return stmt.with_fields(then_body=then_body, else_body=else_body,  # type: ignore[return-value]
                                return_vars=return_vars)

    def visit_var(self, var: E.Var) -> E.Expr:
        return self._renamed.get(id(var), var)  # an if result retyped above is used with its new type

    def visit_function_body(self, body: S.Stmt) -> S.Stmt:
        return self.visit_stmt(body)


class IdentityCopyRepair(IRMutator):
    """`x = y` between tiles: x takes y's MemRef (uses of x follow)."""

    def __init__(self) -> None:
        self.sub = Substituter({})

    def visit_var(self, var: E.Var) -> E.Expr:
        return self.sub.mapping.get(id(var), var)

    def visit_assign_stmt(self, stmt: S.AssignStmt) -> S.Stmt:
        value = self.visit_expr(stmt.value)
        var = stmt.var
        t, vt = var.type, value.type
        if isinstance(value, E.Var) and isinstance(t, TileType) and isinstance(vt, TileType) \
                and vt.memref is not None and t.memref is not vt.memref:
            new = var.with_fields(type=t.with_fields(memref=vt.memref))
            self.sub.mapping[id(var)] = new
            return S.AssignStmt(new, value, stmt.span, stmt.leading_comments)  # type: ignore[arg-type]
        return stmt if value is stmt.value else S.AssignStmt(var, value, stmt.span, stmt.leading_comments)
