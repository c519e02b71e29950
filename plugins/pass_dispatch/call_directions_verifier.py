"""CallDirectionsResolved: every dispatch names the direction of each argument, consistently with its callee
(docs/passes/derive_call_directions.md)."""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir.enums import ArgDirection, ParamDirection
from pypto_core.ir.function import Function, Program
from pypto_core.ir.types import ScalarType
from pypto_core.ir.utils import function_calls
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_plugins.pass_dispatch.dispatches import callee_of, host_functions

RULE = "CallDirectionsResolved"

# The directions an argument may have for a tensor parameter of each direction (no_dep opts out of tracking).
_ACCEPTED = {
    ParamDirection.In: (ArgDirection.Input, ArgDirection.NoDep),
    ParamDirection.Out: (ArgDirection.Output, ArgDirection.OutputExisting, ArgDirection.InOut, ArgDirection.NoDep),
    ParamDirection.InOut: (ArgDirection.InOut, ArgDirection.NoDep),
}


def verify_call_directions(program: Program | Function) -> list[Diagnostic]:
    if not isinstance(program, Program):
        return []
    out: list[Diagnostic] = []
    for func in host_functions(program):
        for call in function_calls(func.body):
            callee = callee_of(program, call)
            if callee is None:
                continue
            problem = _problem(call, callee)
            if problem is not None:
                out.append(error(RULE, f"in '{func.name}', the call of '{callee.name}' {problem}; "
                                       f"DeriveCallDirections gives every dispatch its directions", call.span))
    return out


def _problem(call: E.Call, callee: Function) -> str | None:
    given = list(call.arg_directions)
    if not given:
        return "has no arg_directions"
    if len(given) != len(call.args):
        return f"has {len(given)} arg_directions for {len(call.args)} argument(s)"
    for i, (d, param, pdir) in enumerate(zip(given, callee.params, callee.param_directions)):
        if not isinstance(d, ArgDirection):
            return f"gives argument {i + 1} the direction {d!r}, not a pl.adir value"
        scalar = isinstance(param.type, ScalarType)
        if scalar != (d is ArgDirection.Scalar) and d is not ArgDirection.NoDep:
            return (f"gives argument {i + 1} ('{param.name_hint}', {'a scalar' if scalar else 'a tensor'}) the "
                    f"direction {d.name}")
        if not scalar and d not in _ACCEPTED[pdir]:
            return f"gives argument {i + 1} ('{param.name_hint}', {pdir.name}) the direction {d.name}"
    return None
