"""DeriveCallDirections (docs/passes/derive_call_directions.md): each dispatch gets the direction of each
argument, `attrs["arg_directions"]`, from its callee's parameter directions and where the call stands.

Per argument: a scalar parameter -> `scalar`; `In` -> `input`; `InOut` -> `inout`; `Out` -> `inout` when the
write must be ordered after something (PyPTO's InferParamDirections rule; docs/passes/derive_call_directions.md,
what it does): the call is inside a sequential loop, an earlier statement of the function wrote the same root buffer, or the root is an `InOut`
parameter of the calling function; else `output` when the root is a tensor the function allocates (an op's
tensor result computed from no tensor operand: `pl.create_tensor`, `pl.tensor.full`), which the call fills first, and `output_existing` for any other existing tensor. A
`no_dep` written in the call's `arg_directions` is kept. The root of an argument is the buffer it is, through
copies, in-place writes and calls returning a parameter (pypto_core.analysis.lineage) and through views (ops with the
registry trait `aliases_operand`).
"""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.lineage import Lineage
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import DISPATCHING_TYPES, ArgDirection, ForKind, ParamDirection
from pypto_core.ir.types import ScalarType, TensorType
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_dispatch.dispatches import callee_of

_WRITES = (Effect.WRITE, Effect.READ_WRITE)


class _Directions(IRMutator):
    """One host function, in program order: the roots written so far and the loops the walk is inside."""

    def __init__(self, program: F.Program, func: F.Function) -> None:
        self.program = program
        self.lineage = Lineage().scan(func.body)
        self.view_of: dict[int, E.Expr] = {}  # a view variable -> the operand it views
        self.created: set[int] = set()  # roots the function allocates: an op's tensor made from no tensor
        self.inout_params = {id(p) for p, d in zip(func.params, func.param_directions) if d is ParamDirection.InOut}
        self.written: set[int] = set()
        self.sequential_depth = 0

    # -- roots -------------------------------------------------------------------------------------
    def root(self, e: E.Expr) -> E.Var | None:
        seen = 0
        while True:
            var = self.lineage.root(e) if isinstance(e, E.Var) else None
            if var is None or id(var) not in self.view_of or seen > 10_000:
                return var
            e, seen = self.view_of[id(var)], seen + 1

    def _note_definition(self, var: E.Var, value: E.Expr) -> None:
        if isinstance(value, E.Call) and type(value.op) is E.Op:
            opdef = opdef_of(value)
            if opdef is not None and opdef.traits.aliases_operand and value.args:
                self.view_of[id(var)] = value.args[0]
            elif isinstance(value.type, TensorType) and not any(isinstance(a.type, TensorType) for a in value.args):
                self.created.add(id(var))  # a tensor made from no tensor: a fresh buffer (pl.create_tensor, full)

    def _note_op_writes(self, call: E.Call) -> None:
        opdef = opdef_of(call)
        if opdef is None:
            return
        for i, effect in opdef.arg_effects(call.kwargs).items():
            if effect in _WRITES and i < len(call.args):
                self._mark_written(call.args[i])

    def _mark_written(self, arg: E.Expr) -> None:
        root = self.root(arg)
        if root is not None:
            self.written.add(id(root))

    # -- the walk ----------------------------------------------------------------------------------
    def visit_assign_stmt(self, s: S.AssignStmt) -> S.Stmt:
        new = super().visit_assign_stmt(s)
        self._note_definition(s.var, s.value)
        return new

    def visit_for_stmt(self, s: S.ForStmt) -> S.Stmt:
        sequential = s.kind is not ForKind.Parallel
        self.sequential_depth += sequential
        try:
            return super().visit_for_stmt(s)
        finally:
            self.sequential_depth -= sequential

    def visit_while_stmt(self, s: S.WhileStmt) -> S.Stmt:
        self.sequential_depth += 1
        try:
            return super().visit_while_stmt(s)
        finally:
            self.sequential_depth -= 1

    def visit_call(self, call: E.Call) -> E.Expr:
        call = super().visit_call(call)  # type: ignore[assignment]
        if not isinstance(call, E.Call):
            return call
        if type(call.op) is E.Op:
            self._note_op_writes(call)
            return call
        callee = callee_of(self.program, call)
        if callee is None or len(callee.params) != len(call.args):
            return call
        directions = self._directions(call, callee)
        for arg, direction in zip(call.args, directions):
            if direction in (ArgDirection.Output, ArgDirection.OutputExisting, ArgDirection.InOut):
                self._mark_written(arg)
        if list(call.arg_directions) == directions:
            return call
        return call.with_fields(attrs={**call.attrs, "arg_directions": directions})

    def _directions(self, call: E.Call, callee: F.Function) -> list[ArgDirection]:
        given = list(call.arg_directions)
        kept = given if len(given) == len(call.args) else [None] * len(call.args)
        return [ArgDirection.NoDep if kept[i] is ArgDirection.NoDep else self._direction(arg, param, direction)
                for i, (arg, param, direction) in enumerate(zip(call.args, callee.params, callee.param_directions))]

    def _direction(self, arg: E.Expr, param: E.Var, direction: ParamDirection) -> ArgDirection:
        if isinstance(param.type, ScalarType):
            return ArgDirection.Scalar
        if direction is ParamDirection.In:
            return ArgDirection.Input
        if direction is ParamDirection.InOut:
            return ArgDirection.InOut
        root = self.root(arg)
        key = id(root) if root is not None else None
        if self.sequential_depth or key in self.written or key in self.inout_params:
            return ArgDirection.InOut
        return ArgDirection.Output if key in self.created else ArgDirection.OutputExisting


class DeriveCallDirections(Pass):
    """Give every dispatch its arguments' directions (docs/passes/derive_call_directions.md)."""

    name = "DeriveCallDirections"
    factory_name = "derive_call_directions"
    produced = ("CallDirectionsResolved",)
    description = ("Each call of a program function from host-side code gets attrs['arg_directions'] "
                   "(input / output / output_existing / inout / no_dep / scalar) from its callee's parameters.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        old = list(program.functions.values())
        new = [_Directions(program, f).visit_function(f) if f.func_type in DISPATCHING_TYPES else f for f in old]
        return program if all(a is b for a, b in zip(old, new)) else program.with_functions(new)
