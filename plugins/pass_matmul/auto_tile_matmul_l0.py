"""AutoTileMatmulL0 (docs/passes/auto_tile_matmul_l0.md): each static 2-D matmul whose operands are still in Mat
(or a Vec left operand) and whose L0 operands or accumulator would not fit L0A / L0B / L0C becomes L0-sized work:
a pipelined K loop of Left / Right extracts accumulating in Acc and, when the `[M, N]` accumulator itself does
not fit, an M/N grid of such tiles stored straight to GM.

Work happens per statement block: a rewritten matmul's later uses in the same block read its new result. Which
calls are matmuls and stores is the registry's answer (the `l0_matmul` / `l0_result_store` op interfaces);
capacities, alignments and cost figures are the backend's data.
"""

from __future__ import annotations

from typing import Any

from pypto_core.analysis.memory import static_dims, tile_bytes
from pypto_core.analysis.walk import statements
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType, MemorySpace
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import flatten_to_stmts, make_body, substitute_stmt
from pypto_core.ops.registry import op_registry
from pypto_core.passes.memory_planner import MemoryPlanner, active_memory_planner
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_matmul.bridge_loads import place_operand_loads_in_mat
from pypto_plugins.pass_matmul.chooser_config import element_bytes
from pypto_plugins.pass_matmul.interfaces import L0_RESULT_STORE
from pypto_plugins.pass_matmul.l0_rewrite.bias_windows import BiasSource, bias_window_load
from pypto_plugins.pass_matmul.l0_rewrite.build import Emitter
from pypto_plugins.pass_matmul.l0_rewrite.candidate import (
    Choice,
    MatmulSite,
    check_explicit_l0_operands,
    choose,
    double_buffer_c_allowed,
    matmul_site,
    operands_in_place,
)
from pypto_plugins.pass_matmul.l0_rewrite.carried_accumulator import carried_k_step
from pypto_plugins.pass_matmul.l0_rewrite.double_buffer_c import plan_double_buffer_c
from pypto_plugins.pass_matmul.l0_rewrite.grid import StorePlacement, full_k_grid, split_k_grid
from pypto_plugins.pass_matmul.l0_rewrite.k_loop import Window, k_loop
from pypto_plugins.pass_matmul.l0_rewrite.mat_scratch import (
    NARROWED_SCRATCH_DTYPES,
    ScratchPlacement,
    ScratchUse,
    emit_cast_fold,
    read_only_as_matmul_operand,
    result_cast,
    scratch_use,
)
from pypto_plugins.pass_matmul.l0_rewrite.split_k_prepass import SplitKPrepass
from pypto_plugins.pass_matmul.l0_rewrite.streamed_operands import (
    MatBudget,
    Operand,
    StreamedOperand,
    drop_unread,
    panel_load,
)
from pypto_plugins.pass_matmul.l0_tile_chooser import Stationarity
from pypto_plugins.pass_matmul.perf_hints import perf_hint

_KERNELS = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)
_PROPERTIES = ("SSAForm", "NormalizedStmtStructure", "SplitIncoreOrch", "IncoreTileOps", "TileOps2D")


