"""StampTfreeSplit: each cross-core free carries the split code and pipe id of the pop it frees
(docs/passes/stamp_tfree_split.md).

Which calls are pops and frees, and which side of the pipe they run on, is asked from the op registry (an
op's `cross_core_role` and its core affinity, docs/plugins.md, OpDef fields): a free frees a pop made on the
same core (tfree_to_aic, on a vector lane, frees a tpop_from_aic).
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.opdef import CrossCoreRole, OpDef
from pypto_core.ops.registry import create_op_call, op_registry, opdef_of
from pypto_core.passes.pass_base import Pass


def _pops_on(side: Any) -> list[str]:
    """The registered pop ops that run on `side` (the core affinity of a free)."""
    return sorted(name for name, opdef in op_registry().ops.items()
                  if opdef.cross_core_role is CrossCoreRole.POP and opdef.affinity == side)


class _Pop:
    def __init__(self, opdef: OpDef, call: E.Call) -> None:
        self.op = opdef.name
        self.side = opdef.affinity
        self.split = call.kwargs.get("split", 0) or 0
        self.pipe_id = call.kwargs.get("id")


class _Stamp(IRMutator):
    def __init__(self) -> None:
        self.pops: dict[int, _Pop] = {}  # one table per function, filled in statement order

    def visit_assign_stmt(self, stmt: S.AssignStmt) -> S.Stmt:
        opdef = opdef_of(stmt.value)
        if opdef is not None and opdef.cross_core_role is CrossCoreRole.POP:
            self.pops[id(stmt.var)] = _Pop(opdef, stmt.value)  # type: ignore[arg-type]
        return self.visit_node(stmt)

    def visit_eval_stmt(self, stmt: S.EvalStmt) -> S.Stmt:
        call = stmt.expr
        opdef = opdef_of(call)
        if opdef is None or opdef.cross_core_role is not CrossCoreRole.FREE:
            return self.visit_node(stmt)
        assert isinstance(call, E.Call)
        if not call.args or not isinstance(call.args[0], E.Var):
            return stmt  # only a freed variable can be traced to its pop
        pop = self.pops.get(id(call.args[0]))
        name = call.op.name
        expected = _pops_on(opdef.affinity)
        wanted = " / ".join(expected) or "tpop"
        if pop is None:
            raise UserError(f"{name} requires its tile argument to come from a matching {wanted}, but no "
                            f"originating tpop was found: free the tile a {wanted} returned (the pop must come "
                            f"before its free, in the same function)", call.span)
        if pop.side != opdef.affinity:
            raise UserError(f"{name} requires its tile argument to come from {wanted}, got {pop.op}: a slot is "
                            f"freed on the core that popped it; use the free of that pop's direction", call.span)
        freed_id = call.kwargs.get("id")
        pop_id = pop.pipe_id if pop.pipe_id is not None else 0
        if freed_id is not None and freed_id != pop_id:
            raise UserError(f"{name} pipe id {freed_id} does not match originating {pop.op} pipe id {pop_id}: "
                            f"free the slot on the pipe it was popped from (id={pop_id}), or drop the id",
                            call.span)
        kwargs: dict[str, Any] = {"split": pop.split}
        pipe_id = pop.pipe_id if pop.pipe_id is not None else freed_id
        if pipe_id is not None:
            kwargs["id"] = pipe_id
        if call.kwargs == kwargs and list(call.kwargs) == list(kwargs):
            return stmt
        stamped = create_op_call(name, list(call.args), kwargs=kwargs, span=call.span)
        return stmt.with_fields(expr=stamped)

    def visit_function(self, func: F.Function) -> F.Function:
        self.pops = {}
        return self.visit_node(func)


class StampTfreeSplit(Pass):
    """Copy each cross-core pop's split code and pipe id onto the free of its slot; check the free matches."""

    name = "StampTfreeSplit"
    factory_name = "stamp_tfree_split"
    description = ("Give each system.tfree_* the split code and pipe id of the tpop it frees, and check that it "
                   "frees a pop of its own direction and pipe.")
    required = ("SplitIncoreOrch",)

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        return _Stamp().visit_program(program)
