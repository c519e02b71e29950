"""One InCore function through ExpandMixedKernel (docs/passes/expand_mixed_kernel.md, what it does).

* not mixed: it becomes an AIC (a CUBE rollup) or an AIV function; a pure-vector function that is not
  split_aiv drops its function-level split, and so does a pure-cube one (docs/passes/expand_mixed_kernel.md);
* mixed: `F_aic` (no return value) and `F_aiv` built from the same body, each keeping its own side's
  statements, with transfers, fences, tfrees and the pipe setup; the caller builds the Group.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.affinity import classify_call_affinity
from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, MemorySpace, SplitMode
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import deep_clone, flatten_to_stmts, make_body, substitute_stmt
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.build import static_int
from pypto_core.ops.opdef import CoreAffinity
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.mixed_kernel import pipe_setup
from pypto_plugins.pass_split.mixed_kernel.core_body import CoreBody, SplitPlan
from pypto_plugins.pass_split.mixed_kernel.cross_uses import check_no_cross_core_use
from pypto_plugins.pass_split.mixed_kernel.dce import add_uses, has_side_effect, remove_dead_code
from pypto_plugins.pass_split.mixed_kernel.fences import find_fences
from pypto_plugins.pass_split.mixed_kernel.loop_repair import fold_identity_carries
from pypto_plugins.pass_split.mixed_kernel.placement import consume_regions
from pypto_plugins.pass_split.mixed_kernel.sides import AIC_ONLY, BOTH, Side
from pypto_plugins.pass_split.mixed_kernel.tfree import place_tfrees
from pypto_plugins.pass_split.mixed_kernel.transfers import Boundary, boundary_of
from pypto_plugins.pass_split.split_axis.modes import split_dimension

PASS = "ExpandMixedKernel"
CLEANUP_ROUNDS = 64  # each round removes something; a body has far fewer statements nested this deep


@dataclass
class Expanded:
    aic: F.Function
    aiv: F.Function


def retyped_single_core(func: F.Function, affinity: CoreAffinity) -> F.Function:
    consumed = consume_regions(func)
    kind = FunctionType.AIC if affinity is CoreAffinity.CUBE else FunctionType.AIV
    attrs = dict(func.attrs)
    if kind is FunctionType.AIC or not attrs.get("split_aiv"):
        attrs.pop("split", None)  # a non-mixed function keeps its unsplit behaviour (docs/passes/expand_mixed_kernel.md)
    return F.Function(func.name, func.param_items(), func.return_types, consumed.body, func.span, kind,
                      attrs=attrs, requires_runtime_binding=func.requires_runtime_binding)


def _lane_ids(body: S.Stmt) -> frozenset[int]:
    ids: set[int] = set()

    class Walk(IRVisitor):
        def visit_assign_stmt(self, s: S.AssignStmt) -> None:
            value = s.value
            opdef = opdef_of(value) if isinstance(value, E.Call) and type(value.op) is E.Op else None
            if opdef is not None and opdef.traits.lane_index:
                ids.add(id(s.var))
            super().visit_assign_stmt(s)

    Walk().visit_stmt(body)
    return frozenset(ids)


class _Boundaries(IRVisitor):
    def __init__(self, where: str, lanes: frozenset[int]) -> None:
        self.where, self.lanes = where, lanes
        self.found: dict[int, Boundary] = {}

        self.gathered: set[int] = set()  # V->C boundary results declared in Vec: the AIC holds them in Mat
        self.on_cube: set[int] = set()  # id(statement): a move out of such a result, AIC work (no crossing)

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        b = boundary_of(s, self.where, self.lanes)
        if b is not None and b.direction == "v2c" and isinstance(b.source, E.Var) and id(b.source) in self.gathered:
            self.on_cube.add(id(s))  # the gather's own Var, popped in Mat, moved on the cube
        elif b is not None:
            self.found[id(s)] = b
            if b.direction == "v2c" and _in_vec(b.result):
                self.gathered.add(id(b.result))
        super().visit_assign_stmt(s)


def _in_vec(var: E.Var) -> bool:
    return isinstance(var.type, TileType) and var.type.memory_space is MemorySpace.Vec


class _Transposes(IRVisitor):
    """The axis-swapping calls of a body in order (registry trait `swapped_axes_args`), each with the variable
    its statement binds when it is that statement's value."""

    def __init__(self) -> None:
        self.found: list[tuple[E.Call, E.Var | None]] = []
        self._bound: dict[int, E.Var] = {}

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        self._bound[id(s.value)] = s.var
        super().visit_assign_stmt(s)

    def visit_call(self, call: E.Call) -> None:
        opdef = opdef_of(call) if type(call.op) is E.Op else None
        # A cube transpose (the Mat operand of a transposed matmul) is not in the split vector work.
        if opdef is not None and opdef.traits.swapped_axes_args and \
                classify_call_affinity(call) is not CoreAffinity.CUBE:
            self.found.append((call, self._bound.get(id(call))))
        super().visit_call(call)


