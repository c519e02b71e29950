"""Entry point of the pass_dispatch plugin: DeriveCallDirections (and the property it establishes),
AutoDeriveTaskDependencies, NormalizeReturnOrder, OptimizeOrchTensors."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_dispatch.call_directions_verifier import verify_call_directions
from pypto_plugins.pass_dispatch.derive_call_directions import DeriveCallDirections
from pypto_plugins.pass_dispatch.normalize_return_order import NormalizeReturnOrder
from pypto_plugins.pass_dispatch.optimize_orch_tensors import OptimizeOrchTensors
from pypto_plugins.pass_dispatch.task_dependencies import AutoDeriveTaskDependencies


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    registry.register_pass(DeriveCallDirections)
    registry.register_pass(AutoDeriveTaskDependencies)
    registry.register_pass(NormalizeReturnOrder)
    registry.register_pass(OptimizeOrchTensors)


@hookimpl
def pypto_register_properties(registry: Any) -> None:
    registry.register_property("CallDirectionsResolved", verify_call_directions,
                               "every call of a program function from host-side code names each argument's direction")
