"""Lane 1's replay of an unsplit AIV body (docs/passes/split_vector_kernel.md, what it does): lane 1 runs the same
statements so that the AIC <-> AIV handshake stays symmetric, but computes on empty tiles and writes nothing.

* a GM write (registry: a call writing a tensor argument: a store, a scatter into GM, a notify) writes
  nothing: as a statement it is dropped; assigned (`v = tile.store(t, off, dst)`) it becomes the alias `v = dst`, and every later use of `v`
  (the return included) reads `dst`;
* a load (a `gm_transfer` op producing a tile) becomes `tile.create(shape, dtype=, target_memory=)` of the same
  tile with valid_shape 0;
* a call whose arguments carry a valid region (ArgSpec `valid_shape`, `valid_rows` / `valid_cols`) gets them
  zeroed (INDEX 0); every other call -- cross-core ones (pop, push, free) included -- keeps its op, kwargs and
  (replaced) operands, and a tile result gets its effective view with valid_shape all zeros (layouts kept);
* every variable lane 1 defines is a fresh one (a value it leaves unchanged included), so that the two
  branches of the dispatch never define the same variable (SSAForm);
* loops and ifs are replayed with forked replacement maps; tile carries and merges take the zero valid_shape;
* a scope statement (any `ScopeStmt`, e.g. a `with pl.at(level=...)` hierarchy scope left in the function) is
  the same scope around lane 1's replay of its body. The replacement map is not forked: what a scope
  defines stays visible after it. Passing a scope through verbatim would redefine every variable of lane 0
  (SSAForm), re-read lane 0's tiles and loop variables, and let lane 1 write GM (docs/passes/split_vector_kernel.md).
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.analysis.lineage import written_arg_index
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.types import TensorType, TileType, TupleType, Type
from pypto_core.ir.utils import flatten_to_stmts, make_body, substitute_expr
from pypto_core.ops.build import to_tuple
from pypto_core.ops.registry import create_op_call, opdef_of, rededuce_call

VALID_ARGS = ("valid_shape",)
VALID_SCALAR_ARGS = ("valid_rows", "valid_cols")


def empty_tile_type(t: Type) -> Type:
    """The same tile with nothing valid (a tuple of tiles element-wise); other types unchanged."""
    if isinstance(t, TupleType):
        return TupleType([empty_tile_type(x) for x in t.types])
    if not isinstance(t, TileType):
        return t
    view = t.effective_view()
    zeros = [E.ConstInt(0, DataType.INDEX) for _ in t.shape]
    return TileType(t.shape, t.dtype, t.memref, view.with_fields(valid_shape=tuple(zeros)), t.memory_space)


class Lane1Replay:
    def __init__(self, outer_names: frozenset[str] = frozenset()) -> None:
        self.mapping: dict[E.Var, E.Expr] = {}
        # Names of the enclosing scope (the function's parameters): a lane-1 variable must not reuse one, or
        # it would shadow it (SSAForm); a hand-written kernel may rebind an Out parameter with its store.
        self.outer_names = outer_names

    def fork(self) -> Lane1Replay:
        child = Lane1Replay(self.outer_names)
        child.mapping = dict(self.mapping)
        return child

    def lane1_name(self, name: str) -> str:
        """`name`, or `name_1`, `name_2`, ... when the enclosing scope has it."""
        candidate, k = name, 0
        while candidate in self.outer_names:
            k += 1
            candidate = f"{name}_{k}"
        return candidate

    def sub(self, e: E.Expr) -> E.Expr:
        """`e` on lane 1: its variables replaced, and every nested tile-producing op call empty as well
        (the types of nested calls are not printed, so they must be what the parser deduces again)."""
        e = substitute_expr(e, self.mapping) if self.mapping else e
        return _emptied(e)

    def renamed(self, var: E.Var, new_type: Type) -> E.Var:
        new = E.Var(self.lane1_name(var.name_hint), new_type, var.span)
        self.mapping[var] = new
        return new

    # -- statements ---------------------------------------------------------------------------
    def block(self, stmts: list[S.Stmt]) -> list[S.Stmt]:
        out: list[S.Stmt] = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if isinstance(s, S.AssignStmt):
            return self.assign(s)
        if isinstance(s, S.EvalStmt):
            if _store_target(s.expr) is not None:
                return []  # no write on lane 1
            hoisted, expr = self.cross_core_operands(s.expr, s.span)
            return [*hoisted, S.EvalStmt(self.sub(expr), s.span)]
        if isinstance(s, (S.YieldStmt, S.ReturnStmt)):
            return [s.with_fields(value=tuple(self.sub(v) for v in s.value))]
        if isinstance(s, (S.ForStmt, S.WhileStmt)):
            return [self.loop(s)]
        if isinstance(s, S.IfStmt):
            return [self.if_stmt(s)]
        if isinstance(s, S.ScopeStmt):
            return [self.scope(s)]
        return [s]

    def assign(self, s: S.AssignStmt) -> list[S.Stmt]:
        value = s.value
        target = _store_target(value)
        if target is not None:
            # Nothing is written: `v = dst`, an alias under a fresh variable, and later uses read `dst` itself.
            dst = self.sub(target)
            alias = E.Var(self.lane1_name(s.var.name_hint), s.var.type, s.var.span)
            self.mapping[s.var] = dst
            return [S.AssignStmt(alias, dst, s.span)]
        if not (isinstance(value, E.Call) and type(value.op) is E.Op) or not isinstance(s.var.type, (TileType, TupleType)):
            # Always a fresh variable, even for a value lane 1 leaves alone (a tensor alias `v = x`, a scalar):
            # the two branches of the dispatch must not define the same variable (SSAForm).
            new_value = self.sub(value)
            new_type = self.sub_type(s.var.type)
            if isinstance(s.var.type, (TileType, TupleType)) and type(new_value.type) is type(s.var.type):
                new_type = new_value.type  # an alias of an emptied tile is empty too
            return [S.AssignStmt(self.renamed(s.var, new_type), new_value, s.span)]
        opdef = opdef_of(value)
        if opdef is not None and opdef.cross_core_role is not None:
            # A pop on lane 1 still takes its slot (the handshake), but its tile holds nothing.
            hoisted, value = self.cross_core_operands(value, s.span)
            new_type = empty_tile_type(s.var.type)
            call = self.sub(value)
            if isinstance(call, E.Call) and isinstance(call.type, (TileType, TupleType)):
                call = call.with_fields(type=empty_tile_type(call.type))
            return [*hoisted, S.AssignStmt(self.renamed(s.var, new_type), call, s.span)]
        new_type = empty_tile_type(s.var.type)
        args = tuple(self._zeroed_arg(opdef, i, self.sub(a)) for i, a in enumerate(value.args))
        args += _absent_valid_shape(opdef, len(args), s.var.type)
        if isinstance(s.var.type, TileType) and ((opdef is not None and opdef.traits.gm_transfer)
                                                 or _rededuced(value, args) is None):
            # A load reads nothing; an op whose type rule rejects lane 1's empty operands (a reshape of a
            # partially valid tile) is an empty tile as well: the printed call must re-parse.
            call = _empty_create(s.var.type, value.span)
        else:
            call = value.with_fields(args=args, type=new_type)
        return [S.AssignStmt(self.renamed(s.var, new_type), call, s.span)]

    def cross_core_operands(self, call: E.Expr, span: object) -> tuple[list[S.Stmt], E.Expr]:
        """A tile a cross-core op moves that is a nested call is bound to a name first: only a statement's
        declared type can say that lane 1's tile holds nothing (nested types are deduced again on parsing),
        and a push of a fully valid tile would move lane 1's garbage (docs/passes/split_vector_kernel.md: lane 1 pushes nothing)."""
        if not (isinstance(call, E.Call) and type(call.op) is E.Op):
            return [], call
        opdef = opdef_of(call)
        if opdef is None or opdef.cross_core_role is None:
            return [], call
        hoisted: list[S.Stmt] = []
        args = list(call.args)
        for i, a in enumerate(args):
            if isinstance(a, E.Call) and type(a.op) is E.Op and isinstance(a.type, TileType):
                operand = E.Var(f"{call.op.name.split('.')[-1]}_operand", a.type, a.span)
                hoisted.extend(self.assign(S.AssignStmt(operand, a, span)))  # type: ignore[arg-type]
                args[i] = operand
        return hoisted, (call.with_fields(args=tuple(args)) if hoisted else call)

    def _zeroed_arg(self, opdef: object, index: int, arg: E.Expr) -> E.Expr:
        spec = opdef.args[index] if opdef is not None and index < len(opdef.args) else None  # type: ignore[attr-defined]
        if spec is None:
            return arg
        if spec.name in VALID_ARGS and isinstance(arg, E.MakeTuple):
            return to_tuple([0] * len(arg.elements), arg.span)
        if spec.name in VALID_SCALAR_ARGS:
            return E.ConstInt(0, DataType.INDEX, arg.span)
        return arg

    def sub_type(self, t: Type) -> Type:
        if not t.has_vars or not self.mapping:
            return t
        from pypto_core.ir.utils import Substituter

        return Substituter(self.mapping).visit_type(t)

    def loop(self, s: S.ForStmt | S.WhileStmt) -> S.Stmt:
        inner = self.fork()
        iter_args = []
        for ia in s.iter_args:
            init = self.sub(ia.initValue)
            new = E.IterArg(ia.name_hint, init.type if isinstance(ia.type, (TileType, TupleType)) else ia.type,
                            init, ia.span)
            inner.mapping[ia] = new
            iter_args.append(new)
        if isinstance(s, S.ForStmt):
            loop_var = E.Var(s.loop_var.name_hint, s.loop_var.type, s.loop_var.span)
            inner.mapping[s.loop_var] = loop_var
        body = make_body(inner.block(flatten_to_stmts(s.body)), s.body.span)
        return_vars = [self.renamed(rv, ia.type) for rv, ia in zip(s.return_vars, iter_args)]
        if isinstance(s, S.ForStmt):
            return s.with_fields(loop_var=loop_var, start=self.sub(s.start), stop=self.sub(s.stop),
                                 step=self.sub(s.step), iter_args=tuple(iter_args), body=body,
                                 return_vars=tuple(return_vars))
        return s.with_fields(condition=inner.sub(s.condition), iter_args=tuple(iter_args), body=body,
                             return_vars=tuple(return_vars))

    def scope(self, s: S.ScopeStmt) -> S.Stmt:
        """The scope around lane 1's replay of its body, in this map (a scope's definitions outlive it)."""
        return s.with_fields(body=make_body(self.block(flatten_to_stmts(s.body)), s.body.span))  # type: ignore[return-value]

    def if_stmt(self, s: S.IfStmt) -> S.Stmt:
        then_body = make_body(self.fork().block(flatten_to_stmts(s.then_body)), s.then_body.span)
        else_body = (None if s.else_body is None else
                     make_body(self.fork().block(flatten_to_stmts(s.else_body)), s.else_body.span))
        return_vars = [self.renamed(rv, empty_tile_type(rv.type) if isinstance(rv.type, TileType)
                                    else self.sub_type(rv.type)) for rv in s.return_vars]
        return s.with_fields(condition=self.sub(s.condition), then_body=then_body, else_body=else_body,
                             return_vars=tuple(return_vars))


