"""What every IRBuilder method shares (docs/ir_builder.md): the caller's span, Python numbers as
constants, and the body a closed context assembles."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pypto_core.ir.expr import Expr
from pypto_core.ir.scalar_ops import as_expr
from pypto_core.ir.span import Span
from pypto_core.ir.stmt import SeqStmts, Stmt

_BUILDER_DIR = str(Path(__file__).resolve().parent)
_CONTEXTLIB = contextlib.__file__


def caller_span() -> Span:
    """The file and line of the first frame outside the builder (column -1: the builder does not know it)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_BUILDER_DIR) and filename != _CONTEXTLIB:
            return Span(filename, frame.f_lineno, -1)
        frame = frame.f_back  # type: ignore[assignment]
    return Span.unknown()


def expr_of(value: Any, span: Span | None = None) -> Expr:
    """An Expr where the builder expects one: ints become INDEX constants, floats FP32, bools BOOL."""
    return as_expr(value, span)


def expr_list(values: Any, span: Span | None = None) -> list[Expr]:
    """`None` or `[]` is no value, one value is a list of one, a list or tuple is taken item by item."""
    if values is None:
        return []
    if isinstance(values, (list, tuple)):
        return [expr_of(v, span) for v in values]
    return [expr_of(values, span)]


def body_of(stmts: Sequence[Stmt], span: Span) -> Stmt:
    """The body a context builds: none is an empty SeqStmts, one is that statement, more a SeqStmts.
    Nothing is flattened or normalized: what was emitted is what the body holds."""
    if len(stmts) == 1:
        return stmts[0]
    return SeqStmts(list(stmts), span)
