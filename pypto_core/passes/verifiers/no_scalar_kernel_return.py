"""NoScalarKernelReturn: an InCore function returns no scalar (docs/passes/outline_incore_scopes.md: scalar live-outs are hoisted)."""

from __future__ import annotations

from pypto_core.ir.enums import FunctionType
from pypto_core.ir.types import ScalarType
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import functions

RULE = "NoScalarKernelReturn"


def verify_no_scalar_kernel_return(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        if func.func_type is not FunctionType.InCore:
            continue
        for i, typ in enumerate(func.return_types):
            if isinstance(typ, ScalarType):
                out.append(error(RULE, f"InCore function '{func.name}' returns a scalar ({typ}) as result {i}; "
                                       "a kernel cannot return a scalar", func.span))
    return out