class _FunctionTiler:
    def __init__(self, func: F.Function, ctx: Any) -> None:
        self.func, self.ctx, self.backend = func, ctx, ctx.backend
        self.fresh = FreshNames(func)
        self.changed = False
        self.folded: set[int] = set()  # id() of cast statements a Mat scratch absorbed
        self.definitions = {id(s.var): s for s in statements(func.body) if isinstance(s, S.AssignStmt)}
        self.loops: list[S.ForStmt] = []  # the loops around the block being tiled, innermost last
        self.choices: dict[int, Choice | None] = {}  # id(matmul statement) -> the chooser's tile (hints once)
        self.budget = MatBudget(func, self.backend)
        self.streamed_loads: list[S.AssignStmt] = []  # panel loads whose slabs are loaded from GM instead

    # -- blocks -------------------------------------------------------------------------------------------------
    def block(self, body: S.Stmt) -> S.Stmt:
        stmts = flatten_to_stmts(body)
        out: list[S.Stmt] = []
        subst: dict[E.Var, E.Expr] = {}
        deferred: dict[int, tuple[Any, ...]] = {}  # id(store stmt) -> the grid it becomes
        for i, original in enumerate(stmts):
            if id(original) in self.folded:
                continue  # a cast folded into the Mat scratch its source was assembled into
            stmt = substitute_stmt(original, subst) if subst else original
            merged = self.carried_k_step(stmt, subst)
            if merged is not None:
                out.extend(merged)
                continue
            stmt = self.nested(stmt)
            grid = deferred.pop(id(original), None)
            if grid is not None:
                out.extend(self.emit_grid(stmt, *grid, subst))
                continue
            folded = self.fold_cast(stmt, stmts[i + 1:], subst)
            if folded is not None:
                out.extend(folded)
                continue
            site = matmul_site(stmt)
            if site is None:
                out.append(stmt)
                continue
            out.extend(self.matmul(site, stmts[i + 1:], subst, deferred))
        return make_body(out, body.span)

    def nested(self, stmt: S.Stmt) -> S.Stmt:
        if isinstance(stmt, S.ForStmt):
            self.loops.append(stmt)
            try:
                new = self.block(stmt.body)
            finally:
                self.loops.pop()
            return stmt if new is stmt.body else stmt.with_fields(body=new)  # type: ignore[return-value]
        if isinstance(stmt, S.WhileStmt):
            new = self.block(stmt.body)
            return stmt if new is stmt.body else stmt.with_fields(body=new)  # type: ignore[return-value]
        if isinstance(stmt, S.IfStmt):
            then_body = self.block(stmt.then_body)
            else_body = self.block(stmt.else_body) if stmt.else_body is not None else None
            return stmt.with_fields(then_body=then_body, else_body=else_body)  # type: ignore[return-value]
        if isinstance(stmt, S.ScopeStmt):
            return stmt.with_fields(body=self.block(stmt.body))  # type: ignore[return-value]
        return stmt

    # -- one matmul ---------------------------------------------------------------------------------------------
    def matmul(self, site: MatmulSite, rest: list[S.Stmt], subst: dict[E.Var, E.Expr],
               deferred: dict[int, tuple[Any, ...]]) -> list[S.Stmt]:
        if check_explicit_l0_operands(site, self.backend) or not operands_in_place(site, self.backend):
            return [site.stmt]
        choice = self.choose(site)
        if choice is None:
            return [site.stmt]
        big_m, big_n, big_k = site.dims()
        if (choice.m, choice.n, choice.k) == (big_m, big_n, big_k):
            return [site.stmt]
        if (choice.m, choice.n) == (big_m, big_n):
            return self.k_only(site, choice, subst)
        fresh_mat_lhs = site.acc is None and site.lhs.type.memory_space is MemorySpace.Mat  # type: ignore[attr-defined]
        bias = self.bias_source(site)
        if bias is not None and not bias.can_window(choice.n):
            perf_hint("PH-AT-006", f"{site.op}: the [{big_m}, {big_n}] result needs N windows of {choice.n} "
                      "columns, but its Mat bias is not a [1, N] window load that could be loaded again per "
                      "window — left untouched.", site.span)
            return [site.stmt]
        scratch = scratch_use(site.result, rest) if fresh_mat_lhs else None
        if scratch is not None:
            return self.mat_scratch(site, choice, scratch, subst, bias)
        reloads = bias is not None and bias.windowed(choice.n)
        store = self.direct_store(site, rest, reloads)
        if store is None or not fresh_mat_lhs:
            perf_hint("PH-AT-006", f"{site.op}: the [{big_m}, {big_n}] result needs an M/N grid of L0 tiles "
                      f"({choice.m} x {choice.n}), but it is neither read only as a matmul operand nor a fresh "
                      "matmul of Mat operands stored once to GM"
                      + (" right after it (its bias windows are loaded again there)" if reloads else "")
                      + " — left untouched.", site.span)
            return [site.stmt]
        deferred[id(store)] = (site, choice, bias, self.sources(site, choice))
        self.changed = True
        return []  # the grid is emitted where the store was

    def choose(self, site: MatmulSite) -> Choice | None:
        key = id(site.stmt)
        if key not in self.choices:
            self.choices[key] = choose(site, self.backend, self.ctx)
        return self.choices[key]

    def carried_k_step(self, stmt: S.Stmt, subst: dict[E.Var, E.Expr]) -> list[S.Stmt] | None:
        """A user K step (an if of a first-block matmul and a matmul_acc onto its loop's carry) whose matmul the
        chooser K-tiles becomes one K loop on the carry (carried_accumulator.py); None when it is no such step."""
        step = carried_k_step(stmt, self.loops[-1] if self.loops else None)
        if step is None:
            return None
        later = step.later
        if check_explicit_l0_operands(later, self.backend) or not operands_in_place(later, self.backend):
            return None
        choice = self.choose(later)
        big_m, big_n, big_k = later.dims()
        if choice is None or (choice.m, choice.n) != (big_m, big_n) or choice.k == big_k:
            return None  # fits as written, or an M/N grid: each branch is tiled on its own
        em = Emitter(self.fresh, later.span)
        first = step.first
        lhs = self.lhs_in_mat(em, first, first.result.name_hint)
        subst[step.phi] = k_loop(em, first, lhs, None, Window(0, 0, big_m, big_n), choice.k,
                                 first.result.name_hint, step.phi.name_hint, carried=step.carry,
                                 first_when=step.first_when)
        self.changed = True
        return em.stmts

    def sources(self, site: MatmulSite, choice: Choice, extra: int = 0) -> tuple[Operand, Operand]:
        """The lhs and rhs the L0 slabs come from: their Mat panels, or, for panels Mat cannot keep next to the
        tiles live across the matmul (and `extra` bytes), their GM windows (streamed_operands.py)."""
        lhs_and_rhs = [site.lhs] if site.rhs is site.lhs else [site.lhs, site.rhs]
        operands = [(v, panel_load(v, self.definitions.get(id(v)))) for v in lhs_and_rhs]
        loads = {id(v): load for v, load in operands}
        slabs = {id(site.rhs): choice.k * choice.n * _element_bytes(site.rhs),
                 id(site.lhs): choice.m * choice.k * _element_bytes(site.lhs)}
        streamed = self.budget.streamed(site.result, operands, slabs, extra)
        found: list[Operand] = []
        for var in (site.lhs, site.rhs):
            load = loads[id(var)] if id(var) in streamed else None
            if load is None:
                found.append(var)
                continue
            if not any(known is load for known in self.streamed_loads):
                self.streamed_loads.append(load)
            found.append(StreamedOperand(var, load))
        return found[0], found[1]

    def bias_source(self, site: MatmulSite) -> BiasSource | None:
        if site.bias is None:
            return None
        return BiasSource(site.bias, bias_window_load(self.definitions.get(id(site.bias))), site.dims()[1])

    def k_only(self, site: MatmulSite, choice: Choice, subst: dict[E.Var, E.Expr]) -> list[S.Stmt]:
        em = Emitter(self.fresh, site.span)
        base = site.result.name_hint
        lhs, rhs = self.sources(site, choice)
        if lhs is site.lhs:
            lhs = self.lhs_in_mat(em, site, base)
        bias = self.bias_in_bias(em, site, base)
        big_m, big_n, _ = site.dims()
        result = k_loop(em, site, lhs, bias, Window(0, 0, big_m, big_n), choice.k, base, base, rhs=rhs)
        subst[site.result] = result
        self.changed = True
        return em.stmts

    def lhs_in_mat(self, em: Emitter, site: MatmulSite, base: str) -> E.Expr:
        if site.lhs.type.memory_space is MemorySpace.Vec:  # type: ignore[attr-defined]
            return em.bind(f"{base}_l0_lmat", em.call("tile.move", [site.lhs], target_memory=MemorySpace.Mat))
        return site.lhs

    def bias_in_bias(self, em: Emitter, site: MatmulSite, base: str) -> E.Expr | None:
        if site.bias is None or site.bias.type.memory_space is MemorySpace.Bias:  # type: ignore[attr-defined]
            return site.bias
        return em.bind(f"{base}_l0_bias", em.call("tile.move", [site.bias], target_memory=MemorySpace.Bias))

    # -- M/N grids ---------------------------------------------------------------------------------------------
    def mat_scratch(self, site: MatmulSite, choice: Choice, use: ScratchUse, subst: dict[E.Var, E.Expr],
                    bias: BiasSource | None) -> list[S.Stmt]:
        """The grid assembled into a Mat scratch at the matmul's position; its readers read the scratch."""
        big_m, big_n, _ = site.dims()
        if self.backend.fact("low_precision_mat_scratch", False) and use.dtype not in NARROWED_SCRATCH_DTYPES:
            perf_hint("PH-AT-009", f"{site.op}: the [{big_m}, {big_n}] result is read as a matmul operand, but the "
                      f"backend assembles a Mat scratch only in BF16 / FP16, not {use.dtype.name.lower()} (narrow "
                      "it with tile.cast(..., mode=\"rint\") first) — left untouched.", site.span)
            return [site.stmt]
        need = big_m * big_n * element_bytes(use.dtype)
        if need > self.backend.capacity(MemorySpace.Mat):
            perf_hint("PH-AT-006", f"{site.op}: the [{big_m}, {big_n}] Mat scratch of the result needs {need} "
                      f"bytes, more than Mat holds ({self.backend.capacity(MemorySpace.Mat)}) — left untouched.",
                      site.span)
            return [site.stmt]
        if choice.stationarity is not Stationarity.OutputStationary and \
                active_memory_planner(self.ctx) is MemoryPlanner.PYPTO:
            rechosen = choose(site, self.backend, self.ctx, force_output_stationary=True)
            if rechosen is None or (bias is not None and not bias.can_window(rechosen.n)):
                return [site.stmt]
            choice = rechosen
        em = Emitter(self.fresh, site.span)
        scratch = em.create(f"{site.result.name_hint}_mat", [big_m, big_n], use.dtype, MemorySpace.Mat)
        place = ScratchPlacement(scratch, scratch.name_hint)
        grid = split_k_grid if choice.k < site.dims()[2] else full_k_grid
        lhs, rhs = self.sources(site, choice, extra=need)
        last = grid(em, site, lhs, choice, place, bias, rhs)
        subst[use.cast.var if use.cast is not None else site.result] = last
        if use.cast is not None:
            self.folded.add(id(use.cast.stmt))
        self.changed = True
        return em.stmts

    def fold_cast(self, stmt: S.Stmt, rest: list[S.Stmt], subst: dict[E.Var, E.Expr]) -> list[S.Stmt] | None:
        """A narrowing cast of an L0C-sized Acc tile read only as matmul operands becomes an assemble into a Mat
        scratch of the narrow dtype; None when the statement is no such cast."""
        cast = result_cast(stmt)
        if cast is None or cast.dtype not in NARROWED_SCRATCH_DTYPES:
            return None
        src = cast.source.type
        if not isinstance(cast.source, E.Var) or not isinstance(src, TileType) or \
                src.memory_space is not MemorySpace.Acc or static_dims(src) is None:
            return None
        size = tile_bytes(src, self.backend)
        if size is None or size > self.backend.capacity(MemorySpace.Acc):
            return None
        if not read_only_as_matmul_operand(cast.var, rest):
            return None
        if not cast.foldable:
            perf_hint("PH-AT-010", f"{stmt.value.op.name}: the {src.dtype.name.lower()} -> "  # type: ignore[attr-defined]
                      f"{cast.dtype.name.lower()} cast of an Acc tile read only as a matmul operand folds into "
                      "its Acc -> Mat assemble only from FP32 with mode=\"rint\" — the cast is kept.", stmt.span)
            return None
        em = Emitter(self.fresh, stmt.span)
        subst[cast.var] = emit_cast_fold(em, cast)
        self.changed = True
        return em.stmts

    def direct_store(self, site: MatmulSite, rest: list[S.Stmt], reloads: bool) -> S.AssignStmt | None:
        """The one statement of this block using the result, when it is a 2-D store of the whole tile (with
        `reloads`, also the first statement after the matmul that is not a window load: the bias windows are
        loaded again at its position)."""
        users = [s for s in rest if site.result in _vars_read(s)]
        if len(users) != 1 or not isinstance(users[0], S.AssignStmt) or not isinstance(users[0].value, E.Call):
            return None
        call = users[0].value
        form = op_registry().implementation(L0_RESULT_STORE.name, call.op.name) if type(call.op) is E.Op else None
        if form is None or call.args[form.tile] is not site.result:
            return None
        if any(a is site.result for j, a in enumerate(call.args) if j != form.tile):
            return None
        offsets = call.args[form.offsets]
        if not isinstance(offsets, E.MakeTuple) or len(offsets.elements) < 2:
            return None
        if len(offsets.elements) > 2 and not _unit_leading_partition(call, form, len(offsets.elements)):
            return None  # a 2-D tile into a higher-rank target: only through a [1, .., 1, M, N] partition
        if reloads:
            between = rest[:next(j for j, s in enumerate(rest) if s is users[0])]
            if any(bias_window_load(s) is None for s in between):
                return None
        return users[0]

    def emit_grid(self, store: S.AssignStmt, site: MatmulSite, choice: Any, bias: BiasSource | None,
                  sources: tuple[Operand, Operand], subst: dict[E.Var, E.Expr]) -> list[S.Stmt]:
        call = store.value
        assert isinstance(call, E.Call)
        form = op_registry().implementation(L0_RESULT_STORE.name, call.op.name)
        target = call.args[form.target]
        offsets = call.args[form.offsets]
        assert isinstance(offsets, E.MakeTuple)
        *leading, row, col = offsets.elements
        place = StorePlacement(call.op.name, (row, col), target, getattr(target, "name_hint", "out"),
                               dict(call.kwargs), leading=tuple(leading))
        em = Emitter(self.fresh, site.span)
        big_k = site.dims()[2]
        if choice.k < big_k:
            last = split_k_grid(em, site, sources[0], choice, place, bias, sources[1])
        else:
            last = full_k_grid(em, site, sources[0], choice, place, bias, sources[1])
        subst[store.var] = last
        return em.stmts


