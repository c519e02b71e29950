"""LegalizeTileCast (docs/passes/legalize_tile_cast.md): a tile cast the backend cannot make in one instruction
becomes the shortest chain of casts it can.

Which ops are casts is the `cast_hop` op interface (docs/plugins.md, op interfaces); which conversions one
instruction makes is the backend's `native_tile_casts` fact (docs/reference/backends.md). A backend that
states no such fact converts every pair natively as far as this pass knows: the program is returned as it
is. Each hop keeps the cast's rounding mode; the cast's own variable receives the last hop.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import Level
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.rewriting import BodyRewriter
from pypto_core.ir.types import TileType
from pypto_core.ops.registry import op_registry
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_tile.interfaces import CAST_HOP
from pypto_plugins.pass_tile.tile_prep.cast_paths import cast_path

PASS = "LegalizeTileCast"


def pto_dtype_name(dtype: DataType) -> str:
    """A dtype as the PTO toolchain spells it in names and messages: fp32, int8, bfloat16."""
    return "bfloat16" if dtype is DataType.BF16 else dtype.name.lower()


class _Legalizer(BodyRewriter):
    def __init__(self, func: F.Function, edges: tuple[tuple[DataType, DataType], ...], arch: str) -> None:
        super().__init__(func)
        self.edges, self.arch = edges, arch
        self.hops = 0  # the per-function counter of the names of the intermediate casts

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        call = super().rewrite_call(call, args, result)  # type: ignore[assignment]
        hop = op_registry().implementation(CAST_HOP.name, call.op.name) if type(call.op) is E.Op else None
        if hop is None or result is None:
            return call
        source_type = call.args[0].type
        if not isinstance(source_type, TileType):
            raise InternalError(f"{PASS}: the operand of {call.op.name} is {type(source_type).__name__}, not a tile")
        source, target = source_type.dtype, call.type.dtype  # type: ignore[attr-defined]
        chain = cast_path(source, target, self.edges)
        if chain is None:
            raise UserError(f"{PASS}: no native cast path from {pto_dtype_name(source)} to {pto_dtype_name(target)} "
                            f"for arch {self.arch}; pto.tcvt does not support this conversion; convert to a dtype "
                            f"the backend reaches from {pto_dtype_name(source)} instead (its native_tile_casts, "
                            f"docs/reference/backends.md)", call.span)
        value: E.Expr = call.args[0]
        for dtype in chain[:-1]:
            step = hop(call, value, dtype)
            var = E.Var(self.fresh(f"{user_base(result)}__cast_{pto_dtype_name(dtype)}_tmp_v{self.hops}"),
                        step.type, call.span)
            self.hops += 1
            self.pending.append(S.AssignStmt(var, step, call.span))
            value = var
        return call if value is call.args[0] else hop(call, value, target)


def legalize_function(func: F.Function, edges: tuple[tuple[DataType, DataType], ...], arch: str) -> F.Function:
    legalizer = _Legalizer(func, edges, arch)
    body = legalizer.body(func.body)
    return func if legalizer.hops == 0 else func.with_fields(body=body)  # type: ignore[return-value]


class LegalizeTileCast(Pass):
    """Replace each tile cast the backend has no single instruction for by the shortest chain of native casts."""

    name = "LegalizeTileCast"
    factory_name = "legalize_tile_cast"
    description = ("Replace each tile.cast the backend cannot make in one pto.tcvt by the shortest chain of "
                   "native casts (the backend's native_tile_casts).")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        backend = ctx.backend
        edges = backend.fact("native_tile_casts")
        if edges is None:
            return program
        arch = backend.fact("pto_arch", backend.name)
        funcs = [f if f.level is Level.HOST else legalize_function(f, tuple(edges), arch)
                 for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)
