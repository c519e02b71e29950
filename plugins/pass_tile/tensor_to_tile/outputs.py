"""Returned tiles become stores into new Out parameters, and every caller passes the new tensors.

An InCore function whose lowered body returns a tile (a value it computed: `return y` after
`y = pl.add(x, 1.0)`) cannot hand an on-chip buffer to its caller. The pass adds one Out parameter per
such return position (`y_out`), stores the tile into it (`y_store = tile.store(y, [0, ...], y_out)`,
right before the return, outside every loop and region), and returns the parameter itself
(ReturnParamsExplicit). Each call site allocates the tensor (`y_out = tensor.create(...)`, with the
shape and dtype of the call's result in the caller's terms) and passes it as the new last argument.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ParamDirection, TensorLayout
from pypto_core.ir.fresh_names import FreshNames, user_base
from pypto_core.ir.types import TensorType, TileType, TupleType
from pypto_core.ir.utils import flatten_to_stmts, rebuilt_seq
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.registry import create_op_call


@dataclass
class AddedOutputs:
    """The Out parameters a function gained, by return position."""

    params: dict[int, E.Var] = field(default_factory=dict)

    def ordered(self) -> list[tuple[int, E.Var]]:
        return sorted(self.params.items(), key=lambda item: item[0])


class _ReturnStores(IRMutator):
    def __init__(self, func: F.Function, added: AddedOutputs) -> None:
        self.func = func
        self.added = added
        self.fresh = FreshNames(func)

    def _param(self, index: int, value: E.Expr) -> E.Var:
        param = self.added.params.get(index)
        if param is None:
            declared = self.func.return_types[index]
            if not isinstance(declared, TensorType):
                name = f"'{user_base(value)}'" if isinstance(value, E.Var) else f"return value {index}"
                raise UserError(f"ConvertTensorToTileOps: InCore function '{self.func.name}' returns the tile "
                                f"{name} ({declared}) to its caller: a tile lives in one kernel's on-chip "
                                f"memory and cannot leave it (each pl.at scope and each pl.split_aiv region "
                                f"outside one becomes its own kernel); compute and use it in the same region, "
                                f"or store it into a tensor (pl.store) and load it again where it is needed",
                                value.span)
            # ret<k>__out, k counting the added outputs only (docs/passes/convert_tensor_to_tile_ops.md, exit stores)
            name = f"ret{len(self.added.params)}__out"
            param = self.added.params[index] = E.Var(self.fresh(name), declared, self.func.span)
        return param

    def visit_return_stmt(self, s: S.ReturnStmt) -> S.Stmt:
        stores: list[S.Stmt] = []
        values: list[E.Expr] = []
        for i, v in enumerate(s.value):
            if not isinstance(v.type, TileType):
                values.append(v)
                continue
            param = self._param(i, v)
            zeros = E.MakeTuple([E.ConstInt(0) for _ in v.type.shape])  # the tile's rank
            store = create_op_call("tile.store", [v, zeros, param], span=s.span)
            k = self.added.ordered().index((i, param))
            var = E.Var(self.fresh(f"ret{k}__store"), store.type, s.span)
            stores.append(S.AssignStmt(var, store, s.span))
            values.append(var)  # the store's result, which NormalizeReturnOrder traces back to the parameter
        if not stores:
            return s
        return S.SeqStmts([*stores, S.ReturnStmt(values, s.span, s.leading_comments)], s.span)

    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        out: list[S.Stmt] = []
        for child in seq.stmts:
            out.extend(flatten_to_stmts(self.visit_stmt(child)))
        return rebuilt_seq(seq, out)


def store_returned_tiles(func: F.Function) -> tuple[F.Function, AddedOutputs]:
    """`func` with each returned tile stored into a new Out parameter (which is returned instead)."""
    added = AddedOutputs()
    body = _ReturnStores(func, added).visit_stmt(func.body)
    if not added.params:
        return func, added
    params = [*func.param_items(), *((p, ParamDirection.Out) for _, p in added.ordered())]
    return func.with_fields(params=tuple(p for p, _ in params),  # type: ignore[return-value]
                            param_directions=tuple(d for _, d in params), body=body), added


class _CallSites(IRMutator):
    """Calls of functions that gained Out parameters pass freshly allocated tensors."""

    def __init__(self, added: Mapping[str, AddedOutputs]) -> None:
        self.added = added
        self.pending: list[S.Stmt] = []
        self.fresh: FreshNames | None = None

    def visit_function(self, func: F.Function) -> F.Function:
        self.fresh = FreshNames(func)
        return super().visit_function(func)

    def visit_call(self, call: E.Call) -> E.Expr:
        call = super().visit_call(call)  # type: ignore[assignment]
        outputs = self.added.get(call.op.name) if isinstance(call.op, E.GlobalVar) else None
        if outputs is None:
            return call
        extra: list[E.Expr] = []
        for index, param in outputs.ordered():
            result = call.type.types[index] if isinstance(call.type, TupleType) else call.type
            t = result if isinstance(result, TensorType) else param.type
            assert isinstance(t, TensorType)
            layout = t.tensor_view.layout if t.tensor_view is not None else TensorLayout.ND
            create = create_op_call("tensor.create", [E.MakeTuple(list(t.shape))],
                                    {"dtype": t.dtype, "layout": layout}, span=call.span)
            assert self.fresh is not None
            var = E.Var(self.fresh(param.name_hint), create.type, call.span)
            self.pending.append(S.AssignStmt(var, create, call.span))
            extra.append(var)
        return call.with_fields(args=(*call.args, *extra))

    def visit_stmt(self, stmt: S.Stmt) -> S.Stmt:
        saved, self.pending = self.pending, []
        new = super().visit_stmt(stmt)
        mine, self.pending = self.pending, saved
        if mine and not isinstance(stmt, S.SeqStmts):
            return S.SeqStmts([*mine, new], stmt.span)
        return new

    def visit_seq_stmts(self, seq: S.SeqStmts) -> S.Stmt:
        out: list[S.Stmt] = []
        for child in seq.stmts:
            out.extend(flatten_to_stmts(self.visit_stmt(child)))
        return rebuilt_seq(seq, out)


def pass_new_outputs(funcs: Sequence[F.Function], added: Mapping[str, AddedOutputs]) -> list[F.Function]:
    """Every call of a function in `added`, in any of `funcs`, passes the tensors it now needs."""
    if not added:
        return list(funcs)
    rewriter = _CallSites(added)
    return [rewriter.visit_function(f) for f in funcs]
