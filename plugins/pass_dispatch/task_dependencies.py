"""AutoDeriveTaskDependencies (docs/passes/auto_derive_task_dependencies.md): in PyPTO it derives the
dependencies between tasks submitted inside runtime scopes (`pl.scope`, `pl.manual_scope`, `pl.at(deps=...)`, task
ids). pypto supports none of these (the parser rejects them), so a
program here submits no task that carries an explicit dependency: the order of its dispatches and their
argument directions (DeriveCallDirections) is all the ordering it has, and the pass returns it unchanged. It is
registered so that pipelines written for PyPTO that name it run.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import function as F
from pypto_core.passes.pass_base import Pass, PassOptions


class AutoDeriveTaskDependenciesOptions(PassOptions):
    # PyPTO: also analyse scopes in automatic mode; there are no runtime scopes here either way.
    analyze_auto_scopes: bool = False


class AutoDeriveTaskDependencies(Pass):
    """Task dependencies of runtime scopes (none exist in pypto: docs/passes/auto_derive_task_dependencies.md)."""

    name = "AutoDeriveTaskDependencies"
    factory_name = "auto_derive_task_dependencies"
    Options = AutoDeriveTaskDependenciesOptions
    description = ("Derive the dependencies of tasks submitted in runtime scopes; pypto has no runtime scopes "
                   "(pl.scope, deps=), so programs pass unchanged.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        return program
