"""Halving the vector work of a split function, one AIV lane's part (docs/passes/lower_auto_vector_split.md, what it does).

The walk keeps, for every value it rewrites, which axis it is split on (facts.SplitFacts). A vector
call is halved: an op whose operands describe its shape or window rewrites them with its implementation
of the split_form op interface (split_forms/); any other op keeps its operands (split ones replaced by their halves) and gets
its result type halved, checked by the two soundness rules of conditions.py (the type rule accepts the halved operands; the operands it cannot see are declared lane-invariant). A cube call stays full size. Loop
carries take their init's split, loop results their carry's; a backedge yield and the two branches of
an if must agree. A store of a lane that may be empty is guarded by `extent > 0`.

This module is the machinery both paths of LowerAutoVectorSplit share; the AUTO path adds the
cube/vector boundaries (auto.py), the region path its regions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.rewriting import BodyRewriter, trailing_yield
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.types import TensorType, TileType, TupleType, Type
from pypto_core.ir.utils import describe_operand
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.build import ceil_half, static_int
from pypto_core.ops.opdef import CoreAffinity, Effect, OpDef
from pypto_core.ops.registry import create_op_call, op_registry, opdef_of
from pypto_plugins.pass_split.interfaces import SPLIT_FORM
from pypto_plugins.pass_split.split_axis.conditions import (
    absolute_index_category,
    deduce_halved,
    full_width_operands,
    is_blind,
    operand_axis,
    same_physical_shape,
)
from pypto_plugins.pass_split.split_axis.facts import Split, SplitFacts
from pypto_plugins.pass_split.split_axis.halving import halve_tile_type, with_valid_region
from pypto_plugins.pass_split.split_axis.lanes import LanePartition, lane_one_may_be_empty
from pypto_plugins.pass_split.split_axis.modes import split_dimension

PASS = "LowerAutoVectorSplit"


def _axis_for_rank(dim: int, rank: int) -> int | None:
    if rank == 2:
        return dim
    if rank == 1:
        return 0 if dim == 1 else None
    return None


class Splitter(BodyRewriter):
    """Halves one function's vector work; implements pypto_core.ops.split_form.SplitLowering."""

    def __init__(self, func: F.Function, mode: SplitMode, partition: LanePartition) -> None:
        super().__init__(func)
        self.mode = mode
        self.dim = split_dimension(mode)
        self.partition = partition
        self.facts = SplitFacts()
        self._renamed_result: tuple[E.Var, str] | None = None  # _whole_value_named_as_written -> define

    # -- SplitLowering ----------------------------------------------------------------------------
    def split_axis(self, operand: E.Expr) -> int | None:
        return self.facts.axis_of(operand)

    def half(self, extent: E.Expr) -> E.Expr:
        return ceil_half(extent)

    def lane_valid(self, valid: E.Expr, extent: E.Expr) -> E.Expr:
        return self.partition.lane_valid(valid, extent)

    def lane_offset(self, offset: E.Expr, extent: E.Expr) -> E.Expr:
        return self.partition.lane_offset(offset, extent)

    def call(self, op: str, args: Sequence[E.Expr], kwargs: Mapping[str, Any] | None = None) -> E.Call:
        try:
            return create_op_call(op, list(args), dict(kwargs or {}), span=self.span)
        except (TypeError, ValueError) as exc:
            raise self.reject(f"{op} does not type-check on one lane's part: {exc}") from None

    def reject(self, message: str) -> Exception:
        return UserError(f"{PASS}: {message}", self.span)

    # -- the affinity gate ------------------------------------------------------------------------
    def rewrite_call(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        if call.span is not None and call.span.is_valid():
            self.span = call.span
        affinity = classify_call_affinity(call)  # the original call: its operands' spaces decide
        if affinity is CoreAffinity.MIXED:
            return self.boundary(call, args, result)
        if affinity is CoreAffinity.CUBE:
            return self.keep(call, args)
        if affinity is CoreAffinity.VECTOR or any(self.facts.is_split(a) for a in args):
            return self.halve(call, args, result)
        return self.keep(call, args)

    def boundary(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        """A call that crosses cube <-> vector; the path that owns the boundaries decides."""
        return self.keep(call, args)

    def keep(self, call: E.Call, args: list[E.Expr]) -> E.Expr:
        """The call at full size, its operands substituted (typed again only when their types changed)."""
        if all(a is b for a, b in zip(args, call.args)):
            return call
        if isinstance(call.op, E.GlobalVar) or all(structural_equal(a.type, b.type) for a, b in zip(args, call.args)):
            return call.with_fields(args=tuple(args))
        rebuilt = self.call(call.op.name, args, call.kwargs)
        return rebuilt.with_fields(attrs=dict(call.attrs)) if call.attrs else rebuilt

    # -- halving one vector call ------------------------------------------------------------------
    def halve(self, call: E.Call, args: list[E.Expr], result: E.Var | None) -> E.Expr:
        opdef = opdef_of(call)
        split = [self.facts.axis_of(a) for a in args]
        if opdef is None:
            if any(s is not None for s in split):
                raise self.reject(f"the call of function '{call.op.name}' takes a split tile; a kernel call cannot "
                                  f"take one lane's part: compute the value inside this function")
            return self.keep(call, args)
        self._absolute_index_gate(opdef, call, args, split)
        split_form = op_registry().implementation(SPLIT_FORM.name, opdef.name)
        if split_form is not None:
            helpers = len(self.pending)
            new, axis = split_form(self, call, args)
            new = self._whole_value_named_as_written(new, result, helpers)
            source = split[0] if split else None
            if self.partition.balanced_stride is not None and source is not None and axis not in (None, source):
                raise self.reject(f"{call.op.name} moves the split axis from dim {source} to dim {axis}, but this "
                                  f"function splits its ragged boundary evenly by valid rows, a partition the "
                                  f"moved axis (with its own half) cannot follow; reshape after the vector work "
                                  f"or pad the boundary")
            if axis is not None and isinstance(new.type, TileType):
                self.facts.record(new, Split(axis, may_be_empty=self._may_be_empty(new.type, axis)))
            return new
        t = call.type
        if isinstance(t, TupleType):
            return self._halve_tuple(opdef, call, args, t)
        if not isinstance(t, TileType):
            first = next((a for a, axis in zip(args, split) if axis is not None), None)
            if first is not None:
                raise self.reject(f"{call.op.name} reads the split tile '{describe_operand(first)}' into a {t}, but each lane "
                                  f"holds only its part of it; read it before the split (from a full-width value) "
                                  f"or per lane with lane-local indices")
            return self.keep(call, args)
        return self._halve_tile(opdef, call, args, split, t, result)

    def _whole_value_named_as_written(self, new: E.Expr, result: E.Var | None, helpers: int) -> E.Expr:
        """A split form that bound the statement's whole value (a full-width view) and reads this lane's part
        of it: the whole value keeps the statement's variable, the lane's part gets a fresh one of the same
        name (`col = reshape(b, ...)`, `col_1 = slice(col, ...)`; docs/passes/lower_auto_vector_split.md)."""
        if result is None or len(self.pending) != helpers + 1 or not isinstance(new, E.Call) or not new.args:
            return new
        helper = self.pending[-1]
        if not (isinstance(helper, S.AssignStmt) and new.args[0] is helper.var
                and structural_equal(helper.var.type, result.type)):
            return new
        self.pending[-1] = S.AssignStmt(result, helper.value, helper.span)
        self._renamed_result = (result, self.fresh(user_base(result)))
        return new.with_fields(args=(result, *new.args[1:]))

    def define(self, var: E.Var, new_type: Type) -> E.Var:
        renamed, self._renamed_result = self._renamed_result, None
        if renamed is not None and renamed[0] is var:
            new = E.Var(renamed[1], new_type, var.span)
            self.subst[id(var)] = new
            return new
        return super().define(var, new_type)

    def _may_be_empty(self, t: TileType, axis: int) -> bool:
        return lane_one_may_be_empty(t.valid_shape[axis])

    def _absolute_index_gate(self, opdef: OpDef, call: E.Call, args: list[E.Expr], split: list[int | None]) -> None:
        """docs/passes/lower_auto_vector_split.md: an operand addressed by absolute indices must keep its full width (checked first)."""
        for i, axis in enumerate(split):
            category = absolute_index_category(opdef, i)
            if category is not None and axis is not None:
                raise self.reject(f"{call.op.name} addresses operand {i} ('{describe_operand(args[i])}', {category.value}) with "
                                  f"ABSOLUTE indices, but that operand was halved on the split axis, so lane 1 would "
                                  f"read (or write) the wrong half; produce it outside the split region and pass the "
                                  f"full tile in")

    def _result_axis(self, args: list[E.Expr], split: list[int | None], rank: int) -> int | None:
        for a, s in zip(args, split):
            if s is not None and isinstance(a.type, TileType):
                axis = s + (rank - len(a.type.shape))
                return axis if 0 <= axis < rank else None
        return _axis_for_rank(self.dim, rank)

    def _halve_tile(self, opdef: OpDef, call: E.Call, args: list[E.Expr], split: list[int | None],
                    t: TileType, result: E.Var | None = None) -> E.Expr:
        self._no_reduction_over_the_split_axis(opdef, call, args, split)
        rank = len(t.shape)
        axis = self._result_axis(args, split, rank)
        any_split = any(s is not None for s in split)
        if any_split and axis is None:
            raise self.reject(f"{call.op.name} reduces on the split axis (dim {self.dim}) of '{describe_operand(args[0])}', "
                              f"which each lane holds only half of; reduce along the other axis, or keep this "
                              f"stage full width (a pl.split_aiv(2, mode=pl.SplitMode.NONE) region)")
        if axis is None or static_int(t.shape[axis]) == 1:
            return self.keep(call, args)  # nothing on the split axis to halve (a broadcast row)
        halved, may_be_empty = halve_tile_type(t, axis, self.partition)
        accepted = self._unseen_operands_declared_lane_invariant(opdef, call, args, split, axis, rank)
        deduced, message = deduce_halved(opdef, args, call.kwargs)
        if deduced is None or not same_physical_shape(deduced, halved):
            blamed = [describe_operand(args[i]) for i in full_width_operands(opdef, args, split, axis, rank)
                      if i not in accepted]
            operand = f"a full-width operand '{blamed[0]}'" if blamed else "operands of mismatched widths"
            why = f" ({message})" if message else ""
            raise self.reject(f"{call.op.name} here carries {operand}: each lane computes half the result on the "
                              f"split axis{why}; derive the per-lane half first (pl.load / pl.slice it inside the "
                              f"split function, or write pl.tile.aiv_shard), or keep the value out of the split")
        if not (t.tile_view is not None and t.tile_view.valid_shape):
            # No valid region was declared: the lane's is the one its operands derive, as the parser derives
            # it when it reads the printed program back (a temporary a later pass made from a narrowed tile).
            halved = with_valid_region(halved, deduced.valid_shape, deduced.effective_view().compact)
        new = E.Call(call.op, args, kwargs=dict(call.kwargs), attrs=dict(call.attrs), type=halved, span=call.span)
        self.facts.record(new, Split(axis, may_be_empty=may_be_empty))
        if result is None and not structural_equal(deduced, halved):
            # A nested call whose lane type (a lane's valid extent, the layout the program gave it) is not what
            # its operands deduce: only an annotation can carry it through print -> parse, so bind it.
            bound = self.bind(new, f"{call.op.name.rpartition('.')[2]}_lane")
            self.facts.record(bound, Split(axis, may_be_empty=may_be_empty))
            return bound
        return new

    def _no_reduction_over_the_split_axis(self, opdef: OpDef, call: E.Call, args: list[E.Expr],
                                          split: list[int | None]) -> None:
        """A reduction over the split axis is rejected, whatever its input (docs/passes/lower_auto_vector_split.md,
        errors): the axis is the tracked input's split dim, else the function's split dim in the input's rank
        (a full-width input would be reduced whole by each lane, then the halves of the result disagree)."""
        axes = opdef.traits.reduction_axes
        if not axes:
            return
        axis = next((s for s in split if s is not None), None)
        if axis is None:
            first = next((a for a in args if isinstance(a.type, TileType)), None)
            axis = _axis_for_rank(self.dim, len(first.type.shape)) if first is not None else None  # type: ignore[union-attr]
        if axis is not None and axis in axes:
            raise UserError(f"SplitVectorKernel: reduce op '{call.op.name}' reduces on the split axis (dim {axis}); "
                            f"partial reduction in a split kernel is not supported: each AIV lane would reduce only "
                            f"its part; reduce along the other axis, or keep this stage full width (a "
                            f"pl.split_aiv(2, mode=pl.SplitMode.NONE) region)", self.span)

    def _unseen_operands_declared_lane_invariant(self, opdef: OpDef, call: E.Call, args: list[E.Expr],
                                                 split: list[int | None], axis: int, rank: int) -> set[int]:
        """Full-width operands the deducer cannot see: their lane declaration decides (undeclared = lane data)."""
        accepted: set[int] = set()
        for i in full_width_operands(opdef, args, split, axis, rank):
            op_axis = operand_axis(axis, rank, len(args[i].type.shape))  # type: ignore[attr-defined]
            if op_axis is None or not is_blind(opdef, args, call.kwargs, i, op_axis):
                continue
            if opdef.lane_category(i) is None:
                raise self.reject(f"{call.op.name} carries a full-width operand '{describe_operand(args[i])}' (operand {i}) "
                                  f"that its type rule does not read, so nothing shows that both lanes would use "
                                  f"its first half: halve it with the other operands (load or slice it inside "
                                  f"the split function), or declare it lane-invariant in the op registry if full "
                                  f"width is its contract")
            accepted.add(i)
        return accepted

    def _halve_tuple(self, opdef: OpDef, call: E.Call, args: list[E.Expr], t: TupleType) -> E.Expr:
        """Each element moves along its own axis, read off the op's deducer (docs/passes/lower_auto_vector_split.md, which values are split)."""
        deduced, message = deduce_halved(opdef, args, call.kwargs)
        if not isinstance(deduced, TupleType):
            raise self.reject(f"{call.op.name} rejects one lane's operands ({message}); halve them consistently")
        elements: list[Type] = []
        axes: list[int | None] = []
        for k, (old, new) in enumerate(zip(t.types, deduced.types)):
            if not isinstance(old, TileType) or not isinstance(new, TileType):
                elements.append(old)
                axes.append(None)
                continue
            moved = [a for a, (x, y) in enumerate(zip(old.shape, new.shape)) if not structural_equal(x, y)]
            if len(moved) != 1 or not structural_equal(new.shape[moved[0]], ceil_half(old.shape[moved[0]])):
                raise self.reject(f"{call.op.name}'s result element {k} does not halve on exactly one axis when its "
                                  f"operands are split ({old} -> {new}): both lanes would hold a full-width "
                                  f"result from half the data; split along the other axis or keep it full width")
            halved, _ = halve_tile_type(old, moved[0], self.partition)
            elements.append(halved)
            axes.append(moved[0])
        new_call = E.Call(call.op, args, kwargs=dict(call.kwargs), attrs=dict(call.attrs), type=TupleType(elements),
                          span=call.span)
        self.facts.record(new_call, Split(None, tuple(axes)))
        return new_call

    # -- statements, carries, merges --------------------------------------------------------------
    def stmt(self, s: S.Stmt) -> list[S.Stmt]:
        return guard_stores(s, super().stmt(s), self.facts, self.fresh)

    def carries(self, iter_args: Sequence[E.IterArg], inits: Sequence[E.Expr]) -> list[E.IterArg]:
        out = super().carries(iter_args, inits)
        for new, init in zip(out, inits):
            self.facts.record(new, self.facts.of(init))
        return out

    def after_loop_body(self, s: S.ForStmt | S.WhileStmt, iter_args: list[E.IterArg], body: S.Stmt) -> S.Stmt:
        """The backedge: a carry is split exactly when the value yielded into it is (docs/passes/lower_auto_vector_split.md, which values are split)."""
        last = trailing_yield(body)
        if last is None:
            return body
        for carry, value in zip(iter_args, last.value):
            carried, yielded = self.facts.axis_of(carry), self.facts.axis_of(value)
            if carried == yielded:
                continue
            self.span = last.span
            if not isinstance(value, E.Var) and isinstance(value, E.Call):
                raise self.reject(f"the loop yields {value.op.name}(...) written inline into the carry "
                                  f"'{carry.name_hint}'; bind it to a name first (`x = {value.op.name}(...)`, then "
                                  f"`pl.yield_(x)`) so that its statement is halved with the rest of the body")
            which = "split" if carried is not None else "full-width"
            got = "split" if yielded is not None else "full-width"
            raise self.reject(f"the loop carries a {which} '{carry.name_hint}' but yields a {got} "
                              f"'{describe_operand(value)}' back into it: both sides of a carry must hold the same lane "
                              f"part; yield the per-lane value (or initialise the carry with one)")
        return body

    def merged(self, return_vars: Sequence[E.Var], bodies: Sequence[S.Stmt | None]) -> list[E.Var]:
        out = super().merged(return_vars, bodies)
        yields = [y.value for y in (trailing_yield(b) for b in bodies) if y is not None]
        for i, rv in enumerate(out):
            splits = [self.facts.of(values[i]) for values in yields if i < len(values)]
            axes = {sp.axis if sp is not None else None for sp in splits}
            if len(axes) > 1:
                raise self.reject(f"the branches of this if give '{rv.name_hint}' different lane parts (one split, "
                                  f"one full width); make both branches yield per-lane values")
            if splits and splits[0] is not None:
                self.facts.record(rv, splits[0])
        return out


def guard_stores(original: S.Stmt, out: list[S.Stmt], facts: SplitFacts, fresh: Callable[[str], str]) -> list[S.Stmt]:
    """`out` (the rewrite of `original`) with its store guarded when the storing lane may hold nothing:
    a bound store, and one written as a statement or inside a `return` (docs/passes/lower_auto_vector_split.md, lane extents:
    binding the store to a name first is never a precondition for correctness)."""
    if not out:
        return out
    last = out[-1]
    if isinstance(original, S.AssignStmt) and isinstance(last, S.AssignStmt):
        facts.record(last.var, facts.of(last.value))
        guarded = guard_empty_lane(last, facts, fresh)
        if guarded is not None:
            out[-1] = guarded
    elif isinstance(last, S.EvalStmt):
        guarded = _guard_unbound(last.expr, facts, fresh)
        if guarded is not None:
            out[-1] = guarded[0]
    elif isinstance(last, S.ReturnStmt):
        before: list[S.Stmt] = []
        values: list[E.Expr] = []
        for v in last.value:
            guarded = _guard_unbound(v, facts, fresh)
            if guarded is not None:
                before.append(guarded[0])
            values.append(guarded[1] if guarded is not None else v)
        if before:
            out[-1:] = [*before, last.with_fields(value=tuple(values))]  # type: ignore[list-item]
    return out


def with_lane_extent(rewriter: BodyRewriter, call: E.Call, args: list[E.Expr], facts: SplitFacts,
                     dim: int) -> list[E.Expr]:
    """The operands of `call`, a GM store straight from a shard of a runtime split-axis extent narrowed to the
    lane's extent (`tile.set_validshape`, bound to `<shard>_lane`): the shard's type is the whole lane box, so
    without it each lane stores its whole box where the program stores only the valid rows (docs/passes/lower_auto_vector_split.md, lane extents:
    the first consumer carries the lane's extent, and a store has no result to carry it)."""
    opdef = opdef_of(call)
    if opdef is None or not opdef.traits.gm_transfer or not isinstance(call.type, TensorType):
        return args
    out: list[E.Expr] = []
    for a in args:
        split = facts.of(a)
        t = a.type
        if split is None or split.lane_extent is None or not isinstance(t, TileType) or len(t.shape) != 2:
            out.append(a)
            continue
        valid = list(t.valid_shape)
        valid[dim] = split.lane_extent
        lane = rewriter.bind(create_op_call("tile.set_validshape", [a, *valid], span=rewriter.span),
                             f"{user_base(a)}_lane")
        facts.record(lane, Split(split.axis, may_be_empty=True))
        out.append(lane)
    return out


def _guard_unbound(value: E.Expr, facts: SplitFacts, fresh: Callable[[str], str]) -> tuple[S.Stmt, E.Var] | None:
    """The guard of a store not bound to a name, bound to a fresh `stored` (named only when it is needed)."""
    span = value.span
    if guard_empty_lane(S.AssignStmt(E.Var("stored", value.type, span), value, span), facts, fresh, probe=True) is None:
        return None
    var = E.Var(fresh("stored"), value.type, span)
    return guard_empty_lane(S.AssignStmt(var, value, span), facts, fresh), var  # type: ignore[return-value]


def guard_empty_lane(s: S.AssignStmt, facts: SplitFacts, fresh: Callable[[str], str],
                     probe: bool = False) -> S.Stmt | None:
    """A store from a lane whose extent can be 0 runs only when it holds rows (docs/passes/lower_auto_vector_split.md, lane extents):
    `if extent > 0: stored = store(...) else: the target as it was`. None when no guard is needed."""
    value = s.value
    if not isinstance(value, E.Call) or not isinstance(value.type, TensorType):
        return None
    opdef = opdef_of(value)
    if opdef is None:
        return None
    source = next((a for a in value.args if (sp := facts.of(a)) is not None and sp.may_be_empty
                   and sp.axis is not None and isinstance(a.type, TileType)), None)
    if source is None:
        return None
    effects = opdef.arg_effects(value.kwargs)
    target_index = next((i for i, e in effects.items() if e is not Effect.READ
                         and i < len(value.args) and isinstance(value.args[i].type, TensorType)), None)
    if target_index is None:
        return None
    if probe:
        return s  # a guard is needed; `probe` only asks, without taking a fresh name
    axis = facts.axis_of(source)
    extent = source.type.valid_shape[axis]  # type: ignore[attr-defined,index]
    stored = E.Var(fresh(f"{s.var.name_hint}_lane"), s.var.type, s.span)
    condition = E.Gt(extent, E.ConstInt(0), DataType.BOOL, s.span)
    then_body = S.SeqStmts([S.AssignStmt(stored, value, s.span), S.YieldStmt([stored], s.span)], s.span)
    else_body = S.YieldStmt([value.args[target_index]], s.span)
    return S.IfStmt(condition, then_body, else_body, [s.var], s.span, s.leading_comments)


class _CubeUse(IRVisitor):
    def __init__(self, facts: SplitFacts, func: F.Function) -> None:
        self.facts = facts
        self.func = func

    def visit_call(self, call: E.Call) -> None:
        if classify_call_affinity(call) is CoreAffinity.CUBE:
            if self.facts.is_split(call) or any(self.facts.is_split(a) for a in call.args):
                raise InternalError(f"{PASS}: cube op {call.op.name} in '{self.func.name}' consumes or produces a "
                                    f"halved tile; the affinity gate must keep cube work full size")
        super().visit_call(call)


def check_no_cube_tile_halved(body: S.Stmt, facts: SplitFacts, func: F.Function) -> None:
    """docs/passes/lower_auto_vector_split.md, when a halved call is sound: the backstop for the affinity gate."""
    _CubeUse(facts, func).visit_stmt(body)
