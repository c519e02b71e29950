"""Entry point of the pass_canonicalize plugin: CtrlFlowTransform, Simplify and the StructuredCtrlFlow verifier."""

from __future__ import annotations

from typing import Any

from pypto_core.plugins import hookimpl
from pypto_plugins.pass_canonicalize.ctrl_flow_transform import CtrlFlowTransform
from pypto_plugins.pass_canonicalize.simplify import Simplify
from pypto_plugins.pass_canonicalize.structured_ctrl_flow import RULE, verify_structured_ctrl_flow


@hookimpl
def pypto_register_passes(registry: Any) -> None:
    registry.register_pass(CtrlFlowTransform)
    registry.register_pass(Simplify)


@hookimpl
def pypto_register_properties(registry: Any) -> None:
    registry.register_property(RULE, verify_structured_ctrl_flow,
                               "no break / continue in InCore, AIC or AIV functions")
