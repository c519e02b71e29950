"""Small IR builders the rewrites share: op calls through the registry, bound statements, pipelined loops."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import ForKind, MemorySpace
from pypto_core.ir.fresh_names import FreshNames
from pypto_core.ir.types import ScalarType
from pypto_core.ops.registry import create_op_call

PIPELINE_STAGES = 2  # stage=2: the next block's extracts overlap this block's matmul


def index(value: int | E.Expr) -> E.Expr:
    return value if isinstance(value, E.Expr) else E.ConstInt(int(value), DataType.INDEX)


def plus(base: E.Expr, offset: int) -> E.Expr:
    """`base + offset`, folded when both are constants."""
    if offset == 0:
        return base
    if isinstance(base, E.ConstInt):
        return E.ConstInt(base.value + offset, base.type.dtype)  # type: ignore[attr-defined]
    from pypto_core.ir.scalar_ops import add

    return add(base, index(offset))


def offset_by(base: E.Expr, at: E.Expr | int) -> E.Expr:
    """`base + at` for a constant or a loop variable `at`, folded where both are constants."""
    if isinstance(at, int):
        return plus(base, at)
    if isinstance(base, E.ConstInt) and base.value == 0:
        return at
    from pypto_core.ir.scalar_ops import add

    return add(base, at)


class Emitter:
    """Statements of one rewrite, in order, with names no variable of the function has yet."""

    def __init__(self, fresh: FreshNames, span: Any) -> None:
        self.fresh, self.span = fresh, span
        self.stmts: list[S.Stmt] = []

    def call(self, op: str, args: Sequence[E.Expr], **kwargs: Any) -> E.Call:
        return create_op_call(op, list(args), kwargs=kwargs, span=self.span)

    def bind(self, name: str, value: E.Expr, exact: bool = False) -> E.Var:
        var = E.Var(name if exact else self.fresh(name), value.type, self.span)
        self.stmts.append(S.AssignStmt(var, value, self.span))
        return var

    def create(self, name: str, shape: Sequence[int], dtype: DataType, space: MemorySpace) -> E.Var:
        return self.bind(name, self.call("tile.create", [_shape(shape)], dtype=dtype, target_memory=space))

    def extract(self, name: str, source: E.Expr, row: E.Expr, col: E.Expr, shape: Sequence[int],
                space: MemorySpace) -> E.Var:
        # A Left slab is row-major (tile.extract's type rule, as PyPTO prints it: docs/passes/auto_tile_matmul_l0.md).
        return self.bind(name, self.call("tile.extract", [source, row, col, _shape(shape)], target_memory=space))

    def loop_var(self, name: str) -> E.Var:
        return E.Var(self.fresh(name), ScalarType(DataType.INDEX), self.span)


def _shape(shape: Sequence[int]) -> E.MakeTuple:
    return E.MakeTuple([index(d) for d in shape])


def pipeline_loop(loop_var: E.Var, start: int, stop: int, step: int, carry: E.IterArg, body: Sequence[S.Stmt],
                  result: E.Var, span: Any, attrs: dict[str, Any] | None = None,
                  kind: ForKind = ForKind.Pipeline) -> S.ForStmt:
    """`for loop_var, (carry,) in pl.pipeline(start, stop, step, stage=2, init_values=(...))`."""
    loop_attrs: dict[str, Any] = {"pipeline_stages": PIPELINE_STAGES} if kind is ForKind.Pipeline else {}
    loop_attrs.update(attrs or {})
    return S.ForStmt(loop_var, index(start), index(stop), index(step), [carry], S.SeqStmts(list(body), span),
                     [result], span, kind=kind, attrs=loop_attrs)