def _emptied(e: E.Expr) -> E.Expr:
    """A nested expression on lane 1: a nested load reads nothing (`tile.create`), and every nested call is
    deduced again from its (replaced) operands -- nested types are not printed, so they must be what the
    parser deduces; only a statement's own result is declared empty."""
    if isinstance(e, E.MakeTuple):
        items = [_emptied(x) for x in e.elements]
        return e if all(a is b for a, b in zip(items, e.elements)) else e.with_fields(elements=tuple(items))
    if not (isinstance(e, E.Call) and type(e.op) is E.Op):
        return e
    opdef = opdef_of(e)
    if opdef is not None and opdef.traits.gm_transfer and isinstance(e.type, TileType):
        return create_op_call("tile.create", [to_tuple(list(e.type.shape))],
                              {"dtype": e.type.dtype, "target_memory": e.type.memory_space}, span=e.span)
    if not e.args or (opdef is not None and opdef.cross_core_role is not None):
        return e.with_fields(args=tuple(_emptied(a) for a in e.args)) if e.args else e
    rebuilt = _rededuced(e, [_emptied(a) for a in e.args])  # operands may be lane 1's empty tiles now
    if rebuilt is not None:
        return rebuilt
    if isinstance(e.type, TileType):  # its type rule rejects the empty operands: a fresh tile
        return create_op_call("tile.create", [to_tuple(list(e.type.shape))],
                              {"dtype": e.type.dtype, "target_memory": e.type.memory_space}, span=e.span)
    return rededuce_call(e, [_emptied(a) for a in e.args])  # not a tile: let the deduction's error out