def _unit_leading_partition(call: E.Call, form: Any, rank: int) -> bool:
    """The store's partition operand is `[1, .., 1, M, N]` of the target's rank (each grid tile then stores
    `[1, .., 1, m, n]` at its row and column)."""
    if form.partition is None or len(call.args) <= form.partition:
        return False
    part = call.args[form.partition]
    if not isinstance(part, E.MakeTuple) or len(part.elements) != rank:
        return False
    return all(isinstance(d, E.ConstInt) and d.value == 1 for d in part.elements[:-2])


def _element_bytes(var: E.Var) -> int:
    return element_bytes(var.type.dtype)  # type: ignore[attr-defined]


def _vars_read(stmt: S.Stmt) -> set[E.Var]:
    from pypto_core.analysis.walk import vars_read

    return set(vars_read(stmt))


def _tile_function(func: F.Function, ctx: Any) -> F.Function:
    func = place_operand_loads_in_mat(func)
    prepass = SplitKPrepass(FreshNames(func), ctx.backend, ctx)
    body = prepass.block(func.body)
    if prepass.changed:
        func = func.with_fields(body=body)  # type: ignore[assignment]
    if double_buffer_c_allowed(ctx):  # the user's own pipelines, before the pass adds any
        planned = plan_double_buffer_c(func.body, ctx.backend)
        if planned is not None:
            func = func.with_fields(body=planned)  # type: ignore[assignment]
    tiler = _FunctionTiler(func, ctx)
    body = drop_unread(tiler.block(func.body), tiler.streamed_loads)
    return func.with_fields(body=body) if tiler.changed else func  # type: ignore[return-value]


class AutoTileMatmulL0(Pass):
    """Rewrite matmuls too large for L0 into pipelined K loops and M/N grids of L0-sized tiles."""

    name = "AutoTileMatmulL0"
    factory_name = "auto_tile_matmul_l0"
    required = _PROPERTIES
    produced = _PROPERTIES
    reorders_accumulation = True  # K blocks are summed in another order (check-run's tolerance)
    description = ("Rewrite each static 2-D tile.matmul / matmul_acc / matmul_bias of Mat operands whose L0 tiles "
                   "do not fit into a pipelined K loop of Left / Right extracts and, when the accumulator does not "
                   "fit L0C, an M/N grid of L0 tiles (the L0 tile chooser picks the tile).")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        funcs = [_tile_function(f, ctx) if f.func_type in _KERNELS else f for f in program.functions.values()]
        if all(a is b for a, b in zip(funcs, program.functions.values())):
            return program
        return program.with_functions(funcs)


__all__ = ["AutoTileMatmulL0"]
