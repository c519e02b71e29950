"""OutlineClusterScopes (docs/passes/outline_cluster_scopes.md): `pl.cluster()` scopes would become Cluster
functions. pypto does not support cluster scopes (docs/passes/outline_cluster_scopes.md: the parser
rejects `pl.cluster`), so a program holds none unless built by hand; such a program is a located error naming the scope,
and any other program already has the property the pass establishes (ClusterOutlined) and passes unchanged, so
that pipelines written for PyPTO that name the pass run here.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.function import Function, Program
from pypto_core.ir.visitor import IRVisitor
from pypto_core.passes.pass_base import Pass
from pypto_core.passes.verifier_registry import Diagnostic, error


class _ClusterScopes(IRVisitor):
    def __init__(self) -> None:
        self.found: list[S.ClusterScopeStmt] = []

    def visit_cluster_scope_stmt(self, s: S.ClusterScopeStmt) -> None:
        self.found.append(s)
        super().visit_cluster_scope_stmt(s)


def cluster_scopes(func: Function) -> list[S.ClusterScopeStmt]:
    walker = _ClusterScopes()
    walker.visit_stmt(func.body)
    return walker.found


def verify_cluster_outlined(program: Program | Function) -> list[Diagnostic]:
    funcs = [program] if isinstance(program, Function) else list(program.functions.values())
    return [error("ClusterOutlined", f"function '{f.name}' still holds a pl.cluster scope", s.span)
            for f in funcs for s in cluster_scopes(f)]


class OutlineClusterScopes(Pass):
    """Outline `pl.cluster()` scopes (none can be written in pypto: docs/passes/outline_cluster_scopes.md)."""

    name = "OutlineClusterScopes"
    factory_name = "outline_cluster_scopes"
    produced = ("ClusterOutlined",)
    description = ("Outline pl.cluster scopes into Cluster functions; pypto supports no cluster scope, so a "
                   "program holding one is a located error and any other passes unchanged.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        for func in program.functions.values():
            found = cluster_scopes(func)
            if found:
                raise UserError(f"OutlineClusterScopes: function '{func.name}' holds a pl.cluster scope, which pypto "
                                f"does not support (cluster scopes are out of its scope); express the work with "
                                f"pl.at(level=pl.Level.CORE_GROUP) scopes instead", found[0].span)
        return program
