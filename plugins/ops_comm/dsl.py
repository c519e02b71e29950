"""DSL names of the communication ops: `pld.system.notify`, `pld.system.defer_wait`, `pld.tile.put`
(`import pypto.language.distributed as pld`). Each function takes the op's IR operands in order and
its kwargs by name, so the printed call (`system.notify(sig, 1)`, docs/dsl.md, the printed form) parses back to itself."""

from __future__ import annotations

from typing import Any

from pypto_core.ir.enums import AtomicType
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ops.build import dsl_entry, element_dtype, retype_literal, to_enum_int, to_expr, to_tuple
from pypto_core.ops.registry import create_op_call
from pypto_plugins.ops_comm.ops import DEFER_WAIT, NOTIFY, PUT


def _signal_args(signal: Expr, value: Any, indices: Any, span: Span | None) -> list[Expr]:
    # An untyped literal takes the signal's dtype (docs/plugins.md, OpDef fields), as tensor.write's value does.
    args = [signal, retype_literal(to_expr(value, span), element_dtype(signal.type))]
    if indices is not None:
        args.append(to_tuple(indices, span))
    return args


@dsl_entry
def notify(signal: Expr, value: Any, indices: Any = None, span: Span | None = None, *,
           atomic: Any = AtomicType.None_) -> Call:
    """Without indices the signal word is element 0; `atomic=pl.AtomicType.Add` adds instead of writing."""
    kwargs = {}
    if to_enum_int(atomic, AtomicType, "atomic") != 0:
        kwargs["atomic"] = int(AtomicType.Add)
    return create_op_call(NOTIFY, _signal_args(signal, value, indices, span), kwargs, span=span)


@dsl_entry
def defer_wait(signal: Expr, value: Any, indices: Any = None, span: Span | None = None) -> Call:
    return create_op_call(DEFER_WAIT, _signal_args(signal, value, indices, span), span=span)


@dsl_entry
def put(tile: Expr, offsets: Any, target: Expr, span: Span | None = None) -> Call:
    return create_op_call(PUT, [tile, to_tuple(offsets, span), target], span=span)


DSL = {NOTIFY: notify, DEFER_WAIT: defer_wait, PUT: put}
