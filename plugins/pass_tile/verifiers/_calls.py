"""Walking the op calls of the kernels the tile verifiers look at."""

from __future__ import annotations

from collections.abc import Iterator

from pypto_core.ir import expr as E
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.function import Function, Program
from pypto_core.ir.visitor import IRVisitor

# Functions whose bodies hold tile code.
KERNEL_TYPES = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)


def kernels(program: Program | Function, types: tuple[FunctionType, ...] = KERNEL_TYPES) -> Iterator[Function]:
    funcs = [program] if isinstance(program, Function) else list(program.functions.values())
    return (f for f in funcs if f.func_type in types)


class _Calls(IRVisitor):
    def __init__(self) -> None:
        self.found: list[E.Call] = []

    def visit_call(self, call: E.Call) -> None:
        self.found.append(call)
        super().visit_call(call)


def op_calls(func: Function) -> list[E.Call]:
    """Every call of a registered op in the function's body, nested ones included."""
    walker = _Calls()
    walker.visit_stmt(func.body)
    return [c for c in walker.found if not isinstance(c.op, E.GlobalVar)]


def describe(e: E.Expr) -> str:
    """How a message names an operand: its variable, or the op that computes it inline."""
    if isinstance(e, E.Var):
        return e.name_hint
    if isinstance(e, E.Call):
        return f"{e.op.name}(...)"
    return type(e).__name__
