"""InsertMxScaleAddr (docs/passes/insert_mx_scale_addr.md): before every MX matmul, each scale operand is bound
to the scale region of its data operand, and the matmul reads the bound scale.

Which ops are MX matmuls, which (data, scale) operand pairs they take and how a scale is bound are the
`mx_scale_pairs` op interface (docs/plugins.md, op interfaces). The pass runs once memory spaces are known
(a scale must live in the scale space of its data's space, which the binding op's type rule checks); a backend
whose cube has no MX matmul (the `supports_mx_matmul` capability) rejects the program.
"""

from __future__ import annotations

from typing import Any

from pypto_core.backend.registry import BACKENDS
from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.rewriting import BodyRewriter
from pypto_core.ops.registry import create_op_call, op_registry
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_tile.interfaces import MX_SCALE_PAIRS

PASS = "InsertMxScaleAddr"
MX_CAPABILITY = "supports_mx_matmul"


def _backend_text(backend: Any) -> str:
    return f"'{backend.fact('pto_arch', backend.name)}'"


def reject_without_mx(call: E.Call, backend: Any) -> None:
    if backend.capability(MX_CAPABILITY):
        return
    able = [f"{b.name} ({_backend_text(b)})" for _, b in sorted(BACKENDS.items()) if b.capability(MX_CAPABILITY)]
    where = f"the {' or '.join(able)} backend" if able else f"a backend with the {MX_CAPABILITY} capability"
    raise UserError(f"{call.op.name} is only supported on {where}, but got {_backend_text(backend)}; compile "
                    f"for such a backend (--backend) or use tile.matmul on FP16 / BF16 operands", call.span)


class _Binder(BodyRewriter):
    def __init__(self, func: F.Function, backend: Any) -> None:
        super().__init__(func)
        self.backend = backend
        self.bound = 0

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        call = super().rewrite_call(call, args, result)  # type: ignore[assignment]
        mx = op_registry().implementation(MX_SCALE_PAIRS.name, call.op.name) if type(call.op) is E.Op else None
        if mx is None or result is None:
            return call
        reject_without_mx(call, self.backend)
        operands = list(call.args)
        for data_index, scale_index in mx["pairs"]:
            operands[scale_index] = self._bind(call, operands[scale_index], operands[data_index], mx["bind"])
        new = create_op_call(call.op.name, operands, dict(call.kwargs), span=call.span)
        return new.with_fields(attrs=dict(call.attrs)) if call.attrs else new

    def _bind(self, call: E.Call, scale: E.Expr, data: E.Expr, bind: Any) -> E.Var:
        if not isinstance(scale, (E.Var, E.IterArg)) or not isinstance(data, (E.Var, E.IterArg)):
            raise InternalError(f"{PASS}: the operands of {call.op.name} must be variables (normalized statements)")
        spaces = (scale.type.memory_space, data.type.memory_space)  # type: ignore[attr-defined]
        try:
            if None in spaces:
                raise TypeError("a memory space is not inferred")
            value = bind(scale, data, call.span)
        except TypeError as exc:
            raise InternalError(f"{PASS} requires resolved LeftScale↔Left or RightScale↔Right pairing for "
                                f"{call.op.name}, got {spaces[0]} and {spaces[1]} ({exc}) (run InferTileMemorySpace "
                                f"first)") from None
        var = E.Var(self.fresh(f"{scale.name_hint}_bound"), value.type, call.span)
        self.pending.append(S.AssignStmt(var, value, call.span))
        self.bound += 1
        return var


def bind_function(func: F.Function, backend: Any) -> F.Function:
    binder = _Binder(func, backend)
    body = binder.body(func.body)
    return func if binder.bound == 0 else func.with_fields(body=body)  # type: ignore[return-value]


class InsertMxScaleAddr(Pass):
    """Bind each MX matmul's scales to their data operands (tile.tget_scale_addr) right before the matmul."""

    name = "InsertMxScaleAddr"
    factory_name = "insert_mx_scale_addr"
    required = ("SSAForm", "NormalizedStmtStructure", "SplitIncoreOrch", "IncoreTileOps", "TileMemoryInferred")
    produced = required
    description = ("Before every MX matmul, bind each scale operand to its data operand's scale region "
                   "(tile.tget_scale_addr) and make the matmul read the bound scale.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs = [bind_function(f, ctx.backend) if f.func_type is FunctionType.InCore else f
                 for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)
