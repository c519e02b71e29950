"""Which matmul statements AutoTileMatmulL0 acts on, and the L0 tile the chooser gives them
(docs/passes/auto_tile_matmul_l0.md, scope and candidate filter).

A statement `c = <matmul>(...)` is a candidate when the registry says its op is a matmul the pass tiles (the
`l0_matmul` op interface) with that arity and every operand a tile variable. Then, in the page's order: an
operand already in Left / Right larger than L0A / L0B is a located ValueError; the operands must be static 2-D
in Mat (lhs also Vec); sub-byte dtypes, a K off the cube fractal, and a configuration the chooser rejects are
performance hints, the matmul left as written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.memory import static_dims, tile_bytes
from pypto_core.errors import InternalError, UserError
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.names import split_generated
from pypto_core.ir.types import TileType
from pypto_core.ops.registry import op_registry
from pypto_core.passes.memory_planner import MemoryPlanner, active_memory_planner
from pypto_plugins.pass_matmul.chooser_config import backend_config, element_bytes, fractal_alignment
from pypto_plugins.pass_matmul.interfaces import L0_MATMUL, L0Matmul
from pypto_plugins.pass_matmul.l0_rewrite.boxes import box_alignments, unboxed_dims
from pypto_plugins.pass_matmul.l0_tile_chooser import choose_l0_tile
from pypto_plugins.pass_matmul.perf_hints import perf_hint

PASS = "AutoTileMatmulL0"
_L0_SPACE_NAMES = {MemorySpace.Left: "Left (L0A)", MemorySpace.Right: "Right (L0B)"}


@dataclass(frozen=True)
class MatmulSite:
    """One candidate matmul statement and its operands."""

    stmt: S.AssignStmt
    call: E.Call
    form: L0Matmul
    lhs: E.Var
    rhs: E.Var
    acc: E.Var | None
    bias: E.Var | None

    @property
    def result(self) -> E.Var:
        return self.stmt.var

    @property
    def op(self) -> str:
        return self.call.op.name

    @property
    def span(self) -> Any:
        return self.stmt.span

    def dims(self) -> tuple[int, int, int]:
        m, k = static_dims(self.lhs.type) or (0, 0)
        k2, n = static_dims(self.rhs.type) or (0, 0)
        if k != k2:
            raise InternalError(f"{PASS}: {self.op} at {self.span}: lhs K={k} and rhs K={k2} differ")
        return m, n, k

    @property
    def acc_dtype(self) -> DataType:
        return self.result.type.dtype  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Choice:
    m: int
    n: int
    k: int
    stationarity: Any
    os_holds_a: bool
    double_buffer_c: bool


def matmul_site(stmt: S.Stmt) -> MatmulSite | None:
    """The candidate this statement is, or None (not a matmul the pass tiles)."""
    if not isinstance(stmt, S.AssignStmt) or not isinstance(stmt.value, E.Call) or type(stmt.value.op) is not E.Op:
        return None
    call = stmt.value
    form = op_registry().implementation(L0_MATMUL.name, call.op.name)
    if form is None or len(call.args) != form.arity:
        return None
    if not all(isinstance(a, E.Var) and isinstance(a.type, TileType) for a in call.args):
        return None
    acc = call.args[form.acc] if form.acc is not None else None
    if acc is not None and len(acc.type.shape) != 2:  # type: ignore[attr-defined]
        return None
    bias = call.args[form.bias] if form.bias is not None else None
    return MatmulSite(stmt, call, form, call.args[form.lhs], call.args[form.rhs], acc, bias)  # type: ignore[arg-type]


def _base_name(var: E.Var) -> str:
    return split_generated(var.name_hint)[0] or var.name_hint


def check_explicit_l0_operands(site: MatmulSite, backend: Any) -> bool:
    """Raise for an operand already in Left / Right that does not fit its L0 buffer; True when an operand is
    already in L0 (a legal explicit L0 matmul, left as written)."""
    explicit = False
    for role, var, space in (("left", site.lhs, MemorySpace.Left), ("right", site.rhs, MemorySpace.Right)):
        t = var.type
        if not isinstance(t, TileType) or t.memory_space is not space:
            continue
        explicit = True
        need = tile_bytes(t, backend)
        limit = backend.capacity(space)
        if need is None or not limit or need <= limit:
            continue
        dims = static_dims(t)
        kind = space.name
        raise UserError(
            f"{site.op} {role} operand '{_base_name(var)}' is already resident in {_L0_SPACE_NAMES[space]} with "
            f"physical shape {dims} and dtype {t.dtype.name.lower()}, requiring {need} bytes, but the active "
            f"backend provides {limit} bytes. {PASS} does not retile operands already placed in Left or Right. "
            f"Keep this operand in Mat and pass it directly to {site.op} so {PASS} can choose legal L0 tiles, "
            f"or manually extract a smaller {kind} tile.", site.span)
    return explicit


def _static_2d_in(var: E.Var, spaces: tuple[MemorySpace, ...]) -> bool:
    t = var.type
    return isinstance(t, TileType) and t.memory_space in spaces and static_dims(t) is not None and len(t.shape) == 2


def operands_in_place(site: MatmulSite, backend: Any) -> bool:
    """lhs static 2-D in Mat or Vec, rhs in Mat; a bias [1, N] in Mat or Bias (a Mat bias needs a Mat -> Bias
    move of its dtype, a Vec lhs is not supported with a bias: PH-AT-011)."""
    if not (_static_2d_in(site.lhs, (MemorySpace.Mat, MemorySpace.Vec)) and _static_2d_in(site.rhs, (MemorySpace.Mat,))):
        return False
    if site.bias is None:
        return True
    if not _static_2d_in(site.bias, (MemorySpace.Mat, MemorySpace.Bias)):
        return False
    if site.lhs.type.memory_space is MemorySpace.Vec:  # type: ignore[attr-defined]
        perf_hint("PH-AT-011", f"{site.op}: a Vec left operand with a bias is not supported — left untouched.",
                  site.span)
        return False
    unboxed = unboxed_dims(site.lhs.type, site.rhs.type, *site.dims(), backend)  # type: ignore[arg-type]
    if unboxed:
        perf_hint("PH-AT-011", f"{site.op}: {', '.join(unboxed)} not a multiple of the operands' boxed-layout "
                  "alignment — left untouched.", site.span)
        return False
    bias_type = site.bias.type
    if bias_type.memory_space is MemorySpace.Mat:  # type: ignore[attr-defined]
        moves = tuple(backend.fact("mat_to_bias_moves", ()) or ())
        if (bias_type.dtype, site.acc_dtype) not in moves:  # type: ignore[attr-defined]
            perf_hint("PH-AT-011", f"{site.op}: the backend has no Mat -> Bias move from "
                      f"{bias_type.dtype.name.lower()} for a {site.acc_dtype.name.lower()} accumulator — left "  # type: ignore[attr-defined]
                      "untouched.", site.span)
            return False
    return True


def _sub_byte(dtype: DataType) -> bool:
    return dtype.get_bit() < 8


def double_buffer_c_allowed(ctx: Any) -> bool:
    """dbC regimes: the PTOAS and DSA_RP planners, or PyPTO's with its opt-in (docs/passes/auto_tile_matmul_l0.md)."""
    planner = active_memory_planner(ctx)
    if planner is not MemoryPlanner.PYPTO:
        return True
    return bool(getattr(ctx, "enable_pypto_l0c_double_buffer", False))