def _check_function_split_hazard(func: F.Function) -> None:
    """A mixed kernel with a function-level split (and no `split_aiv_region_validated`): its first transpose whose
    axes include the split dim (a runtime axis may) and whose source is not 1 wide on it is rejected
    (docs/passes/expand_mixed_kernel.md, transpose hazard)."""
    mode = func.split
    if mode is None or mode is SplitMode.NONE or func.attrs.get("split_aiv_region_validated"):
        return
    dim = split_dimension(mode)
    walker = _Transposes()
    walker.visit_stmt(func.body)
    for call, var in walker.found:
        opdef = opdef_of(call)
        source = call.args[0].type if call.args else None
        shape = getattr(source, "shape", ())
        rank = len(shape) or 2
        axes = [static_int(call.args[i]) for i in opdef.traits.swapped_axes_args if i < len(call.args)]
        if not any(a is None or a % rank == dim for a in axes):
            continue
        if dim < len(shape) and static_int(shape[dim]) == 1:
            continue
        result = f" (result '{var.name_hint}')" if var is not None else ""
        raise UserError(f"{PASS}: kernel '{func.name}' requests pl.split({mode.name}) but contains a {call.op.name}"
                        f"{result} that swaps the split axis (dim {dim}). SplitVectorKernel halves the split axis "
                        f"while the transpose moves that data to the other dimension, so the split cannot be applied "
                        f"correctly. Fix it one of two ways: (1) drop the split \u2014 set attrs={{\"split\": "
                        f"pl.SplitMode.NONE}} (or remove the pl.split optimization); or (2) eliminate this transpose, "
                        f"e.g. replace a transpose-then-row-index with a direct column slice such as pre[:, h:h+1].",
                        call.span)


def _definitions(body: S.Stmt) -> dict[int, S.AssignStmt]:
    """id(variable) -> the plain statement defining it (no boundary, no side effect)."""
    found: dict[int, S.AssignStmt] = {}

    class Walk(IRVisitor):
        def visit_assign_stmt(self, s: S.AssignStmt) -> None:
            if not has_side_effect(s.value) and not (isinstance(s.value, E.Call) and type(s.value.op) is E.Op
                                                     and classify_call_affinity(s.value) is CoreAffinity.MIXED):
                found[id(s.var)] = s
            super().visit_assign_stmt(s)

    Walk().visit_stmt(body)
    return found


