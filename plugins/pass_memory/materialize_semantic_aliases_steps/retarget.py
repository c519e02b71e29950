"""Pushing a loop's carried MemRef down onto the producer of its yielded value
(materialize_semantic_aliases.md 3.2 - 3.4): `Retargeter.run(body)` records a planned tile type per variable;
nothing is rewritten here (apply.py does that). Plans of a sub-chain that succeeded stay even when the whole
chain fails (3.4, PyPTO's behaviour)."""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.walk import statements, vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import MemRef, TileType
from pypto_plugins.pass_memory.init_mem_ref_steps.buffer_facts import opdef_of
from pypto_plugins.pass_memory.materialize_semantic_aliases_steps.definitions import (
    Definition,
    index_definitions,
    yielded,
)


class Retargeter:
    def __init__(self, body: S.Stmt, backend: Any) -> None:
        self.body = body
        self.backend = backend
        self.defs = index_definitions(body)
        self.plans: dict[int, TileType] = {}
        self._active: set[int] = set()

    # -- what a variable is now ------------------------------------------------------------------------------
    def type_of(self, var: E.Var) -> Any:
        return self.plans.get(id(var), var.type)

    def base_of(self, var: E.Expr) -> E.Var | None:
        t = self.type_of(var) if isinstance(var, E.Var) else None
        return t.memref.base if isinstance(t, TileType) and t.memref is not None else None

    def plan(self, var: E.Var, target: MemRef, space: MemorySpace) -> None:
        self.plans[id(var)] = var.type.with_fields(memref=target, memory_space=space)  # type: ignore[assignment]

    # -- roots: every loop, outer before inner (3.2) ---------------------------------------------------------
    def run(self) -> dict[int, TileType]:
        for stmt in statements(self.body):
            if not isinstance(stmt, S.ForStmt) or not stmt.iter_args:
                continue
            values = yielded(stmt.body)
            for i, ia in enumerate(stmt.iter_args):
                t = self.type_of(ia)
                if not isinstance(t, TileType) or t.memref is None or i >= len(values):
                    continue
                if isinstance(values[i], E.Var):
                    self.retarget(values[i], t.memref, t.memory_space)
        return self.plans

    # -- one variable (3.3) ----------------------------------------------------------------------------------
    def retarget(self, var: E.Expr, target: MemRef, space: MemorySpace) -> bool:
        if not isinstance(var, E.Var):
            return False
        if self.base_of(var) is target.base:
            return True
        if id(var) in self._active:
            return False  # a cycle
        definition = self.defs.get(id(var))
        if definition is None:
            return False  # a parameter
        self._active.add(id(var))
        try:
            return self._by_definition(var, definition, target, space)
        finally:
            self._active.discard(id(var))

    def _by_definition(self, var: E.Var, d: Definition, target: MemRef, space: MemorySpace) -> bool:
        if d.kind == "assign":
            return self._assigned(var, d, target, space)
        if d.kind == "if_result":
            stmt = d.stmt
            assert isinstance(stmt, S.IfStmt)
            then_values, else_values = yielded(stmt.then_body), yielded(stmt.else_body)
            ok = d.index < len(then_values) and self.retarget(then_values[d.index], target, space)
            if ok and stmt.else_body is not None:
                ok = d.index < len(else_values) and self.retarget(else_values[d.index], target, space)
        else:
            loop = d.stmt
            assert isinstance(loop, (S.ForStmt, S.WhileStmt))
            ia = loop.iter_args[d.index]
            ok = True
            if d.kind == "loop_result":
                values = yielded(loop.body)
                ok = d.index < len(values) and self.retarget(values[d.index], target, space)
            ok = ok and self.retarget(ia.initValue, target, space)
            if ok and d.kind == "loop_result":
                self.plan(ia, target, space)
        if ok:
            self.plan(var, target, space)
        return ok

    def _assigned(self, var: E.Var, d: Definition, target: MemRef, space: MemorySpace) -> bool:
        stmt = d.stmt
        assert isinstance(stmt, S.AssignStmt)
        call = stmt.value
        opdef = opdef_of(call)
        if opdef is None or not isinstance(var.type, TileType):
            return False
        assert isinstance(call, E.Call)
        traits = opdef.traits
        k = traits.output_reuses_input
        if k is not None:  # rule 1: the in-place operand moves first
            if k >= len(call.args) or not self.retarget(call.args[k], target, space):
                return False
            self.plan(var, target, space)
            return True
        if traits.buffer_view:  # rule 2: only a relabel that shares its input's buffer follows it
            source = call.args[0] if call.args else None
            if traits.buffer_view != "relabel" or not isinstance(source, E.Var) \
                    or self.base_of(source) is not self.base_of(var) or not self.retarget(source, target, space):
                return False
            self.plan(var, target, space)
            return True
        wanted = call.kwargs.get("target_memory")
        if isinstance(wanted, MemorySpace) and wanted is not space:
            return False  # rule 3
        fixed = opdef.output_memory.fixed if opdef.output_memory is not None else None
        if fixed is not None and fixed is not space:
            return False  # rule 4
        for i in traits.no_alias_operands(call, self.backend):  # rule 5
            if self.base_of(call.args[i]) is target.base:
                return False
        if self._touched_later(d, target.base):  # rule 6
            return False
        self.plan(var, target, space)
        return True

    def _touched_later(self, d: Definition, base: E.Var) -> bool:
        """Whether a later statement in any enclosing block (up to the loop body) reads the target buffer or
        puts a tile on it."""
        for block, position in d.frames:
            for later in block[position + 1:]:
                if any(self.base_of(v) is base for v in vars_read(later)):
                    return True
                for inner in statements(later):
                    if isinstance(inner, S.AssignStmt) and self.base_of(inner.var) is base:
                        return True
        return False