def choose(site: MatmulSite, backend: Any, ctx: Any, force_output_stationary: bool = False) -> Choice | None:
    """The chooser's tile for this matmul, or None (a hint says why it is left as written)."""
    m, n, k = site.dims()
    dtypes = [site.lhs.type.dtype, site.rhs.type.dtype, site.acc_dtype]  # type: ignore[attr-defined]
    if any(_sub_byte(d) for d in dtypes):
        perf_hint("PH-AT-003", f"{site.op}: sub-byte operand or result dtype — left untouched.", site.span)
        return None
    fractal = fractal_alignment(backend)
    if k % fractal:
        perf_hint("PH-AT-007", f"{site.op}: K={k} is not a multiple of the cube fractal {fractal} — non-{fractal}-"
                  "aligned K is unsupported; left untouched.", site.span)
        return None
    cfg = backend_config(backend, m, n, k, dtypes[0], dtypes[1], dtypes[2],
                         allow_stationary=not force_output_stationary,
                         allow_double_buffer_c=double_buffer_c_allowed(ctx), c_read=site.acc is not None)
    cfg.box_align_m, cfg.box_align_n = box_alignments(site.lhs.type, site.rhs.type, backend)  # type: ignore[arg-type]
    if site.bias is not None:
        bias_n = backend.capacity(MemorySpace.Bias) // element_bytes(site.acc_dtype)
        if site.bias.type.memory_space is MemorySpace.Bias:  # type: ignore[attr-defined]
            cfg.min_n = n  # a Bias-resident bias is not windowed: one tile spans all of N
        elif bias_n:
            cfg.max_n = bias_n
            cfg.max_n_pipelined = bias_n // 2
            cfg.max_n_nested_pipelined = bias_n // 4
    try:
        r = choose_l0_tile(cfg)
    except ValueError as exc:
        perf_hint("PH-AT-005", f"{site.op}: ChooseL0Tile rejected configuration — left untouched. {exc}", site.span)
        return None
    return Choice(r.m, r.n, r.k, r.stationarity, r.os_holds_a, r.double_buffer_c)
