"""A generic walk of IR: every node under a program, function, statement or expression, in program order.

Passes and verifiers ask "which op calls does this body make", "which variables does this value read",
"which statements are in this function": these answer it once, instead of an IRVisitor subclass per
question. The walk follows the node classes' field declarations (as the visitor does), parent before
children; it does not enter types (a dynamic dim in a type is not a read) nor op handles.
`stop_at` node classes are yielded but not entered (a nested `pl.at` scope, say).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import KERNEL_TYPES, FunctionType
from pypto_core.ir.node import FieldRole, IRNode

Walkable = Any  # a Program, Function, Stmt, Expr, or a list / tuple / mapping of them


def walk(node: Walkable, stop_at: tuple[type, ...] = (), defs: bool = True) -> Iterator[IRNode]:
    """Every statement and expression under `node`, parent before children, in field order.

    A loop's iter_arg is followed into its initial value where the loop declares it (its header), not where
    the body uses it. `defs=False` leaves out the variables statements define (assignment targets, loop
    variables, iter_args, return variables): what remains are reads."""
    stack: list[Any] = [node]
    while stack:
        value = stack.pop()
        if isinstance(value, F.Program):
            stack.extend(reversed(list(value.functions.values())))
        elif isinstance(value, F.Function):
            stack.append(value.body)
            if defs:
                stack.extend(reversed(value.params))
        elif isinstance(value, _Defined):
            if defs:
                yield value.var
            if isinstance(value.var, E.IterArg):
                stack.append(value.var.initValue)
        elif isinstance(value, (S.Stmt, E.Expr)):
            if isinstance(value, E.Op):
                continue
            yield value
            if isinstance(value, E.Var) or isinstance(value, stop_at):
                continue  # a variable's only child is its type
            children: list[Any] = []
            for spec in value.FIELDS:
                if spec.role is FieldRole.IGNORED or spec.name == "type":
                    continue
                child = getattr(value, spec.name)
                if spec.role is FieldRole.DEF:
                    child = [_Defined(v) for v in (child if isinstance(child, (list, tuple)) else [child])
                             if isinstance(v, E.Var)]
                children.append(child)
            stack.extend(reversed(children))
        elif isinstance(value, (tuple, list)):
            stack.extend(reversed(value))
        elif isinstance(value, Mapping):
            stack.extend(reversed(list(value.values())))


class _Defined:
    """A variable where a statement defines it; an iter_arg's initial value is entered there."""

    __slots__ = ("var",)

    def __init__(self, var: E.Var) -> None:
        self.var = var


def op_calls(node: Walkable, stop_at: tuple[type, ...] = ()) -> list[E.Call]:
    """Every call of an op (not of a program function) under `node`, nested calls included, in program order."""
    return [n for n in walk(node, stop_at) if isinstance(n, E.Call) and not isinstance(n.op, E.GlobalVar)]


def statements(node: Walkable, stop_at: tuple[type, ...] = ()) -> Iterator[S.Stmt]:
    """Every statement under `node`, outer before inner, in program order."""
    return (n for n in walk(node, stop_at) if isinstance(n, S.Stmt))


def vars_read(node: Walkable) -> list[E.Var]:
    """The variables `node` reads, in order of appearance (with repeats); an iter_arg counts where it is used."""
    return [n for n in walk(node, defs=False) if isinstance(n, E.Var)]


def kernels(program: F.Program | F.Function, types: tuple[FunctionType, ...] = KERNEL_TYPES) -> Iterator[F.Function]:
    """The functions of `program` (or `program` itself) whose type is one of `types`: by default those
    holding tile code (InCore, AIC, AIV)."""
    funcs = [program] if isinstance(program, F.Function) else list(program.functions.values())
    return (f for f in funcs if f.func_type in types)
