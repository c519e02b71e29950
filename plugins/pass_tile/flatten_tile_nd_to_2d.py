"""FlattenTileNdTo2D (docs/passes/flatten_tile_nd_to_2d.md): tiles of rank > 2 in InCore functions become 2-D.

The leading dims merge into rows, the last dim stays: a [2, 16, 64] tile becomes [32, 64]. Loads and
stores keep their N-D tensor coordinates (a load's valid extents become 2-D, a store gets the N-D
extents it writes as its `shapes` operand), shapes and element indices inside tiles are rewritten —
each op's rule is its implementation of the flatten_2d op interface. An op without a rule is the same op on the
flattened operands, accepted only when its result is the flattened result (a row-wise op); otherwise,
and whenever a window cannot be written in 2-D, a located ValueError says which op and why.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.rewriting import BodyRewriter
from pypto_core.ir.types import TileType, dims_equal
from pypto_core.language.printer import python_print_type
from pypto_core.ops.build import merged_2d, shape_text
from pypto_core.ops.registry import create_op_call, op_registry, opdef_of
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_tile.interfaces import FLATTEN_2D

PASS = "FlattenTileNdTo2D"


def _nd(e: E.Expr) -> bool:
    return isinstance(e.type, TileType) and len(e.type.shape) > 2


class _Flattener(BodyRewriter):

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        touched = any(a is not b for a, b in zip(args, call.args)) or _nd(call)
        if not touched:
            return call
        opdef = opdef_of(call)
        if opdef is None:
            return call.with_fields(args=tuple(args))
        try:
            flatten_2d = op_registry().implementation(FLATTEN_2D.name, opdef.name)
            if flatten_2d is not None:
                new = flatten_2d(call, args)
            else:
                new = create_op_call(call.op.name, args, dict(call.kwargs), span=call.span)
        except (TypeError, ValueError) as exc:
            raise UserError(f"{PASS}: {call.op.name} in InCore function '{self.func.name}' has no 2-D form: "
                            f"{exc}", call.span) from None
        self._check_result(call, new)
        return new.with_fields(attrs=dict(call.attrs)) if call.attrs else new

    def _check_result(self, old: E.Call, new: E.Call) -> None:
        t, n = old.type, new.type
        if not isinstance(t, TileType) or not isinstance(n, TileType):
            return
        want = merged_2d(t.shape)
        if not dims_equal(n.shape, want):
            raise UserError(f"{PASS}: {old.op.name} in InCore function '{self.func.name}' has no 2-D form: "
                            f"on the flattened operands it gives {shape_text(n.shape)}, not the flattened "
                            f"{shape_text(want)} of its {len(t.shape)}-D result {python_print_type(t)}; reshape "
                            f"its operand to 2-D first (pl.reshape) so that the op sees the axes it works on",
                            old.span)


def flatten_function(func: F.Function) -> F.Function:
    for p in func.params:
        if _nd(p):
            raise UserError(f"{PASS}: InCore function '{func.name}' takes the {len(p.type.shape)}-D tile "  # type: ignore[attr-defined]
                            f"'{p.name_hint}'; pass a tensor (or a 2-D tile) instead", p.span)
    body = _Flattener(func).body(func.body)
    return func if body is func.body else func.with_fields(body=body)  # type: ignore[return-value]


class FlattenTileNdTo2D(Pass):
    """Make every tile of an InCore function 2-D."""

    name = "FlattenTileNdTo2D"
    factory_name = "flatten_tile_nd_to_2d"
    required = ("SSAForm", "IncoreTileOps")
    produced = ("SSAForm", "IncoreTileOps", "TileOps2D", "NormalizedStmtStructure")
    description = "Merge the leading dims of N-D tiles into rows; loads and stores keep N-D tensor coordinates."

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs = [flatten_function(f) if f.func_type is FunctionType.InCore else f for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)
