"""InjectGMPipeBuffer: on a backend whose cross-core pipes go through global memory (the capability
`requires_gm_pipe_buffer`: Ascend910B), every kernel that sets up a pipe gets a GM buffer parameter
`__gm_pipe_buffer` (appended, `pl.Out`), the Group / Spmd functions calling such a kernel forward one of
their own, and host code allocates one per call: `pl.tensor.create([1], dtype=pl.FP32, manual_dep=True)`
(docs/passes/inject_gm_pipe_buffer.md). Which calls set up a pipe is asked from the op registry
(`cross_core_role` PIPE_SETUP)."""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.walk import op_calls
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.calls import call_return_type
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import DISPATCHING_TYPES, ParamDirection, TensorLayout
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TensorType
from pypto_core.ir.utils import make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.build import to_tuple
from pypto_core.ops.opdef import CrossCoreRole
from pypto_core.ops.registry import create_op_call, opdef_of
from pypto_core.passes.pass_base import Pass

BUFFER = "__gm_pipe_buffer"
# The buffer stands for the GM workspace the runtime binds to the kernel's pipes: one element, as PyPTO
# creates it (docs/passes/inject_gm_pipe_buffer.md, the buffer).
BUFFER_TYPE = TensorType([1], DataType.FP32)


def _sets_up_a_pipe(func: F.Function) -> bool:
    return any((o := opdef_of(c)) is not None and o.cross_core_role is CrossCoreRole.PIPE_SETUP
               for c in op_calls(func.body))


def _buffer_param(func: F.Function) -> E.Var | None:
    return next((p for p in func.params if p.name_hint == BUFFER and isinstance(p.type, TensorType)), None)


def _with_buffer(func: F.Function) -> tuple[F.Function, E.Var]:
    """`func` with the buffer parameter appended (or the one it has)."""
    have = _buffer_param(func)
    if have is not None:
        return func, have
    taken = next((p for p in func.params if p.name_hint == BUFFER), None)
    if taken is not None:
        raise UserError(f"InjectGMPipeBuffer: function '{func.name}' has a parameter named '{BUFFER}' of type "
                        f"{taken.type}, but that name is reserved for the GM buffer its cross-core pipes go "
                        f"through (a tensor); rename the parameter", taken.span)
    param = E.Var(BUFFER, BUFFER_TYPE, func.span)
    return func.with_fields(params=(*func.params, param),
                            param_directions=(*func.param_directions, ParamDirection.Out)), param


def _called(call: E.Expr, needing: set[str]) -> str | None:
    if isinstance(call, E.Call) and isinstance(call.op, E.GlobalVar) and call.op.name in needing:
        return call.op.name
    return None


class _PassBuffer(IRMutator):
    """Each call of a function in `needing` gets a buffer as its last argument: `buffer` (a wrapper forwards
    its own parameter), or, in host code, a fresh `tensor.create` allocated right before the call."""

    def __init__(self, functions: dict[str, F.Function], needing: set[str], buffer: E.Var | None,
                 fresh: FreshNames) -> None:
        self.functions, self.needing, self.buffer, self.fresh = functions, needing, buffer, fresh
        self.allocations: list[S.Stmt] = []

    def visit_call(self, call: E.Call) -> E.Expr:
        call = self.visit_node(call)  # type: ignore[assignment]
        name = _called(call, self.needing)
        callee = self.functions.get(name) if name is not None else None
        if callee is None or len(call.args) == len(callee.params):
            return call
        buffer = self.buffer
        if buffer is None:
            buffer = E.Var(self.fresh(BUFFER), BUFFER_TYPE, call.span)
            create = create_op_call("tensor.create", [to_tuple([1], call.span)],
                                    {"dtype": DataType.FP32, "layout": TensorLayout.ND, "manual_dep": True}, span=call.span)
            self.allocations.append(S.AssignStmt(buffer, create, call.span))
        args = [*call.args, buffer]
        return call.with_fields(args=tuple(args),
                                type=call_return_type(list(callee.params), list(callee.return_types), args))

    def visit_stmt(self, stmt: S.Stmt) -> S.Stmt:
        """A statement whose calls allocated buffers comes after the allocations (a nested statement flushes
        its own first, so what is left belongs to this one's header or value)."""
        rebuilt = super().visit_stmt(stmt)
        if not self.allocations or isinstance(stmt, S.SeqStmts):
            return rebuilt
        stmts, self.allocations = [*self.allocations, rebuilt], []
        return make_body(stmts, stmt.span)

    def visit_assign_stmt(self, stmt: S.AssignStmt) -> S.Stmt:
        value = self.visit_expr(stmt.value)
        if value is stmt.value:
            return stmt
        var = stmt.var if structural_equal(value.type, stmt.var.type) else E.Var(stmt.var.name_hint, value.type,
                                                                                  stmt.var.span)
        return stmt.with_fields(var=var, value=value)

    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        stmts = [self.visit_stmt(s) for s in seq.stmts]
        if all(a is b for a, b in zip(stmts, seq.stmts)):
            return seq
        return make_body(stmts, seq.span)


class InjectGMPipeBuffer(Pass):
    """Give every pipe-using kernel, and the functions calling it, the GM buffer the backend routes pipes
    through."""

    name = "InjectGMPipeBuffer"
    factory_name = "inject_gm_pipe_buffer"
    description = ("On a backend routing cross-core pipes through global memory (requires_gm_pipe_buffer), append "
                   "a __gm_pipe_buffer parameter to each pipe-using kernel and its wrappers; host code allocates "
                   "it per call.")
    required = ("SSAForm", "MixedKernelExpanded")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        if not ctx.backend.requires_gm_pipe_buffer:
            return program
        functions = {f.name: f for f in program.functions.values()}
        needing = {n for n, f in functions.items() if f.func_type not in DISPATCHING_TYPES and _sets_up_a_pipe(f)}
        if not needing:
            return program
        callers = _callers(functions)
        pending = list(needing)
        while pending:  # wrappers of wrappers: up the call graph to the host
            for caller in callers.get(pending.pop(), ()):
                if caller not in needing and functions[caller].func_type not in DISPATCHING_TYPES:
                    needing.add(caller)
                    pending.append(caller)
        for name in needing:
            functions[name], _ = _with_buffer(functions[name])
        for name, func in functions.items():
            if not any(c in needing for c in _callees(func)):
                continue
            buffer = _buffer_param(func) if name in needing else None
            mutator = _PassBuffer(functions, needing, buffer, FreshNames(func))
            functions[name] = func.with_fields(body=mutator.visit_stmt(func.body))
        return program.with_functions(functions.values())


def _callees(func: F.Function) -> set[str]:
    from pypto_core.ir.utils import function_calls

    return {c.op.name for c in function_calls(func.body) if isinstance(c.op, E.GlobalVar)}


def _callers(functions: dict[str, F.Function]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for name, func in functions.items():
        for callee in _callees(func):
            out.setdefault(callee, []).append(name)
    return out



