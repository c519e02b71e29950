"""Result spaces and operand moves (InferTileMemorySpace, step 2): one forward walk of a function.

Result spaces (docs/passes/infer_tile_memory_space.md, what it does):
* an op with a fixed output space or a given `target_memory`-like kwarg: that;
* a retargetable producer without the kwarg (a tile.load / tile.create ConvertTensorToTileOps made):
  its demand clamped to the kwarg's choices (Left / Right demands give a Mat load), else Vec; the kwarg
  is written into the call;
* otherwise the result inherits its first tile argument's space (the registry may name the input),
  else Vec; `y = x` inherits x's space.
Loops: carries start from their init's space; a body that yields another space forces that space on
the init (`Placement.forced`), and the caller walks the function again (a Vec tile.create accumulator
that tile.matmul_acc updates becomes Acc). An if merge has a space only when both branches agree.

Moves: an operand in a space its op does not accept gets `tile.move` to the first accepted space, bound
to `<x>_<Space>` right before its first consumer and reused by later consumers in the same statement
block. Acc -> Vec moves are written `blayout=row_major, slayout=none_box`, and so is a move for an operand
the consumer's instruction reads row-major (its `row_major_layout`; only `blayout=row_major` outside Vec);
other moves keep the layout tile.move derives. In a function with
`pl.split_aiv` regions, a move that is vector work (the registry's affinity; a cross-side move counts on
the side it lands) needed outside every region, of a value a region computed, goes at the end of that
region instead (docs/passes/lower_auto_vector_split.md, outside the regions: the regions place the vector work; only loads and stores stay out). A variable whose space
changes is replaced by a retyped copy (layout refreshed for the space, valid region kept) and every
call using it is typed again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pypto_core.analysis.affinity import landing_side
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace, TileLayout
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.rewriting import BodyRewriter, trailing_yield
from pypto_core.ir.types import TileType, TileView, Type, implicit_layout
from pypto_core.ir.utils import collect_def_vars, flatten_to_stmts, has_split_aiv_region, make_body
from pypto_core.ir.visitor import IRMutator
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import create_op_call, op_registry, opdef_of
from pypto_plugins.pass_tile.interfaces import ROW_MAJOR_LAYOUT
from pypto_plugins.pass_tile.memory_space.demands import Demands, inherited_operand

PASS = "InferTileMemorySpace"
# Call attrs holding variable lists that follow a retyped variable (docs/passes/infer_tile_memory_space.md).
_VAR_LIST_ATTRS = ("manual_dep_edges", "compiler_manual_dep_edges", "arg_direction_overrides_vars")


def in_space(t: TileType, space: MemorySpace | None) -> TileType:
    """`t` in another space: the layout is the new space's implicit one, the valid region is kept."""
    if t.memory_space is space:
        return t
    blayout, slayout, fractal = implicit_layout(t.shape, space)
    valid = t.tile_view.valid_shape if t.tile_view is not None else ()
    view = TileView(valid_shape=list(valid), blayout=blayout, slayout=slayout, fractal=fractal)
    return TileType(t.shape, t.dtype, t.memref, view, space)


def clamp(space: MemorySpace, choices: Sequence[Any]) -> MemorySpace:
    """A demand a producer can satisfy: the space itself, else the cube staging space, else Vec."""
    if not choices or space in choices:
        return space
    if space.is_cube() and MemorySpace.Mat in choices:
        return MemorySpace.Mat
    return MemorySpace.Vec if MemorySpace.Vec in choices else choices[0]


