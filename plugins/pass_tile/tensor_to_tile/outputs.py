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

from pypto_core.analysis.walk import vars_read
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ParamDirection, TensorLayout
from pypto_core.ir.fresh_names import FreshNames, user_base
from pypto_core.ir.names import split_generated
from pypto_core.ir.types import TensorType, TileType, TupleType
from pypto_core.ir.utils import flatten_to_stmts, rebuilt_seq
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.registry import create_op_call, opdef_of


@dataclass
class AddedOutputs:
    """The Out parameters a function gained, by return position."""

    params: dict[int, E.Var] = field(default_factory=dict)
    # A call site allocates each output with the shape of the call's result at its position (in the caller's
    # terms); a wrapper's forwarded outputs are not its results, so their own types give the shape.
    shape_from_call: bool = True

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

    # -- the assemble-loop rewrite (docs/passes/convert_tensor_to_tile_ops.md, exit stores) ---------------------
    def rewrite_assemble_loops(self, body: S.Stmt) -> S.Stmt:
        """A returned top-level loop that only assembles tiles into its one carry stores them into the new
        output instead: the carry starts as `ret<k>__out`, the assemble becomes the GM store the registry names
        for it (`tile.store`), and the loop's result is returned; the carry's old init goes when unused."""
        stmts = flatten_to_stmts(body)
        ret = stmts[-1] if stmts else None
        if not isinstance(ret, S.ReturnStmt):
            return body
        values = list(ret.value)
        for i, v in enumerate(ret.value):
            if not isinstance(v.type, TileType) or not isinstance(v, E.Var):
                continue
            for pos, loop in enumerate(stmts):
                plan = _assemble_loop(loop, v)
                if plan is None:
                    continue
                param = self._param(i, v)
                stmts[pos], values[i] = _storing_loop(loop, plan, param)  # type: ignore[arg-type]
                init = loop.iter_args[0].initValue  # type: ignore[attr-defined]
                if isinstance(init, E.Var) and _uses(stmts, init) == 0:
                    stmts = [x for x in stmts if not (isinstance(x, S.AssignStmt) and x.var is init)]
                    # PyPTO names both `acc__tile` and prints the one left without a suffix: the store takes
                    # the deleted init's name when it was only told apart from it (`acc__tile_1`).
                    if split_generated(init.name_hint)[:2] == split_generated(plan[0].var.name_hint)[:2]:
                        rewritten = _defining_loop(values[i], stmts)
                        at = next(k for k, x in enumerate(stmts) if x is rewritten)
                        stmts[at], values[i] = _storing_loop(loop, plan, param, init.name_hint)  # type: ignore[arg-type]
                break
        if all(a is b for a, b in zip(values, ret.value)):
            return body
        stmts[-1] = S.ReturnStmt(values, ret.span, ret.leading_comments)
        return S.SeqStmts(stmts, body.span)


def _defining_loop(result: E.Var, stmts: list[S.Stmt]) -> S.Stmt:
    """The statement among `stmts` that defines `result` (a loop's return variable)."""
    return next(x for x in stmts if isinstance(x, S.ForStmt) and any(rv is result for rv in x.return_vars))


def _uses(stmts: list[S.Stmt], var: E.Var) -> int:
    return sum(1 for x in vars_read(S.SeqStmts(stmts, var.span)) if x is var)


def _assemble_loop(loop: S.Stmt, value: E.Var) -> tuple[S.AssignStmt, tuple[str, tuple[int, ...]]] | None:
    """The loop's assemble statement and its GM store form, when `loop` is the assemble loop returning `value`."""
    if not isinstance(loop, S.ForStmt) or len(loop.return_vars) != 1 or loop.return_vars[0] is not value \
            or len(loop.iter_args) != 1:
        return None
    carry = loop.iter_args[0]
    body = flatten_to_stmts(loop.body)
    last = body[-1] if body else None
    if not isinstance(last, S.YieldStmt) or len(last.value) != 1:
        return None
    writes = []
    for x in body:
        opdef = opdef_of(x.value) if isinstance(x, S.AssignStmt) else None
        if opdef is not None and opdef.traits.gm_store is not None:
            writes.append((x, opdef.traits.gm_store))
    if len(writes) != 1:
        return None
    assign, form = writes[0]
    call = assign.value
    assert isinstance(call, E.Call)
    if call.args[0] is not carry or last.value[0] is not assign.var:
        return None
    reads = vars_read(loop.body)
    if sum(1 for x in reads if x is carry) != 1 or sum(1 for x in reads if x is assign.var) != 1:
        return None  # the carry is read elsewhere, or the assembled tile is
    return assign, form


