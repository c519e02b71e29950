"""Lowering the tensor ops of one InCore function to tile ops (ConvertTensorToTileOps, docs/passes/convert_tensor_to_tile_ops.md).

Every tensor-typed value the kernel computes becomes a tile; tensors that stay are the ones in global
memory (GM): parameters, and what a store into one of them returns. Each tensor op is replaced by its
registry tile form (pypto_core.ops.tile_form), which asks this object for the tiles of its operands:

* a parameter that the function never writes (direction In) is loaded whole once, at the top of the
  function, in Vec and in parameter order (PyPTO's entry loads), so the load sits outside every loop and
  `pl.split_aiv` region (docs/passes/lower_auto_vector_split.md, outside the regions);
* any other GM tensor (a written parameter, a store's result, a carried output) is loaded right
  before the statement that reads it: a store may have changed the buffer since;
* a read-only parameter that a region boundary takes (the registry's `traits.split_boundary`:
  `pl.aic_gather(x)`) gets an entry load of its own: the lanes push the tile they read, in Vec, whatever
  space the parameter's other readers need (a load shared with a matmul would be placed in Mat, which the
  gather cannot take).

Loop carries and if merges take a tile when any of their inputs is one; a GM input of such a carry is
loaded. Loads state their space, as PyPTO's: Vec, or the space a tile op declares for the operand the
loaded value reaches (a matmul operand in Mat, tensor_to_tile/operand_spaces.py), where such operands are
bridged too (a Mat load, a `tile.transpose_view` for `b_trans`).

A `pl.aiv_shard` of a cube op whose tile form ends in a vector op (the cast of an FP16 matmul's FP32
accumulator) shards the accumulator and applies that op to the shard, inside the region
(tensor_to_tile/boundary_tails.py).

A write the registry declares into a tensor that is now a tile (tensor.assemble into a kernel tensor) is
in place: later reads of the target read the write's result (tensor_to_tile/in_place_writes.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace, ParamDirection
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.rewriting import BodyRewriter, trailing_yield
from pypto_core.ir.types import TensorType, TileType
from pypto_core.ir.utils import flatten_to_stmts, free_vars_in_order, make_body
from pypto_core.ops.build import to_tuple
from pypto_core.ops.opdef import Effect, OpDef
from pypto_core.ops.registry import create_op_call, op_registry, opdef_of
from pypto_plugins.pass_tile.interfaces import TILE_FORM
from pypto_plugins.pass_tile.tensor_to_tile.boundary_tails import drop_unused, is_cube_tail, is_shard, tail_on
from pypto_plugins.pass_tile.tensor_to_tile.in_place_writes import InPlaceWrites, bound_result
from pypto_plugins.pass_tile.tensor_to_tile.operand_spaces import MAT_BRIDGE_MARKER, operand_demands

PASS = "ConvertTensorToTileOps"


def computes_a_tensor(call: E.Call, opdef: OpDef) -> bool:
    """The call computes a new GM tensor value: its result is a tensor and it is neither a GM transfer nor an
    in-place write returning one of its arguments (the registry's traits and argument effects). Such a
    call cannot stay in a kernel, which computes on tiles."""
    if not isinstance(call.type, TensorType) or opdef.traits.gm_transfer:
        return False
    effects = opdef.arg_effects(call.kwargs)
    return not any(effects.get(i) in (Effect.WRITE, Effect.READ_WRITE) for i in range(len(call.args)))


def _dims(tensor: TensorType) -> tuple[list[E.Expr], list[E.Expr]]:
    """(shape, valid extents) of a whole-tensor read."""
    view = tensor.tensor_view
    valid = list(view.valid_shape) if view is not None and view.valid_shape else list(tensor.shape)
    return list(tensor.shape), valid


def _zeros(rank: int) -> E.MakeTuple:
    return E.MakeTuple([E.ConstInt(0) for _ in range(rank)])



def tile_form_of(call: E.Call) -> Any:
    """The op's implementation of the tile_form interface, or None."""
    return op_registry().implementation(TILE_FORM.name, call.op.name)

class FunctionLowering(BodyRewriter):
    """Lowers one InCore function; implements pypto_core.ops.tile_form.TileLowering for tile forms."""

    def __init__(self, func: F.Function, cache_policy: Mapping[int, int]) -> None:
        super().__init__(func)
        self.read_only = {id(p) for p, d in zip(func.params, func.param_directions) if d is ParamDirection.In}
        self.cache_of = {id(func.params[i]): policy for i, policy in cache_policy.items()}
        self.entry_loads: dict[tuple[int, bool], E.Var] = {}  # (parameter id, for a boundary) -> its load
        self.entry_stmts: list[S.Stmt] = []
        # By id, holding the objects so that no id is reused: the vector tails of cube ops' tile forms,
        # and the variables bound to them (-> the tail).
        self.tail_calls: dict[int, E.Call] = {}
        self.cube_tails: dict[int, tuple[E.Var, E.Call]] = {}
        self.writes = InPlaceWrites(self.subst, PASS, func.name)
        self.own_loads = False  # lowering a region boundary: its parameter operands get entry loads of their own
        self.converted = False  # the statement being lowered called a tile form
        # variable id -> the space a declared operand slot needs; what only views and copies carried there
        self.demands, self.view_demands = operand_demands(func.body)
        self.load_space: MemorySpace | None = None  # the demand on the statement being lowered
        self.result: E.Var | None = None  # the variable the statement being lowered binds

    # -- blocks (the in-place write bookkeeping) -----------------------------------------------
    def enter_block(self) -> None:
        self.writes.enter_block()

    def exit_block(self) -> None:
        self.writes.exit_block()

    def expr(self, e: E.Expr, span: Any, result: E.Var | None = None) -> E.Expr:
        self.writes.check_reads(e)
        return super().expr(e, span, result)

    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        if is_shard(call) and args and id(args[0]) in self.cube_tails:
            moved = self._shard_before_tail(call, args, result)
            if moved is not None:
                return moved
        return self._rewrite(call, args)

    def _rewrite(self, call: E.Call, args: list[E.Expr]) -> E.Expr:
        changed = any(a is not b for a, b in zip(args, call.args))
        opdef = opdef_of(call)
        if opdef is not None and tile_form_of(call) is None and computes_a_tensor(call, opdef):
            self.no_tile_form(call)
        # A GM transfer (tile.load / tile.store) is already a kernel op: its tile form only applies once
        # its tensor operand has become a tile in this kernel.
        if opdef is not None and tile_form_of(call) is not None and (changed or not opdef.traits.gm_transfer):
            return self.lower_tensor_op(call, args)
        if not changed:
            return call
        if opdef is None:  # a call of a function: its signature is the callee's business
            return call.with_fields(args=tuple(args))
        return self.rebuild(call, args)

    # -- the TileLowering interface --------------------------------------------------------------
    def is_gm(self, operand: E.Expr) -> bool:
        return isinstance(operand.type, TensorType)

    def tile(self, operand: E.Expr) -> E.Expr:
        t = operand.type
        if isinstance(t, TileType):
            return operand
        if not isinstance(t, TensorType):
            raise InternalError(f"{PASS}: asked for the tile of a {t} value")
        if isinstance(operand, E.Var) and id(operand) in self.read_only:
            return self._entry_load(operand, t)
        shape, valid = _dims(t)
        deferred = id(operand) in self.view_demands and self.view_demands[id(operand)] is None
        return self.bind(self.load(operand, _zeros(len(shape)), shape, valid, deferred=deferred),
                         f"{user_base(operand)}__tile")

    def load(self, tensor: E.Expr, offsets: Any, shapes: Any, valid_shape: Any = None,
             clamp: bool = False, space: MemorySpace | None = None, deferred: bool = False) -> E.Expr:
        shape_t = to_tuple(shapes)
        valid_t = shape_t if valid_shape is None else to_tuple(valid_shape)
        space = space or self.load_space or MemorySpace.Vec
        # deferred: an accumulator operand, whose space InferTileMemorySpace gives (pypto; PyPTO loads it in Vec)
        kwargs: dict[str, Any] = {} if deferred else {"target_memory": space}
        if clamp:
            kwargs["clamp"] = True
        policy = self.cache_of.get(id(tensor))
        if policy is not None:
            kwargs["cache"] = policy
        load = self.call("tile.load", [tensor, to_tuple(offsets), shape_t, valid_t], kwargs)
        # A GM -> Mat operand load is a bridge: InferTileMemorySpace may hoist it, AutoTileMatmulL0 tiles it.
        return load.with_fields(attrs={MAT_BRIDGE_MARKER: True}) if space is MemorySpace.Mat and not deferred else load

    def call(self, op: str, args: Sequence[E.Expr], kwargs: Mapping[str, Any] | None = None) -> E.Call:
        try:
            return create_op_call(op, list(args), dict(kwargs or {}), span=self.span)
        except (TypeError, ValueError) as exc:
            raise UserError(f"{PASS}: cannot build {op} in InCore function '{self.func.name}': {exc}",
                            self.span) from None

    # -- expressions -----------------------------------------------------------------------------
    def _entry_load(self, param: E.Var, t: TensorType) -> E.Var:
        key = (id(param), self.own_loads)
        var = self.entry_loads.get(key)
        if var is None:
            shape, valid = _dims(t)
            # Vec, as PyPTO's; a parameter whose value reaches a declared Mat operand only through views
            # (`r = pl.reshape(x, ...)` into a matmul) in that space, so that the view stays cube work.
            space = MemorySpace.Vec if self.own_loads else self.view_demands.get(id(param), MemorySpace.Vec)
            value = self.load(param, _zeros(len(shape)), shape, valid, space=space, deferred=space is None)
            var = E.Var(self.fresh(f"{user_base(param)}__tile"), value.type, param.span)
            self.entry_loads[key] = var
            self.entry_stmts.append(S.AssignStmt(var, value, param.span))
        return var

    def lower_tensor_op(self, call: E.Call, args: list[E.Expr]) -> E.Expr:
        opdef = opdef_of(call)
        assert opdef is not None
        form = tile_form_of(call)
        staged = call.with_fields(args=tuple(args))  # typed as the tensor op was: tile forms read it
        if form is None:
            raise InternalError(f"{PASS}: lowering {call.op.name}, which has no tile form")
        if form.operand_spaces:
            staged = self._bridged(staged, form.operand_spaces)
        self.own_loads = opdef.traits.split_boundary is not None
        self.converted = True
        try:
            lowered = form.apply(self, staged)  # type: ignore[arg-type]
        except UserError:
            raise
        except (TypeError, ValueError) as exc:
            kinds = ", ".join(str(a.type) for a in call.args)
            raise UserError(f"{PASS}: cannot lower {call.op.name}({kinds}) in InCore function "
                            f"'{self.func.name}': {exc}", call.span) from None
        finally:
            self.own_loads = False
        if is_cube_tail(lowered, self.pending):
            self.tail_calls[id(lowered)] = lowered  # type: ignore[assignment]
        return lowered

    def _bridged(self, call: E.Call, spaces: Sequence[tuple[int, MemorySpace | None, str | None]]) -> E.Call:
        """The call with each operand its tile form declares a space for bridged, in argument order (PyPTO's
        rule 5): a GM tensor loaded whole into the space (`<name>_<space>`), then, when its transpose kwarg is
        set, viewed transposed (`<load>_t`); a transposed tile outside Mat moved there first (`<v>_mat`)."""
        args, kwargs = list(call.args), dict(call.kwargs)
        for index, space, transpose_kwarg in sorted(spaces, key=lambda s: s[0]):
            if index >= len(args) or space is None:
                continue
            arg = args[index]
            transpose = bool(transpose_kwarg and kwargs.get(transpose_kwarg))
            name = arg.name_hint if isinstance(arg, E.Var) else f"bridged_{index}"
            if isinstance(arg.type, TensorType):
                shape = list(arg.type.shape)
                tile: E.Expr = self.bind(self.load(arg, _zeros(len(shape)), shape, shape, space=space),
                                         f"{name}_{space.name.lower()}")
            elif transpose and isinstance(arg.type, TileType):
                tile = arg
                if arg.type.memory_space is not MemorySpace.Mat:
                    tile = self.bind(self.call("tile.move", [arg], {"target_memory": MemorySpace.Mat}), f"{name}_mat")
            else:
                continue
            if transpose and len(tile.type.shape) >= 2:  # type: ignore[attr-defined]
                tile = self.bind(self.call("tile.transpose_view", [tile]), f"{tile.name_hint}_t")  # type: ignore[attr-defined]
            if transpose_kwarg is not None:
                kwargs[transpose_kwarg] = False  # the view carries the transpose
            args[index] = tile
        return call.with_fields(args=tuple(args), kwargs=kwargs)

    def no_tile_form(self, call: E.Call) -> None:
        """A located error for an op that computes a tensor in a kernel and has no tile form to compute it
        on chip (docs/passes/convert_tensor_to_tile_ops.md, errors)."""
        kinds = ", ".join(str(a.type) for a in call.args) or "no operands"
        plugin = op_registry().op_owners.get(call.op.name, "<unknown>")
        missing = op_registry().missing_implementation_message(TILE_FORM.name, call.op.name)
        raise UserError(f"{PASS}: in InCore function '{self.func.name}', {call.op.name} (op of plugin '{plugin}') "
                        f"has no tile form: it computes a tensor ({call.type}) from {kinds}, and a kernel computes "
                        f"on tiles. {missing} (docs/plugins.md, op interfaces)", call.span)

    def _shard_before_tail(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr | None:
        """shard(tail(product)) -> tail(shard(product)): the shard takes the cube's tile and the vector
        tail runs per lane in the region (docs/passes/lower_auto_vector_split.md: aiv_shard's operand is the cube result, in Acc)."""
        _, tail = self.cube_tails[id(args[0])]
        product = tail.args[0]
        shard = self._rewrite(call, [product, *args[1:]])
        probe = E.Var("probe", shard.type, self.span)
        if tail_on(tail, probe) is None:
            return None  # not element-wise on one lane's half: leave it to AivSplitValid to report
        half = self.bind(shard, f"{user_base(result) if result is not None else user_base(product)}_acc")
        return tail_on(tail, half)

    def rebuild(self, call: E.Call, args: list[E.Expr]) -> E.Expr:
        """A tile / system op whose operands changed, typed again."""
        try:
            rebuilt = create_op_call(call.op.name, args, dict(call.kwargs), span=call.span)
        except (TypeError, ValueError) as exc:
            raise UserError(f"{PASS}: {call.op.name} no longer type-checks once its tensor operands are tiles "
                            f"({exc}); write it on the tensor values before they are computed on chip",
                            call.span) from None
        return rebuilt.with_fields(attrs=dict(call.attrs)) if call.attrs else rebuilt

    # -- statements ------------------------------------------------------------------------------
    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        scope = isinstance(s, S.ScopeStmt)
        if scope:
            self.writes.kinds.append("scope")
        out = self._converted_assign(s) if isinstance(s, S.AssignStmt) else super().stmt(s)
        if scope:
            self.writes.kinds.pop()
        last = out[-1] if out else None
        if isinstance(s, S.AssignStmt) and isinstance(last, S.AssignStmt) and id(last.value) in self.tail_calls:
            self.cube_tails[id(last.var)] = (last.var, last.value)  # type: ignore[assignment]
        if isinstance(s, S.AssignStmt):
            self.writes.define(s.var, s.value)
        if isinstance(s, S.EvalStmt) and isinstance(last, S.EvalStmt) and isinstance(last.expr.type, TileType) \
                and isinstance(s.expr, E.Call) and self.writes.targets(s.expr):
            # An unbound write into a tile: bound, so that later reads of its target can read it.
            var = E.Var(self.fresh("written"), last.expr.type, s.span)
            out = [*out[:-1], S.AssignStmt(var, last.expr, s.span, s.leading_comments)]
            self.writes.after(s.expr, var)
            return out
        if isinstance(s, S.AssignStmt) and isinstance(s.value, E.Call):
            self.writes.after(s.value, bound_result(s, out))
        return out

    def _converted_assign(self, s: S.AssignStmt) -> list[S.Stmt]:
        """A statement whose call has a tile form binds `<base>__tile`, whatever the lowered value is (a tile,
        a store's tensor, a GM scalar read): PyPTO's name (docs/passes/convert_tensor_to_tile_ops.md, rules)."""
        self.converted = False
        self.load_space = self.demands.get(id(s.var))
        self.result = s.var
        try:
            value = self.expr(s.value, s.span, s.var)
        finally:
            self.load_space = None
            self.result = None
        if not self.converted:
            var = self.define(s.var, value.type)
            if var is s.var and value is s.value:
                return [*self.take_pending(), s]
            return [*self.take_pending(), S.AssignStmt(var, value, s.span, s.leading_comments)]
        var = E.Var(self.fresh(f"{user_base(s.var)}__tile"), value.type, s.var.span)
        self.subst[id(s.var)] = var
        return [*self.take_pending(), S.AssignStmt(var, value, s.span, s.leading_comments)]

    def if_stmt(self, s: S.IfStmt) -> list[S.Stmt]:
        self.writes.kinds.append("branch")
        self.writes.branch_writes.append([])
        out = super().if_stmt(s)
        self.writes.kinds.pop()
        for rv in s.return_vars:
            self.writes.define(rv)
        self.writes.if_done()
        return out

    def loop(self, s: S.ForStmt | S.WhileStmt) -> list[S.Stmt]:
        """A carry is a tile when its init or its yielded value is one: the body is lowered again when
        it yields a tile into a carry that started as a GM tensor (whose init is then loaded)."""
        header = self.loop_header(s)
        inits = [self.expr(ia.initValue, s.span) for ia in s.iter_args]
        pre = self.take_pending()
        as_tile = [isinstance(i.type, TileType) for i in inits]
        self.writes.kinds.append("loop")
        self.writes.loop_depth += 1
        for ia in s.iter_args:
            self.writes.define(ia)
        stale = dict(self.writes.stale)
        while True:
            self.writes.stale = dict(stale)  # a body lowered again starts from the same state
            iter_args = self.carries(s.iter_args, [self.tile(i) if t else i for i, t in zip(inits, as_tile)])
            prefix = self.take_pending()
            if isinstance(s, S.WhileStmt):
                header["condition"] = self.expr(s.condition, s.span)
                if self.pending:
                    raise UserError(f"{PASS}: the condition of this while loop reads a tensor; compute the "
                                    f"condition from scalars (pl.tensor.read a value first)", s.span)
            body = self.body(s.body)
            last = trailing_yield(body)
            grow = [i for i, v in enumerate(last.value if last is not None else ())
                    if i < len(as_tile) and isinstance(v.type, TileType) and not as_tile[i]]
            if not grow:
                break
            for i in grow:
                as_tile[i] = True
        self.writes.loop_depth -= 1
        self.writes.kinds.pop()
        for rv in s.return_vars:
            self.writes.define(rv)
        body = self._yield_tiles(body, as_tile)
        return_vars = self.merged(s.return_vars, [body])
        loop = s.with_fields(iter_args=tuple(iter_args), body=body, return_vars=tuple(return_vars), **header)
        return [*pre, *prefix, loop]  # type: ignore[list-item]

    def _yield_tiles(self, body: S.Stmt, as_tile: list[bool]) -> S.Stmt:
        """A yield of a GM value into a tile carry or merge loads it first (inside the body)."""
        last = trailing_yield(body)
        if last is None:
            return body
        self.span = last.span
        values = [self.tile(v) if i < len(as_tile) and as_tile[i] and isinstance(v.type, TensorType) else v
                  for i, v in enumerate(last.value)]
        if all(a is b for a, b in zip(values, last.value)):
            return body
        stmts = flatten_to_stmts(body)
        return make_body([*stmts[:-1], *self.take_pending(), S.YieldStmt(values, last.span, last.leading_comments)])

    def if_result(self, s: S.IfStmt, condition: E.Expr, pre: list[S.Stmt], then_body: S.Stmt,
                  else_body: S.Stmt | None) -> list[S.Stmt]:
        """A merge is a tile when either branch yields one; a branch yielding a GM tensor loads it."""
        as_tile = [False] * len(s.return_vars)
        for branch in (then_body, else_body):
            last = trailing_yield(branch)
            for i, v in enumerate(last.value[:len(as_tile)] if last is not None else ()):
                as_tile[i] = as_tile[i] or isinstance(v.type, TileType)
        then_body = self._yield_tiles(then_body, as_tile)
        else_body = self._yield_tiles(else_body, as_tile) if else_body is not None else None
        return super().if_result(s, condition, pre, then_body, else_body)

    # -- the function ----------------------------------------------------------------------------
    def run(self) -> S.Stmt:
        body = drop_unused(self.body(self.func.body), set(self.cube_tails))  # tails moved into every shard
        # A loop lowered twice (a carry that turned out to be a tile) may have asked for a load it
        # no longer uses.
        used = {id(v) for v in free_vars_in_order([body])}
        loads = [s for s in self.entry_stmts if id(s.var) in used]  # type: ignore[attr-defined]
        # In parameter order, as PyPTO's (docs/passes/convert_tensor_to_tile_ops.md, entry loads).
        position = {id(p): i for i, p in enumerate(self.func.params)}
        loads.sort(key=lambda s: position.get(id(s.value.args[0]), len(position)))  # type: ignore[attr-defined]
        return make_body([*loads, *flatten_to_stmts(body)], self.func.body.span)