class Placement(BodyRewriter):
    """One forward walk; `forced` (init expr id -> space) survives between walks of a function."""

    def __init__(self, demands: Demands, forced: dict[int, MemorySpace], func: F.Function) -> None:
        super().__init__(func)
        self.demands = demands
        self.forced = forced
        self.changed = False  # a loop forced a new space: walk again
        self.moves: list[dict[tuple[int, MemorySpace], E.Var]] = [{}]
        # Manual mode (docs/passes/lower_auto_vector_split.md): the region each region-made variable comes from, and the vector moves
        # of such variables that the code after the regions needs, appended to their region by `finish`.
        self.manual = has_split_aiv_region(func.body)
        self.region_depth = 0
        self.made_in: dict[int, S.SplitAivScopeStmt] = {}
        self.region_moves: dict[tuple[int, MemorySpace], E.Var] = {}
        self.hoisted: list[tuple[E.Var, S.AssignStmt]] = []  # (the moved operand, its move)

    # -- blocks: a move is reused by later consumers of the same block -----------------------------
    def enter_block(self) -> None:
        self.moves.append({})

    def exit_block(self) -> None:
        self.moves.pop()

    def _cached(self, key: tuple[int, MemorySpace]) -> E.Var | None:
        """A move made earlier in this block or an enclosing one (sibling blocks never see each other's)."""
        for scope in reversed(self.moves):
            cached = scope.get(key)
            if cached is not None:
                return cached
        return None

    def _moved(self, operand: E.Expr, target: MemorySpace, consumer: E.Call | None = None,
               slot: int = -1) -> E.Expr:
        key = (id(operand), target)
        cached = self._cached(key)
        if cached is not None:
            return cached  # later consumers reuse the move as its first consumer made it
        src = operand.type
        assert isinstance(src, TileType)
        kwargs: dict[str, Any] = {"target_memory": target, **move_layout(src, target, consumer, slot)}
        move = create_op_call("tile.move", [operand], kwargs, span=self.span)
        if not isinstance(operand, E.Var):
            return move  # an operand written inline stays inline
        if self.region_depth == 0 and id(operand) in self.made_in and is_vector_work(move):
            return self._moved_in_region(operand, target, move)
        var = self.bind(move, f"{operand.name_hint}_{target.name}")
        self.moves[-1][key] = var
        return var

    def _moved_in_region(self, operand: E.Var, target: MemorySpace, move: E.Call) -> E.Var:
        """The move of a region-made value, bound at the end of its region (once per function)."""
        key = (id(operand), target)
        var = self.region_moves.get(key)
        if var is None:
            var = E.Var(self.fresh(f"{operand.name_hint}_{target.name}"), move.type, self.span)
            self.hoisted.append((operand, S.AssignStmt(var, move, self.span)))
            self.region_moves[key] = var
        return var

    # -- regions ---------------------------------------------------------------------------------
    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        if not self.manual:
            return super().stmt(s)
        region = isinstance(s, S.SplitAivScopeStmt)
        self.region_depth += region
        out = super().stmt(s)
        self.region_depth -= region
        if region:
            for made in out:
                for v in collect_def_vars(made):
                    self.made_in[id(v)] = s  # type: ignore[assignment]
        return out

    def finish(self, body: S.Stmt) -> S.Stmt:
        """The body with the hoisted moves appended to the regions that made their operands."""
        return _AppendToRegions(self.hoisted).visit_stmt(body) if self.hoisted else body

    # -- calls -----------------------------------------------------------------------------------
    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        """The call with substituted, placed operands, typed again; its result space decided."""
        opdef = opdef_of(call)
        if opdef is None:  # a call of a function
            return self._with_attrs(super().rewrite_call(call, args, result), call, {})
        replaced: dict[int, list[E.Expr]] = {}  # operand -> its moves, in argument order
        for i, a in enumerate(args):
            allowed = opdef.accepted_spaces(i)
            t = a.type
            if allowed and isinstance(t, TileType) and t.memory_space is not None and t.memory_space not in allowed:
                args[i] = self._moved(a, allowed[0], call, i)
                replaced.setdefault(id(a), []).append(args[i])
        kwargs = dict(call.kwargs)
        retarget = opdef.retarget_kwarg
        if retarget is not None:
            forced = self.forced.get(id(result)) if result is not None else None
            if forced is not None:
                kwargs[retarget.name] = clamp(forced, retarget.choices)
            elif retarget.name not in kwargs and retarget.deferred:
                demand = self.demands.get(result) if result is not None else None
                kwargs[retarget.name] = clamp(demand, retarget.choices) if demand is not None else MemorySpace.Vec
        same = all(a is b for a, b in zip(args, call.args)) and kwargs == dict(call.kwargs)
        rebuilt = call if same else self._typed(call, args, kwargs)
        placed = self._result_space(self._with_attrs(rebuilt, call, replaced), args)
        forced = self.forced.get(id(result)) if result is not None and retarget is None else None
        t = placed.type
        if forced is not None and isinstance(t, TileType) and t.memory_space is not forced:
            # A loop init whose producer has no space kwarg (tile.full, ...): the carry's space is its type.
            return placed.with_fields(type=in_space(t, forced))
        return placed

    def _with_attrs(self, rebuilt: E.Expr, call: E.Call, replaced: dict[int, list[E.Expr]]) -> E.Expr:
        """The call's variable-naming attrs follow its operands: a `dump_vars` entry naming a moved operand
        becomes all its moves (in argument order); the dependence lists and `device` follow retyped variables."""
        if not call.attrs or not isinstance(rebuilt, E.Call):
            return rebuilt
        attrs = dict(call.attrs)
        for key in (*_VAR_LIST_ATTRS, "dump_vars"):
            entries = attrs.get(key)
            if not isinstance(entries, (list, tuple)):
                continue
            out: list[Any] = []
            for entry in entries:
                new = self.exprs.visit_expr(entry) if isinstance(entry, E.Expr) else entry
                out.extend(replaced.get(id(new), [new]) if key == "dump_vars" else [new])
            attrs[key] = tuple(out) if isinstance(entries, tuple) else out
        if isinstance(attrs.get("device"), E.Expr):
            attrs["device"] = self.exprs.visit_expr(attrs["device"])
        if all(_same(attrs[k], v) for k, v in call.attrs.items()):
            return rebuilt
        return rebuilt.with_fields(attrs=attrs)

    def _typed(self, call: E.Call, args: list[E.Expr], kwargs: dict[str, Any]) -> E.Call:
        try:
            rebuilt = create_op_call(call.op.name, args, kwargs, span=call.span)
        except (TypeError, ValueError) as exc:
            raise UserError(f"{PASS}: {call.op.name} does not type-check once its operands are placed in "
                            f"function '{self.func.name}': {exc}", call.span) from None
        return rebuilt.with_fields(attrs=dict(call.attrs)) if call.attrs else rebuilt  # type: ignore[return-value]

    def _result_space(self, call: E.Call, args: list[E.Expr]) -> E.Call:
        """A tile result with no space yet takes its inherited operand's space, else Vec."""
        t = call.type
        if not isinstance(t, TileType) or t.memory_space is not None:
            return call
        j = inherited_operand(call)
        source = args[j].type if j is not None and j < len(args) else None
        space = source.memory_space if isinstance(source, TileType) else None
        opdef = opdef_of(call)
        declared_inherit = opdef is not None and opdef.output_memory is not None \
            and opdef.output_memory.inherit_input is not None
        if space is None and not declared_inherit:
            space = MemorySpace.Vec
        return call.with_fields(type=in_space(t, space)) if space is not None else call  # type: ignore[return-value]

    # -- loops and merges ------------------------------------------------------------------------
    def loop_init(self, ia: E.IterArg, span: Any) -> E.Expr:
        init = self.expr(ia.initValue, span)
        forced = self.forced.get(id(ia.initValue))
        t = init.type
        if forced is not None and isinstance(t, TileType) and t.memory_space is not forced:
            return self._moved(init, forced)  # its producer could not be retargeted
        return init

    def after_loop_body(self, s: S.ForStmt | S.WhileStmt, iter_args: list[E.IterArg], body: S.Stmt) -> S.Stmt:
        """A yield in another space than its carry forces that space on the init (first time), or is moved."""
        last = trailing_yield(body)
        if last is None:
            return body
        values = list(last.value)
        self.span = last.span
        self.enter_block()
        for i, (ia, v) in enumerate(zip(iter_args, values)):
            want, got = ia.type, v.type
            if not (isinstance(want, TileType) and isinstance(got, TileType)) or got.memory_space is None:
                continue
            if want.memory_space is got.memory_space:
                continue
            original = s.iter_args[i].initValue
            if id(original) not in self.forced:
                self.forced[id(original)] = got.memory_space
                self.changed = True
            elif want.memory_space is not None:
                values[i] = self._moved(v, want.memory_space)
        self.exit_block()
        if all(a is b for a, b in zip(values, last.value)):
            return body
        stmts = flatten_to_stmts(body)
        return make_body([*stmts[:-1], *self.take_pending(), S.YieldStmt(values, last.span, last.leading_comments)])

    def merged_type(self, types: Sequence[Type]) -> Type:
        """In a space only when every merged value is in the same one."""
        first = types[0]
        if not all(isinstance(t, TileType) for t in types) or not isinstance(first, TileType):
            return first
        return first if len({t.memory_space for t in types}) == 1 else in_space(first, None)  # type: ignore[union-attr]


