"""Matmul results read back as matmul operands (docs/passes/auto_tile_matmul_l0.md, Mat scratch and cast fold).

A result whose every use is a matrix operand of another matmul goes back to L1: each L0C tile is assembled into
a Mat scratch (`c_mat`, `c_mat_t0`, ...), which the consumers then read. An FP32 result narrowed by a `rint`
cast to BF16 / FP16 before those consumers is assembled narrowed: the Acc -> Mat conversion rounds to nearest
even itself, so the cast is folded into the assemble. Which calls are matmuls and casts is the registry's
answer (the `l0_matmul` / `l0_result_cast` op interfaces).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pypto_core.analysis.walk import op_calls, vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.types import TileType
from pypto_core.ops.registry import op_registry
from pypto_plugins.pass_matmul.interfaces import L0_MATMUL, L0_RESULT_CAST, L0Cast
from pypto_plugins.pass_matmul.l0_rewrite.build import Emitter, index

# The Acc -> Mat fixpipe narrows an FP32 accumulator to these (tile.assemble's FP32 -> BF16 / FP16 rule).
NARROWED_SCRATCH_DTYPES = (DataType.BF16, DataType.FP16)


@dataclass
class ScratchPlacement:
    """Each finished L0C tile assembled into the Mat scratch at its offset, chaining the scratch value."""

    target: E.Var
    base: str
    step: int = 0

    def place(self, em: Emitter, tile: E.Expr, row: E.Expr | int, col: E.Expr | int, current: E.Expr) -> E.Var:
        name = f"{self.base}_t{self.step}"
        self.step += 1
        offsets = E.MakeTuple([index(row), index(col)])
        return em.bind(name, em.call("tile.assemble", [current, tile, offsets]))


@dataclass(frozen=True)
class ResultCast:
    """`var = <cast>(source, dtype, mode)` as the registry describes the op."""

    stmt: S.AssignStmt
    source: E.Expr
    dtype: DataType
    mode: int
    form: L0Cast

    @property
    def var(self) -> E.Var:
        return self.stmt.var

    @property
    def foldable(self) -> bool:
        """A narrowing of an FP32 tile with the rounding the Acc -> Mat conversion applies."""
        src = self.source.type
        return (isinstance(src, TileType) and src.dtype is DataType.FP32 and self.dtype in NARROWED_SCRATCH_DTYPES
                and self.mode == self.form.folded_mode)


def result_cast(stmt: S.Stmt) -> ResultCast | None:
    if not isinstance(stmt, S.AssignStmt) or not isinstance(stmt.value, E.Call) or type(stmt.value.op) is not E.Op:
        return None
    call = stmt.value
    form = op_registry().implementation(L0_RESULT_CAST.name, call.op.name)
    if form is None or len(call.args) <= form.source:
        return None
    dtype = call.kwargs.get(form.dtype_kwarg)
    if not isinstance(dtype, DataType):
        return None
    mode = call.kwargs.get(form.mode_kwarg)
    mode = form.default_mode if mode is None else int(mode)
    return ResultCast(stmt, call.args[form.source], dtype, mode, form)


def read_count(var: E.Var, node: Any) -> int:
    return sum(1 for v in vars_read(node) if v is var)


def read_only_as_matmul_operand(var: E.Var, stmts: list[S.Stmt]) -> bool:
    """Every read of `var` in `stmts` (nested bodies too) is a matrix operand slot of a matmul, and there is one."""
    reads = read_count(var, stmts)
    slots = 0
    for call in op_calls(stmts):
        form = op_registry().implementation(L0_MATMUL.name, call.op.name)
        if form is not None and len(call.args) == form.arity:
            slots += sum(1 for j in form.matrix_slots if call.args[j] is var)
    return reads > 0 and reads == slots


@dataclass(frozen=True)
class ScratchUse:
    """The scratch a chained result needs: its dtype and the cast folded into it (deleted), if any."""

    dtype: DataType
    cast: ResultCast | None


def scratch_use(result: E.Var, rest: list[S.Stmt]) -> ScratchUse | None:
    """How the result is read after its matmul in this block, when only as a matmul operand (directly, or
    through one folded cast); None otherwise."""
    if read_only_as_matmul_operand(result, rest):
        return ScratchUse(result.type.dtype, None)  # type: ignore[attr-defined]
    if read_count(result, rest) != 1:
        return None
    user = next((s for s in rest if read_count(result, s)), None)
    cast = result_cast(user) if user is not None else None
    if cast is None or cast.source is not result or not cast.foldable:
        return None
    if not read_only_as_matmul_operand(cast.var, rest):
        return None
    return ScratchUse(cast.dtype, cast)


def emit_cast_fold(em: Emitter, cast: ResultCast) -> E.Var:
    """`src_mat = tile.create([M, N], <cast dtype>, Mat)`, `src_mat_t0 = tile.assemble(src_mat, src, [0, 0])`."""
    src = cast.source
    assert isinstance(src, E.Var) and isinstance(src.type, TileType)
    dims = [int(d.value) for d in src.type.shape]  # type: ignore[attr-defined]
    scratch = em.create(f"{src.name_hint}_mat", dims, cast.dtype, MemorySpace.Mat)
    return ScratchPlacement(scratch, scratch.name_hint).place(em, src, 0, 0, scratch)