def _absent_valid_shape(opdef: object, given: int, t: Type) -> tuple[E.Expr, ...]:
    """A zero `valid_shape` operand for a call written without its optional one (`tile.slice(x, shape, offset)`):
    the operand itself is zeroed (docs/passes/split_vector_kernel.md, what it does), so lane 1's call says it reads nothing, not only its
    declared type."""
    specs = getattr(opdef, "args", ())
    index = next((i for i, spec in enumerate(specs) if spec.name in VALID_ARGS), None)
    if index is None or index != given or not isinstance(t, TileType):
        return ()
    return (to_tuple([0] * len(t.shape)),)


def _rededuced(call: E.Call, args: Sequence[E.Expr]) -> E.Call | None:
    """`call` deduced again on lane 1's operands, or None when the op's type rule rejects them (the parser
    deduces every printed call again, so the replay may only print calls that deduce)."""
    try:
        return rededuce_call(call, list(args))
    except (TypeError, ValueError):
        return None


def _store_target(value: E.Expr) -> E.Expr | None:
    """The GM tensor a call writes (registry: an argument it declares written that is a tensor), else None.
    Not only stores: a scatter into GM or a notify would otherwise be written twice, once per lane (PyPTO
    replays such calls on lane 1; docs/passes/split_vector_kernel.md says why pypto does not)."""
    if not (isinstance(value, E.Call) and type(value.op) is E.Op):
        return None
    opdef = opdef_of(value)
    if opdef is None or isinstance(value.type, TileType):
        return None
    index = written_arg_index(value)
    if index is None or not isinstance(value.args[index].type, TensorType):
        return None
    return value.args[index]


def _empty_create(t: TileType, span: object) -> E.Call:
    """`tile.create(shape, dtype=..., target_memory=...)` typed with nothing valid (docs/passes/split_vector_kernel.md, what it does)."""
    call = create_op_call("tile.create", [to_tuple(list(t.shape))], {"dtype": t.dtype, "target_memory": t.memory_space},
                          span=span)  # type: ignore[arg-type]
    return call.with_fields(type=empty_tile_type(t))  # type: ignore[return-value]