def move_layout(src: TileType, target: MemorySpace, consumer: E.Call | None, slot: int) -> dict[str, Any]:
    """A move's layout kwargs (docs/passes/infer_tile_memory_space.md, moves): an Acc -> Vec move always
    writes a flat row-major tile; otherwise a move for an operand whose backend instruction reads it
    row-major (the consumer's `row_major_layout`) writes row-major, flat when it lands in Vec. Any other move
    keeps the layout tile.move derives (Vec keeps the source's)."""
    row_major = {"blayout": TileLayout.row_major}
    flat = {"blayout": TileLayout.row_major, "slayout": TileLayout.none_box}
    if src.memory_space is MemorySpace.Acc and target is MemorySpace.Vec:
        return flat
    if consumer is None or type(consumer.op) is not E.Op:
        return {}
    spec = op_registry().implementation(ROW_MAJOR_LAYOUT.name, consumer.op.name)
    if spec is None:
        return {}
    operands = spec.get("operands", ())
    if operands != "all" and slot not in tuple(operands):
        return {}
    return flat if target is MemorySpace.Vec else row_major


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    return isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b) and \
        all(x is y for x, y in zip(a, b))


def check_params(params: Sequence[E.Var], func_name: str) -> None:
    """A kernel's tile parameter comes from its caller, where no pass places it: the program must say where it
    is (a parameter written so, or a tile captured by a `pl.at` scope from outside it;
    docs/passes/infer_tile_memory_space.md, errors)."""
    for p in params:
        if isinstance(p.type, TileType) and p.type.memory_space is None:
            raise UserError(f"{PASS}: InCore function '{func_name}' has a tile parameter '{user_base(p)}' "
                            f"with no memory space ({p.type}), which the kernel cannot be given; pass a tensor and "
                            f"load it inside the kernel, or give the tile its space "
                            f"(pl.Tile[[...], dtype, pl.Mem.Vec])", p.span)


def is_vector_work(call: E.Call) -> bool:
    """Vector work by the registry's affinity, a cross-side move on the side it lands (as AivSplitValid counts)."""
    return landing_side(call) is CoreAffinity.VECTOR


class _AppendToRegions(IRMutator):
    """Each move goes at the end of the region whose body defines its operand."""

    def __init__(self, hoisted: list[tuple[E.Var, S.AssignStmt]]) -> None:
        self.hoisted = hoisted

    def visit_split_aiv_scope_stmt(self, s: S.SplitAivScopeStmt) -> S.Stmt:
        s = super().visit_node(s)  # type: ignore[assignment]
        defined = {id(v) for v in collect_def_vars(s.body)}
        mine = [move for operand, move in self.hoisted if id(operand) in defined]
        if not mine:
            return s
        return s.with_fields(body=make_body([*flatten_to_stmts(s.body), *mine], s.body.span))
