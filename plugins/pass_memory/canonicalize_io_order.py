"""CanonicalizeIOOrder (docs/passes/canonicalize_io_order.md): inside the bodies of `pl.pipeline` loops (what
LowerPipelineLoops leaves: one body holding the cloned stages), statements are reordered by a dependence-respecting
topological sort -- scalar address arithmetic first, then every load, then each stage's compute followed by its
stores -- and the loop becomes sequential (`PipelineResolved`). Everything outside pipeline loops is untouched.

Which statement is a load or a store is asked from the registry (`OpTraits.gm_transfer`, `read_address_args`,
the operand's and result's memory spaces), never from op names.
"""

from __future__ import annotations

import heapq
from typing import Any

from pypto_core.analysis.walk import statements, vars_read, walk
from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ForKind, MemorySpace, ParamDirection
from pypto_core.ir.types import ScalarType, TileType
from pypto_core.ir.utils import flatten_to_stmts, make_body
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_memory.init_mem_ref_steps.buffer_facts import opdef_of

REQUIRED = ("SSAForm", "NormalizedStmtStructure", "SplitIncoreOrch", "IncoreTileOps", "TileOps2D",
            "TileMemoryInferred")
_SCALAR, _LOAD, _COMPUTE = 0, 1, 2
_MEMBERSHIP = "pipeline_membership"


def _call_of(stmt: S.Stmt) -> E.Call | None:
    value = stmt.value if isinstance(stmt, S.AssignStmt) else stmt.expr if isinstance(stmt, S.EvalStmt) else None
    return value if isinstance(value, E.Call) else None


def _is_load(stmt: S.Stmt) -> bool:
    call = _call_of(stmt)
    opdef = opdef_of(call) if call is not None else None
    if opdef is None or not isinstance(stmt, S.AssignStmt) or not isinstance(stmt.var.type, TileType):
        return False
    if opdef.traits.gm_transfer:
        return True  # a GM -> tile transfer
    source = call.args[0].type if call.args else None  # type: ignore[union-attr]
    return bool(opdef.traits.read_address_args) and isinstance(source, TileType) \
        and source.memory_space is MemorySpace.Mat \
        and stmt.var.type.memory_space in (MemorySpace.Left, MemorySpace.Right)  # a window of L1 into L0


def _is_store(stmt: S.Stmt, double_buffer_c: bool) -> bool:
    call = _call_of(stmt)
    opdef = opdef_of(call) if call is not None else None
    if opdef is None:
        return False
    if opdef.traits.gm_transfer and not isinstance(call.type, TileType):  # type: ignore[union-attr]
        return True  # a tile -> GM transfer
    return double_buffer_c and opdef.traits.buffer_view == "view" and opdef.traits.output_reuses_input is None \
        and opdef.output_memory is not None and opdef.output_memory.inherit_input == 0 \
        and opdef.arg_effect(0, call.kwargs).value != "Read"  # type: ignore[union-attr]  # a tile assemble


class _Block:
    """One statement list inside a pipeline loop, sorted."""

    def __init__(self, loop: S.ForStmt) -> None:
        self.overlap_stores = bool(loop.attrs.get("pipeline_overlap_stores", True))
        self.double_buffer_c = bool(loop.attrs.get("pipeline_double_buffer_c", False))

    def stage(self, stmt: S.Stmt, stage_of_var: dict[int, str]) -> str:
        call = _call_of(stmt)
        if call is not None and _MEMBERSHIP in call.attrs:
            stage = str(call.attrs[_MEMBERSHIP])
        else:
            stage = next((stage_of_var[id(v)] for v in vars_read(stmt) if id(v) in stage_of_var), "")
        if self.double_buffer_c and ":" in stage:
            group, _, index = stage.partition(":")
            if index.isdigit():
                stage = f"{group}:{int(index) // 2}"
        return stage

    def key(self, i: int, stmt: S.Stmt, stage_of_var: dict[int, str]) -> tuple[int, str, int, int]:
        if isinstance(stmt, S.AssignStmt) and isinstance(stmt.var.type, ScalarType):
            return (_SCALAR, "", 0, i)
        stage = self.stage(stmt, stage_of_var)
        if isinstance(stmt, S.AssignStmt):
            stage_of_var[id(stmt.var)] = stage
        if _is_load(stmt):
            return (_LOAD, stage, 0, i)
        store = self.overlap_stores and _is_store(stmt, self.double_buffer_c)
        return (_COMPUTE, stage, 1 if store else 0, i)

    def sort(self, stmts: list[S.Stmt]) -> list[S.Stmt]:
        tail = [stmts.pop()] if stmts and isinstance(stmts[-1], (S.YieldStmt, S.ReturnStmt)) else []
        if len(stmts) < 2:
            return stmts + tail
        defined: dict[int, int] = {}
        for i, s in enumerate(stmts):
            if isinstance(s, S.AssignStmt):
                defined[id(s.var)] = i
            for v in getattr(s, "return_vars", ()) or ():
                defined[id(v)] = i
        preds = [{defined[id(v)] for v in vars_read(s) if id(v) in defined and defined[id(v)] != i}
                 for i, s in enumerate(stmts)]
        stage_of_var: dict[int, str] = {}
        keys = [self.key(i, s, stage_of_var) for i, s in enumerate(stmts)]
        waiting = [len(p) for p in preds]
        users: list[list[int]] = [[] for _ in stmts]
        for i, p in enumerate(preds):
            for j in p:
                users[j].append(i)
        ready = [keys[i] for i in range(len(stmts)) if waiting[i] == 0]
        heapq.heapify(ready)
        out: list[S.Stmt] = []
        while ready:
            i = heapq.heappop(ready)[3]
            out.append(stmts[i])
            for u in users[i]:
                waiting[u] -= 1
                if waiting[u] == 0:
                    heapq.heappush(ready, keys[u])
        if len(out) != len(stmts):
            raise InternalError("CanonicalizeIOOrder: the statements of a pipeline loop body depend on each other "
                                "in a cycle")
        return out + tail