def _foreign_init_chain(stmts: list[S.Stmt], foreign: dict[int, object]) -> set[int]:
    """The other side's variables a loop carry's initial value is computed from on this side (through the
    copies and plain statements of this side): pulled onto this side, the carry keeps its init."""
    defs: dict[int, E.Expr] = {}
    inits: list[E.Expr] = []

    class Walk(IRVisitor):
        def visit_assign_stmt(self, s: S.AssignStmt) -> None:
            defs[id(s.var)] = s.value
            super().visit_assign_stmt(s)

        def visit_for_stmt(self, s: S.ForStmt) -> None:
            inits.extend(ia.initValue for ia in s.iter_args)
            super().visit_for_stmt(s)

        def visit_while_stmt(self, s: S.WhileStmt) -> None:
            inits.extend(ia.initValue for ia in s.iter_args)
            super().visit_while_stmt(s)

    walker = Walk()
    for s in stmts:
        walker.visit_stmt(s)
    needed: set[int] = set()
    todo = list(add_uses(set(), *inits))
    while todo:
        v = todo.pop()
        if v in needed:
            continue
        needed.add(v)
        if v in defs:
            todo.extend(add_uses(set(), defs[v]))
    return {v for v in needed if v in foreign}


def cleaned(stmts: list[S.Stmt]) -> list[S.Stmt]:
    """Loop repair and dead code, repeated until nothing changes."""
    for _ in range(CLEANUP_ROUNDS):
        stmts, folded = fold_identity_carries(stmts)
        stmts, removed = remove_dead_code(stmts)
        if not folded and not removed:
            return stmts
    return stmts


def expand_mixed(func: F.Function, backend: Any) -> Expanded:
    consumed = consume_regions(func)
    _check_function_split_hazard(func)
    where = f"{PASS}: InCore function '{func.name}'"
    finder = _Boundaries(where, _lane_ids(consumed.body))
    finder.visit_stmt(consumed.body)
    fresh = consumed.fresh
    after, before = find_fences(consumed.body, fresh)
    placement = dict(consumed.placement)
    placement.update({i: AIC_ONLY for i in finder.on_cube})
    plan = SplitPlan(placement, finder.found, after, before, backend, fresh)
    bodies: dict[Side, list[S.Stmt]] = {}
    defs = _definitions(consumed.body)
    for side in (Side.AIC, Side.AIV):
        for _ in range(CLEANUP_ROUNDS):
            builder = CoreBody(side, plan)
            stmts = builder.block(consumed.body)
            stmts = flatten_to_stmts(substitute_stmt(make_body(stmts, func.body.span), builder.substitution()))
            stmts = cleaned(stmts)
            pulled = [defs[i] for i in _foreign_init_chain(stmts, builder.foreign) if i in defs]
            if not pulled:
                break
            for d in pulled:  # a carry's init chain runs on both sides (docs/passes/expand_mixed_kernel.md)
                plan.placement[id(d)] = BOTH
        check_no_cross_core_use(func.name, side, stmts, builder.foreign)
        bodies[side] = place_tfrees(func.name, stmts)
    use = pipe_setup.pipe_use(func.name, bodies[Side.AIC], bodies[Side.AIV])
    if use.directions:
        slot_num = int(func.attrs.get("slot_num") or pipe_setup.DEFAULT_SLOT_NUM)
        for side in (Side.AIC, Side.AIV):
            setup = pipe_setup.setup_stmts(side, func.name, use, slot_num, fresh)
            bodies[side] = pipe_setup.with_setup(side, bodies[side], setup)
    aiv_attrs = dict(func.attrs)
    if (backend.requires_no_split_dual_aiv_dispatch and func.split is None and not func.attrs.get("split_aiv")):
        aiv_attrs["dual_aiv_dispatch"] = True  # docs/passes/split_vector_kernel.md: both AIV lanes run the unsplit kernel
    span = func.span
    aic = F.Function(f"{func.name}_aic", func.param_items(), [], make_body(bodies[Side.AIC], span), span,
                     FunctionType.AIC, attrs=func.attrs)
    aiv = F.Function(f"{func.name}_aiv", func.param_items(), func.return_types, make_body(bodies[Side.AIV], span),
                     span, FunctionType.AIV, attrs=aiv_attrs)
    # Each function gets its own variables: a Var belongs to one function (structural equality maps them).
    return Expanded(deep_clone(aic), deep_clone(aiv))
