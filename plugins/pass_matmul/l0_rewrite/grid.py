"""M/N grids: a matmul whose `[M, N]` result does not fit L0C, computed tile by tile and stored straight to GM
(docs/passes/auto_tile_matmul_l0.md, M/N tiling).

The grid is emitted at the position of the store that consumed the result; each tile's store chains the GM
tensor (`out -> out_t0 -> out_t1 -> ...`). With k < K every tile is a K loop (split-K grid, N-major); with
k == K the stationary operand's extract is hoisted into an outer pipelined loop and the other streams in an
inner one (full-K nested pipelines), the ragged tiles after them in straight-line code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import ForKind, MemorySpace
from pypto_plugins.pass_matmul.l0_rewrite.bias_windows import BiasSource
from pypto_plugins.pass_matmul.l0_rewrite.build import Emitter, index, offset_by, pipeline_loop
from pypto_plugins.pass_matmul.l0_rewrite.candidate import Choice, MatmulSite
from pypto_plugins.pass_matmul.l0_rewrite.k_loop import Window, k_loop
from pypto_plugins.pass_matmul.l0_rewrite.streamed_operands import Operand, extract_from
from pypto_plugins.pass_matmul.l0_tile_chooser import Stationarity

NO_STORE_OVERLAP = {"pipeline_overlap_stores": False}


@dataclass
class StorePlacement:
    """Each finished tile stored into the GM tensor at its offset, chaining the tensor value."""

    store_op: str
    offsets: tuple[E.Expr, E.Expr]
    target: E.Expr
    target_name: str
    kwargs: dict[str, Any]
    step: int = 0
    # The target's leading offsets when it has more dims than the tile: each tile is stored with the partition
    # `[1, .., 1, m, n]` (FlattenTileNdTo2D's form of a store into an N-D tensor).
    leading: tuple[E.Expr, ...] = ()

    def place(self, em: Emitter, tile: E.Expr, row: E.Expr | int, col: E.Expr | int, current: E.Expr) -> E.Var:
        offsets = E.MakeTuple([*self.leading, offset_by(self.offsets[0], row), offset_by(self.offsets[1], col)])
        operands = [tile, offsets, current]
        if self.leading:
            shape = list(tile.type.shape)  # type: ignore[attr-defined]
            operands.append(E.MakeTuple([E.ConstInt(1, DataType.INDEX)] * len(self.leading) + shape))
        name = f"{self.target_name}_t{self.step}"
        self.step += 1
        return em.bind(name, em.call(self.store_op, operands, **self.kwargs))


def split_k_grid(em: Emitter, site: MatmulSite, lhs: Operand, choice: Choice, place: Any,
                 bias: BiasSource | None = None, rhs: Operand | None = None) -> E.Expr:
    """Sub-tiles N-major (`for nj: for mj:`), each a K loop named `B_t<s>` (with its own bias window),
    stored or assembled as it finishes."""
    big_m, big_n, _ = site.dims()
    base = site.result.name_hint
    current = place.target
    s = 0
    for ni in range(0, big_n, choice.n):
        for mi in range(0, big_m, choice.m):
            window = Window(mi, ni, min(choice.m, big_m - mi), min(choice.n, big_n - ni))
            tile_bias = bias.window(em, f"{base}_t{s}_l0_bias", ni, window.n) if bias is not None else None
            tile = k_loop(em, site, lhs, tile_bias, window, choice.k, f"{base}_t{s}", f"{base}_t{s}", rhs=rhs)
            current = place.place(em, tile, mi, ni, current)
            s += 1
    return current


def full_k_grid(em: Emitter, site: MatmulSite, lhs: Operand, choice: Choice, place: Any,
                bias: BiasSource | None = None, rhs: Operand | None = None) -> E.Expr:
    """k == K: the stationary operand's extract in the outer loop, the other's in the inner one; then the
    bottom strip and the right strip of ragged tiles. A bias spanning all of N is moved to Bias once, before
    the loops; a narrower window is loaded next to the Right extract of its columns."""
    big_m, big_n, big_k = site.dims()
    m, n = choice.m, choice.n
    base = site.result.name_hint
    rhs = site.rhs if rhs is None else rhs
    rows_outer = choice.stationarity is Stationarity.AStationary or (
        choice.stationarity is Stationarity.OutputStationary and choice.os_holds_a)
    full_m, full_n = big_m // m * m, big_n // n * n
    current: E.Expr = place.target
    whole_bias = bias.whole(em, f"{base}_bias") if bias is not None and not bias.windowed(n) else None
    if full_m and full_n:
        outer_v, inner_v = em.loop_var(f"{base}_o"), em.loop_var(f"{base}_i")
        outer_c = E.IterArg(em.fresh(f"{base}_oc"), current.type, current, em.span)
        inner_c = E.IterArg(em.fresh(f"{base}_ic"), current.type, outer_c, em.span)
        outer, inner = Emitter(em.fresh, em.span), Emitter(em.fresh, em.span)
        if rows_outer:
            a = extract_from(outer, f"{base}_a", lhs, outer_v, index(0), [m, big_k], MemorySpace.Left)
            b = extract_from(inner, f"{base}_b", rhs, index(0), inner_v, [big_k, n], MemorySpace.Right)
            row, col = outer_v, inner_v
        else:
            b = extract_from(outer, f"{base}_b", rhs, index(0), outer_v, [big_k, n], MemorySpace.Right)
            a = extract_from(inner, f"{base}_a", lhs, inner_v, index(0), [m, big_k], MemorySpace.Left)
            row, col = inner_v, outer_v
        operands = [a, b]
        if bias is not None:
            columns_loop = inner if rows_outer else outer
            operands.append(whole_bias if whole_bias is not None else
                            bias.window(columns_loop, f"{base}_bias", col, n))
        c = inner.bind(f"{base}_c", inner.call(site.form.first_op, operands))
        stored = place.place(inner, c, row, col, inner_c)
        inner.stmts.append(S.YieldStmt([stored], em.span))
        inner_rv = E.Var(em.fresh(f"{base}_irv"), current.type, em.span)
        inner_attrs = dict(NO_STORE_OVERLAP)
        if choice.double_buffer_c:
            inner_attrs["pipeline_double_buffer_c"] = True
        inner_extent, inner_step = (full_n, n) if rows_outer else (full_m, m)
        outer_extent, outer_step = (full_m, m) if rows_outer else (full_n, n)
        outer.stmts.append(pipeline_loop(inner_v, 0, inner_extent, inner_step, inner_c, inner.stmts, inner_rv,
                                         em.span, inner_attrs))
        outer.stmts.append(S.YieldStmt([inner_rv], em.span))
        outer_rv = E.Var(em.fresh(f"{base}_orv"), current.type, em.span)
        sequential = choice.stationarity is not Stationarity.OutputStationary
        em.stmts.append(pipeline_loop(outer_v, 0, outer_extent, outer_step, outer_c, outer.stmts, outer_rv, em.span,
                                      None if sequential else dict(NO_STORE_OVERLAP),
                                      kind=ForKind.Sequential if sequential else ForKind.Pipeline))
        current = outer_rv
    ragged = [(full_m, ni) for ni in range(0, big_n, n)] if full_m < big_m else []
    ragged += [(mi, full_n) for mi in range(0, full_m, m)] if full_n < big_n else []
    for s, (mi, ni) in enumerate(ragged, start=1):
        tm, tn = min(m, big_m - mi), min(n, big_n - ni)
        a = extract_from(em, f"{base}_ta{s}", lhs, index(mi), index(0), [tm, big_k], MemorySpace.Left)
        b = extract_from(em, f"{base}_tb{s}", rhs, index(0), index(ni), [big_k, tn], MemorySpace.Right)
        operands = [a, b]
        if bias is not None:
            operands.append(whole_bias if whole_bias is not None else bias.window(em, f"{base}_tbias{s}", ni, tn))
        c = em.bind(f"{base}_tc{s}", em.call(site.form.first_op, operands))
        place.step = s
        current = place.place(em, c, mi, ni, current)
    return current
