"""The dispatches of a program: calls of its own functions made by host-side code.

A host-side function (Orchestration, Opaque, Graph, Inline) submits each call of a program function as a
task; kernels and Groups run inside one core group, so their calls are not dispatches.
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir.enums import DISPATCHING_TYPES
from pypto_core.ir.function import Function, Program


def host_functions(program: Program) -> list[Function]:
    return [f for f in program.functions.values() if f.func_type in DISPATCHING_TYPES]


def callee_of(program: Program, call: E.Call) -> Function | None:
    return program.get_function(call.op.name) if isinstance(call.op, E.GlobalVar) else None
