"""The StructuredCtrlFlow verifier: no break / continue left in a kernel (docs/passes/ctrl_flow_transform.md)."""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.walk import walk
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import KERNEL_TYPES
from pypto_core.passes.verifier_registry import Diagnostic, error

RULE = "StructuredCtrlFlow"
_FORMS = {S.BreakStmt: (0, "BreakStmt"), S.ContinueStmt: (1, "ContinueStmt")}


def verify_structured_ctrl_flow(program: Any) -> list[Diagnostic]:
    """An error per break / continue in an InCore, AIC or AIV function (the forms CtrlFlowTransform removes)."""
    out: list[Diagnostic] = []
    for func in program.functions.values():
        if func.func_type not in KERNEL_TYPES:
            continue
        for node in walk(func.body):
            form = _FORMS.get(type(node))
            if form is None:
                continue
            code, name = form
            found = error(RULE, f"{name} found — IR is not in structured control flow form (in function "
                                f"'{func.name}'; run ctrl_flow_transform)", node.span)
            found.error_code = code
            out.append(found)
    return out
