"""The communication ops PyPTO names: pld.system.notify / pld.system.defer_wait and pld.tile.put
(`import pypto.language.distributed as pld`), as one op family.

IR layouts:
* `pld.system.notify(target, peer, offsets, value)` kwarg `op` (required: 0 = `pld.NotifyOp.AtomicAdd`, 1 =
  `pld.NotifyOp.Set`): sets (or atomically adds) `value` into the element `offsets` of the distributed signal
  tensor `target` on device `peer`. `target` is a `pld.DistributedTensor`, `peer` and `value` scalars,
  `offsets` one index per dimension of `target`. A statement (UnknownType).
* `pld.system.defer_wait(signal, value[, indices])`: waits until that element reaches `value` (at least the
  awaited value: a flag set once, or a counter added to). A statement.
* `pld.tile.put(tile, offsets, target)`: writes the tile's valid region into the window of the (remote) tensor
  `target` at `offsets`, like tile.store; returns the target's type so that it can be rebound.

Registry facts (docs/passes/outline_incore_scopes.md, parameters; docs/passes/expand_mixed_kernel.md, regions):
notify writes its target (Write with `op=Set`; ReadWrite with `op=AtomicAdd`, which reads the word it adds to
and so keeps the target InOut), is SHARED, no-duplicate (a region pins it to one AIV lane instead of copying it)
and has no memory spec; the wait only reads its signal and is safe to duplicate; put writes its target and
reads a Vec tile; put takes no atomic form.

DSL: each function takes the op's IR operands in order and its kwargs by name, so the printed call
(`system.notify(sig, peer, [0, 1], 1, op=0)`, docs/dsl.md, the printed form) parses back to itself; notify's
untyped literal value is an INDEX constant, defer_wait's takes the signal's dtype (docs/plugins.md, OpDef
fields), as tensor.write's value does.

Semantics (semantics.py): the machine runs one device: a peer's window is an ordinary tensor and a signal word an element of
one, so notify writes (or adds) the word of the local tensor in place, whatever the peer (a negative peer is an
error); defer_wait reads it and, since nothing else can change it
while the program waits, reports a wait that could never be satisfied.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.expr import Call, Expr, MakeTuple
from pypto_core.ir.span import Span
from pypto_core.ir.types import DistributedTensorType, ScalarType, Type, UnknownType
from pypto_core.ops.build import (
    check_window,
    dsl_entry,
    element_dtype,
    require_scalar,
    require_tensor,
    require_tile,
    retype_literal,
    to_expr,
    to_tuple,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, Effect, KwargSpec, OpDef, OpTraits
from pypto_core.ops.registry import create_op_call

NOTIFY, DEFER_WAIT, PUT = "pld.system.notify", "pld.system.defer_wait", "pld.tile.put"

family = OpFamily("comm", semantics="pypto_plugins.ops_comm.semantics")


# -- type rules ---------------------------------------------------------------------------------------------
def _signal_word(op: str, args: Sequence[Expr]) -> None:
    """A signal tensor, a scalar value and, optionally, one integer index per dimension."""
    target = require_tensor(op, args[0], "the signal")
    require_scalar(op, args[1], "the value")
    if len(args) < 3:
        return
    indices = tuple_elements(args[2])
    if len(indices) != len(target.shape):
        raise TypeError(f"{op}: {len(indices)} indices for a {len(target.shape)}-D signal tensor")
    for i in indices:
        if not isinstance(i.type, ScalarType) or not i.type.dtype.is_int():
            raise TypeError(f"{op}: indices must be integer scalars, got {i.type}")


class NotifyOp(enum.IntEnum):
    """`op=` of pld.system.notify (`pld.NotifyOp`)."""

    AtomicAdd = 0
    Set = 1


def deduce_notify(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    if len(args) != 4:
        raise ValueError(f"{NOTIFY} requires exactly 4 positional arguments (target, peer, offsets, value), but got "
                         f"{len(args)}")
    target, peer, offsets, value = args
    if not isinstance(target.type, DistributedTensorType):
        raise TypeError(f"{NOTIFY}: the target must be a distributed tensor (pld.DistributedTensor[[...], dtype]), "
                        f"got {target.type}")
    require_scalar(NOTIFY, peer, "the peer")
    if not isinstance(offsets, MakeTuple):
        raise TypeError(f"{NOTIFY}: the offsets must be a list of indices, got {offsets.type}")
    rank = len(target.type.shape)
    if len(offsets.elements) != rank:
        raise ValueError(f"{NOTIFY} offsets rank ({len(offsets.elements)}) must match target tensor rank ({rank})")
    for i in offsets.elements:
        if not isinstance(i.type, ScalarType) or not i.type.dtype.is_int():
            raise TypeError(f"{NOTIFY}: offsets must be integer scalars, got {i.type}")
    require_scalar(NOTIFY, value, "the value")
    op = kwargs.get("op")
    if isinstance(op, bool) or not isinstance(op, int) or op not in (NotifyOp.AtomicAdd, NotifyOp.Set):
        raise ValueError(f"{NOTIFY} op must be NotifyOp.AtomicAdd or NotifyOp.Set (got {type(op).__name__} {op})")
    return UnknownType()


def deduce_defer_wait(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    _signal_word(DEFER_WAIT, args)
    return UnknownType()


def notify_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    """Set writes the word; AtomicAdd reads the word it adds to (it keeps the target InOut)."""
    return {0: Effect.WRITE if kwargs.get("op") == NotifyOp.Set else Effect.READ_WRITE}


def deduce_put(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    tile = require_tile(PUT, args[0], "the sent tile")
    target = require_tensor(PUT, args[2], "the target")
    if tile.dtype is not target.dtype:
        raise TypeError(f"{PUT}: the tile is {tile.dtype.name} but the target is {target.dtype.name}; cast the "
                        f"tile first (pl.cast)")
    offsets = tuple_elements(args[1])
    if len(offsets) != len(target.shape):
        raise TypeError(f"{PUT}: {len(offsets)} offsets for a {len(target.shape)}-D target")
    if len(tile.valid_shape) > len(target.shape):
        raise TypeError(f"{PUT}: a {len(tile.valid_shape)}-D tile does not fit a {len(target.shape)}-D target")
    check_window(PUT, "writes", offsets, tile.valid_shape, target.shape, "target")
    return target


# -- ops ----------------------------------------------------------------------------------------------------
_SIGNAL_ARGS = (ArgSpec("signal"), ArgSpec("value"), ArgSpec("indices", optional=True))

# Every operand optional and the count open: the type rule says what a wrong count is.
family.op(OpDef(NOTIFY, deduce_notify,
                args=(ArgSpec("target", optional=True), ArgSpec("peer", optional=True),
                      ArgSpec("offsets", optional=True), ArgSpec("value", optional=True)),
                variadic=True, kwargs=(KwargSpec("op", (int,), required=True),),
                effects=notify_effects, affinity=CoreAffinity.SHARED, no_duplicate=True,
                traits=OpTraits(shape_args=(2,)),
                doc="Set (or atomically add) a value into a signal word of a peer's distributed tensor."))
family.op(OpDef(DEFER_WAIT, deduce_defer_wait, args=_SIGNAL_ARGS, affinity=CoreAffinity.SHARED,
                traits=OpTraits(shape_args=(2,)), doc="Wait until a signal word of a tensor reaches a value."))
family.op(OpDef(PUT, deduce_put, args=(ArgSpec("tile"), ArgSpec("offsets"), ArgSpec("target")),
                effects={2: Effect.WRITE}, input_memory={0: (MemorySpace.Vec,)},
                traits=OpTraits(shape_args=(1,), gm_transfer=True),
                doc="Write a Vec tile into a window of a (remote) tensor; returns the (updated) tensor."))


# -- DSL ----------------------------------------------------------------------------------------------------
def _signal_args(signal: Expr, value: Any, indices: Any, span: Span | None) -> list[Expr]:
    args = [signal, retype_literal(to_expr(value, span), element_dtype(signal.type))]
    if indices is not None:
        args.append(to_tuple(indices, span))
    return args


@family.dsl(NOTIFY, builder=False)
@dsl_entry
def notify(target: Expr, peer: Any, offsets: Any, value: Any, span: Span | None = None, *, op: Any) -> Call:
    """`op=pld.NotifyOp.Set` writes the word, `op=pld.NotifyOp.AtomicAdd` adds to it (recorded as 1 / 0)."""
    args = [target, to_expr(peer, span), to_tuple(offsets, span), to_expr(value, span)]
    kwargs = {"op": op if isinstance(op, bool) or not isinstance(op, (int, enum.Enum)) else _notify_op(op)}
    return create_op_call(NOTIFY, args, kwargs, span=span)


def _notify_op(op: Any) -> Any:
    return int(op.value) if isinstance(op, enum.Enum) else int(op)


# `pld.NotifyOp.Set` / `pld.NotifyOp.AtomicAdd` (the pld namespace finds it among the DSL names).
family.dsl_function("pld.NotifyOp", NotifyOp, builder=False)


@family.dsl(DEFER_WAIT, builder=False)
@dsl_entry
def defer_wait(signal: Expr, value: Any, indices: Any = None, span: Span | None = None) -> Call:
    return create_op_call(DEFER_WAIT, _signal_args(signal, value, indices, span), span=span)


@family.dsl(PUT, builder=False)
@dsl_entry
def put(tile: Expr, offsets: Any, target: Expr, span: Span | None = None) -> Call:
    return create_op_call(PUT, [tile, to_tuple(offsets, span), target], span=span)
