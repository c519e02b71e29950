"""ResolveBackendOpLayouts (docs/passes/resolve_backend_op_layouts.md): an op whose backend instruction needs
row-major tiles gets them.

Which operands and whether the result must be row-major is the op's `row_major_layout` op interface
(docs/plugins.md, op interfaces). Before the call, each operand that is not effectively row-major is
repaired: an [N, 1] column becomes a [1, N] row (tile.reshape), any other tile is moved into a row-major
layout of its own space (tile.move). A result that must be row-major but is not is computed into a
row-major temporary and brought back to its layout afterwards, so every variable keeps its type.
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import CORE_KERNEL_TYPES, FunctionType, TileLayout
from pypto_core.ir.expr import ConstInt, MakeTuple
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.rewriting import BodyRewriter
from pypto_core.ir.types import TileType
from pypto_core.ops.build import static_int
from pypto_core.ops.registry import create_op_call, op_registry
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_tile.interfaces import ROW_MAJOR_LAYOUT

PASS = "ResolveBackendOpLayouts"


def is_row_major(t: TileType) -> bool:
    return t.effective_view().blayout is TileLayout.row_major


def column_length(t: TileType) -> int | None:
    """N for an [N, 1] column tile laid out column-major, else None."""
    dims = [static_int(d) for d in t.shape]
    if len(dims) == 2 and dims[1] == 1 and dims[0] is not None and not is_row_major(t):
        return dims[0]
    return None


def _constrained(call: E.Call, operands: Any) -> list[int]:
    indices = range(len(call.args)) if operands == "all" else operands
    return [i for i in indices if i < len(call.args) and isinstance(call.args[i].type, TileType)]


class _Resolver(BodyRewriter):
    def __init__(self, func: F.Function) -> None:
        super().__init__(func)
        self.made = 0  # the per-function counter of the temporaries' names

    def temporary(self, base: str, qualifier: str, value: E.Expr, span: Any) -> E.Var:
        var = E.Var(self.fresh(f"{base}__{qualifier}_tmp_v{self.made}"), value.type, span)
        self.made += 1
        self.pending.append(S.AssignStmt(var, value, span))
        return var

    def to_row_major(self, tile: E.Expr, span: Any) -> E.Expr:
        t = tile.type
        assert isinstance(t, TileType)
        n = column_length(t)
        if n is not None:
            return create_op_call("tile.reshape", [tile, MakeTuple([ConstInt(1), ConstInt(n)])], span=span)
        if t.memory_space is None:
            raise InternalError(f"{PASS}: a tile without a memory space needs a row-major layout (run "
                                f"InferTileMemorySpace first)")
        return create_op_call("tile.move", [tile], {"target_memory": t.memory_space, "blayout": TileLayout.row_major,
                                                    "slayout": TileLayout.none_box}, span=span)

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        """The call with its constrained operands made row-major (bound before the statement)."""
        call = super().rewrite_call(call, args, result)  # type: ignore[assignment]
        layout = _layout_of(call)
        if layout is None:
            return call
        wrong = [i for i in _constrained(call, layout["operands"]) if not is_row_major(call.args[i].type)]  # type: ignore[arg-type]
        if not wrong:
            return call
        base = user_base(result) if result is not None else "layout_fix"
        operands = list(call.args)
        for i in wrong:
            qualifier = f"rm_a{i}" if result is not None else f"row_major_arg{i}"
            operands[i] = self.temporary(base, qualifier, self.to_row_major(operands[i], call.span), call.span)
        return create_op_call(call.op.name, operands, dict(call.kwargs), span=call.span)

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if not isinstance(s, S.AssignStmt) or not isinstance(s.value, E.Call):
            return super().stmt(s)
        value = self.expr(s.value, s.span, s.var)
        layout = _layout_of(value) if isinstance(value, E.Call) else None
        var = s.var  # every variable keeps its type: a repaired result is brought back to it
        if layout is not None and layout["result"]:
            if not isinstance(var.type, TileType):
                raise InternalError(f"{PASS}: {value.op.name} must give a row-major tile but gives "  # type: ignore[union-attr]
                                    f"{type(var.type).__name__}")
            if not is_row_major(var.type) and isinstance(value.type, TileType) and is_row_major(value.type):
                value = self.back_to_layout(var.type, self.temporary(user_base(var), "row_major", value, s.span),
                                            s.span)
        if value is s.value:
            return [*self.take_pending(), s]
        if isinstance(value, E.Call) and isinstance(var.type, TileType) and isinstance(value.type, TileType):
            # The variable's type is printed as its annotation, which the parser gives the call it is bound to
            # (a declared valid region narrower than the op's): the rebuilt call takes it too, so the program
            # prints and parses back the same.
            value = value.with_fields(type=var.type)
        return [*self.take_pending(), S.AssignStmt(var, value, s.span, s.leading_comments)]

    def back_to_layout(self, t: TileType, row_major_value: E.Var, span: Any) -> E.Expr:
        """The row-major value in the layout of `t`: an [N, 1] column reshaped back, any other tile moved."""
        if column_length(t) is not None:
            return create_op_call("tile.reshape", [row_major_value, MakeTuple(list(t.shape))], span=span)
        view = t.effective_view()
        return create_op_call("tile.move", [row_major_value], {"target_memory": t.memory_space,
                                                               "blayout": view.blayout, "slayout": view.slayout},
                              span=span)


def _layout_of(call: E.Call) -> Any:
    return op_registry().implementation(ROW_MAJOR_LAYOUT.name, call.op.name) if type(call.op) is E.Op else None


def resolve_function(func: F.Function) -> F.Function:
    resolver = _Resolver(func)
    body = resolver.body(func.body)
    return func if resolver.made == 0 else func.with_fields(body=body)  # type: ignore[return-value]


class ResolveBackendOpLayouts(Pass):
    """Give ops whose backend instruction needs row-major tiles row-major operands and results."""

    name = "ResolveBackendOpLayouts"
    factory_name = "resolve_backend_op_layouts"
    required = ("SSAForm", "SplitIncoreOrch", "IncoreTileOps", "TileOps2D")
    produced = ("SSAForm", "NormalizedStmtStructure", "SplitIncoreOrch", "IncoreTileOps", "TileOps2D")
    description = ("Reshape [N, 1] columns to [1, N] rows or move tiles to a row-major layout where an op's backend "
                   "instruction needs row-major tiles (its row_major_layout); restore a result's own layout after.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs = [resolve_function(f) if f.func_type is FunctionType.InCore or f.func_type in CORE_KERNEL_TYPES else f
                 for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)
