"""OutlineHierarchyScopes (docs/passes/outline_hierarchy_scopes.md): every `with pl.at(level=L[, role=R])` scope
with L other than CORE_GROUP in an Opaque function becomes an Opaque function carrying `level=L`, `role=R`,
and the scope a call of it; inner Hierarchy scopes are lifted out of the new function in turn. Functions of
other types keep their Hierarchy scopes (PyPTO leaves them in place, unreported).
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, ParamDirection
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.registry import is_op_registered
from pypto_core.passes.pass_base import Pass
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_plugins.pass_outline.hierarchy_names import HierarchyNames
from pypto_plugins.pass_outline.hierarchy_outliner import HierarchyOutliner
from pypto_plugins.pass_outline.outline_incore_scopes import all_returned_params


class _HierarchyScopes(IRVisitor):
    def __init__(self) -> None:
        self.found: list[S.HierarchyScopeStmt] = []

    def visit_hierarchy_scope_stmt(self, s: S.HierarchyScopeStmt) -> None:
        self.found.append(s)
        self.visit_node(s)


def hierarchy_scopes(func: F.Function) -> list[S.HierarchyScopeStmt]:
    walker = _HierarchyScopes()
    walker.visit_stmt(func.body)
    return walker.found


def _functions(program: F.Program | F.Function) -> list[F.Function]:
    return [program] if isinstance(program, F.Function) else list(program.functions.values())


def verify_hierarchy_outlined(program: F.Program | F.Function) -> list[Diagnostic]:
    """HierarchyOutlined: no Opaque function holds a Hierarchy scope."""
    return [error("HierarchyOutlined", f"Hierarchy ScopeStmt found in function '{f.name}' (should have been "
                                       f"outlined)", s.span)
            for f in _functions(program) if f.func_type is FunctionType.Opaque for s in hierarchy_scopes(f)]


class _FunctionCalls(IRVisitor):
    def __init__(self) -> None:
        self.calls: list[E.Call] = []

    def visit_call(self, c: E.Call) -> None:
        if isinstance(c.op, E.GlobalVar):
            self.calls.append(c)
        self.visit_node(c)


def verify_orchestration_references(program: F.Program | F.Function) -> list[Diagnostic]:
    """OrchestrationReferencesResolved: every function an Orchestration function calls is in the program."""
    if isinstance(program, F.Function):
        return []
    names = {f.name for f in program.functions.values()}
    found = []
    for f in program.functions.values():
        if f.func_type is not FunctionType.Orchestration:
            continue
        walker = _FunctionCalls()
        walker.visit_stmt(f.body)
        for c in walker.calls:
            if c.op.name not in names and not is_op_registered(c.op.name):
                found.append(error("OrchestrationReferencesResolved",
                                   f"Orchestration function '{f.name}' references undefined function "
                                   f"'{c.op.name}'. Add the function to the program or inline it.", c.span))
    return found


class OutlineHierarchyScopes(Pass):
    """Lift Hierarchy scopes into Opaque functions with level / role (docs/passes/outline_hierarchy_scopes.md)."""

    name = "OutlineHierarchyScopes"
    factory_name = "outline_hierarchy_scopes"
    required = ("SSAForm",)
    produced = ("SSAForm", "HierarchyOutlined", "OrchestrationReferencesResolved")
    description = ("Outline `with pl.at(level=L)` scopes (L other than CORE_GROUP) of Opaque functions into Opaque "
                   "functions carrying that level and role (docs/passes/outline_hierarchy_scopes.md).")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs = list(program.functions.values())
        if not any(f.func_type is FunctionType.Opaque and hierarchy_scopes(f) for f in funcs):
            return program
        names = HierarchyNames(f.name for f in funcs)
        directions: dict[str, list[ParamDirection]] = {f.name: list(f.param_directions) for f in funcs}
        returns, _ = all_returned_params(funcs)
        outliner = HierarchyOutliner(names, directions, returns)
        out = [outliner.run(f) if f.func_type is FunctionType.Opaque else f for f in funcs]
        return F.Program(outliner.made + out, program.name, program.span)