def _storing_loop(loop: S.ForStmt, plan: tuple[S.AssignStmt, tuple[str, tuple[int, ...]]],
                  param: E.Var, name: str | None = None) -> tuple[S.ForStmt, E.Var]:
    assign, (op, order) = plan
    old_carry = loop.iter_args[0]
    carry = E.IterArg(old_carry.name_hint, param.type, param, old_carry.span)
    call = assign.value
    assert isinstance(call, E.Call)
    args = [carry if a is old_carry else a for a in call.args]
    store = create_op_call(op, [args[k] for k in order], span=call.span)
    stored = E.Var(name or assign.var.name_hint, store.type, assign.var.span)
    stmts = []
    for x in flatten_to_stmts(loop.body):
        if x is assign:
            stmts.append(S.AssignStmt(stored, store, x.span, x.leading_comments))
        elif isinstance(x, S.YieldStmt):
            stmts.append(S.YieldStmt([stored], x.span, x.leading_comments))
        else:
            stmts.append(x)
    old_rv = loop.return_vars[0]
    rv = E.Var(old_rv.name_hint, param.type, old_rv.span)
    rebuilt = loop.with_fields(iter_args=(carry,), body=S.SeqStmts(stmts, loop.body.span), return_vars=(rv,))
    return rebuilt, rv  # type: ignore[return-value]


def store_returned_tiles(func: F.Function) -> tuple[F.Function, AddedOutputs]:
    """`func` with each returned tile stored into a new Out parameter (which is returned instead)."""
    added = AddedOutputs()
    stores = _ReturnStores(func, added)
    body = stores.visit_stmt(stores.rewrite_assemble_loops(func.body))
    if not added.params:
        return func, added
    params = [*func.param_items(), *((p, ParamDirection.Out) for _, p in added.ordered())]
    return func.with_fields(params=tuple(p for p, _ in params),  # type: ignore[return-value]
                            param_directions=tuple(d for _, d in params), body=body), added


class _CallSites(IRMutator):
    """Calls of functions that gained Out parameters pass freshly allocated tensors."""

    def __init__(self, added: Mapping[str, AddedOutputs], passing: Sequence[E.Call] = ()) -> None:
        self.added = added
        self.passing = {id(c) for c in passing}  # calls that pass them already (a wrapper's forwarded call)
        self.pending: list[S.Stmt] = []
        self.fresh: FreshNames | None = None

    def visit_function(self, func: F.Function) -> F.Function:
        self.fresh = FreshNames(func)
        return super().visit_function(func)

    def visit_call(self, call: E.Call) -> E.Expr:
        if id(call) in self.passing:
            return super().visit_call(call)
        call = super().visit_call(call)  # type: ignore[assignment]
        outputs = self.added.get(call.op.name) if isinstance(call.op, E.GlobalVar) else None
        if outputs is None:
            return call
        extra: list[E.Expr] = []
        for index, param in outputs.ordered():
            result = call.type.types[index] if isinstance(call.type, TupleType) else call.type
            t = result if isinstance(result, TensorType) and outputs.shape_from_call else param.type
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


def pass_new_outputs(funcs: Sequence[F.Function], added: Mapping[str, AddedOutputs],
                     passing: Sequence[E.Call] = ()) -> list[F.Function]:
    """Every call of a function in `added`, in any of `funcs`, passes the tensors it now needs (except the
    calls in `passing`, which pass them already)."""
    if not added:
        return list(funcs)
    rewriter = _CallSites(added, passing)
    return [rewriter.visit_function(f) for f in funcs]