def _reordered(body: S.Stmt, block: _Block) -> S.Stmt:
    stmts = [_nested(s, block) for s in flatten_to_stmts(body)]
    return make_body(block.sort(stmts), body.span)


def _nested(stmt: S.Stmt, block: _Block) -> S.Stmt:
    """Statement lists nested in a pipeline body (if branches, inner loops) are sorted as well."""
    if isinstance(stmt, S.IfStmt):
        return stmt.with_fields(then_body=_reordered(stmt.then_body, block),
                                else_body=_reordered(stmt.else_body, block) if stmt.else_body is not None else None)
    if isinstance(stmt, S.ForStmt):
        return _resolved(stmt)
    return stmt


def _resolved(loop: S.ForStmt) -> S.Stmt:
    body = _rewrite(loop.body)
    if loop.kind is not ForKind.Pipeline:
        return loop if body is loop.body else loop.with_fields(body=body)  # type: ignore[return-value]
    body = _reordered(body, _Block(loop))
    attrs = {k: v for k, v in loop.attrs.items() if k != "pipeline_stages"}
    return loop.with_fields(body=body, kind=ForKind.Sequential, attrs=attrs)  # type: ignore[return-value]


def _rewrite(stmt: S.Stmt) -> S.Stmt:
    if isinstance(stmt, S.SeqStmts):
        stmts = [_rewrite(s) for s in stmt.stmts]
        return stmt if all(a is b for a, b in zip(stmts, stmt.stmts)) else S.SeqStmts(stmts, stmt.span)
    if isinstance(stmt, S.ForStmt):
        return _resolved(stmt)
    if isinstance(stmt, S.IfStmt):
        then_body = _rewrite(stmt.then_body)
        else_body = _rewrite(stmt.else_body) if stmt.else_body is not None else None
        if then_body is stmt.then_body and else_body is stmt.else_body:
            return stmt
        return stmt.with_fields(then_body=then_body, else_body=else_body)  # type: ignore[return-value]
    if isinstance(stmt, (S.WhileStmt, S.ScopeStmt)):
        body = _rewrite(stmt.body)
        return stmt if body is stmt.body else stmt.with_fields(body=body)  # type: ignore[return-value]
    return stmt


def breaks_inout_discipline(func: F.Function, program: F.Program) -> bool:
    """A value passed as Out / InOut to a function call and read afterwards (such a function is left alone)."""
    written: set[int] = set()
    for stmt in statements(func.body):
        if isinstance(stmt, (S.SeqStmts, S.ForStmt, S.IfStmt, S.WhileStmt, S.ScopeStmt)):
            continue
        if any(id(v) in written for v in vars_read(stmt)):
            return True
        for node in walk(stmt):
            if isinstance(node, E.Call) and isinstance(node.op, E.GlobalVar):
                callee = program.get_function(node.op.name)
                directions = getattr(callee, "param_directions", ()) if callee is not None else ()
                for arg, direction in zip(node.args, directions):
                    if isinstance(arg, E.Var) and direction in (ParamDirection.Out, ParamDirection.InOut):
                        written.add(id(arg))
    return False


class CanonicalizeIOOrder(Pass):
    """Loads first, then each stage's compute and stores, inside pipeline loops; the loops become sequential."""

    name = "CanonicalizeIOOrder"
    factory_name = "canonicalize_io_order"
    required = REQUIRED
    produced = (*REQUIRED, "PipelineResolved")
    invalidated = ()
    description = ("Inside pl.pipeline loop bodies, order scalar arithmetic, then all loads, then each stage's "
                   "compute and stores (a dependence-respecting sort); the loops become sequential.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs = []
        for func in program.functions.values():
            if breaks_inout_discipline(func, program):
                funcs.append(func)
                continue
            body = _rewrite(func.body)
            funcs.append(func if body is func.body else func.with_fields(body=body))
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)  # type: ignore[arg-type]
