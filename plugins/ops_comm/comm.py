"""The communication ops PyPTO names: pld.system.notify / pld.system.defer_wait and pld.tile.put
(`import pypto.language.distributed as pld`), as one op family.

IR layouts:
* `pld.system.notify(target, value[, indices])` kwarg `atomic` (1 = Add) only when set: writes `value` into
  one element of the signal tensor `target` (element 0 without indices); the AtomicAdd form adds it. A
  statement (UnknownType).
* `pld.system.defer_wait(signal, value[, indices])`: waits until that element reaches `value` (at least the
  awaited value: a flag set once, or a counter added to). A statement.
* `pld.tile.put(tile, offsets, target)`: writes the tile's valid region into the window of the (remote) tensor
  `target` at `offsets`, like tile.store; returns the target's type so that it can be rebound.

Registry facts (docs/passes/outline_incore_scopes.md, parameters; docs/passes/expand_mixed_kernel.md, regions):
notify writes its target (Write; ReadWrite in the AtomicAdd form, which reads the word it adds to and so keeps
the target InOut), is SHARED and no-duplicate (a region pins it to one AIV lane instead of copying it); the
wait only reads its signal and is safe to duplicate; put writes its target and reads a Vec tile. The AtomicAdd
form is the `atomic=pl.AtomicType.Add` kwarg tile.store uses; put takes no atomic form.

DSL: each function takes the op's IR operands in order and its kwargs by name, so the printed call
(`system.notify(sig, 1)`, docs/dsl.md, the printed form) parses back to itself; an untyped literal value takes
the signal's dtype (docs/plugins.md, OpDef fields), as tensor.write's value does.

Semantics: the machine runs one device: a peer's window is an ordinary tensor and a signal word an element of
one. notify writes (or adds) the word in place; defer_wait reads it and, since nothing else can change it
while the program waits, reports a wait that could never be satisfied.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pypto_core.interp.errors import MachineError
from pypto_core.ir.enums import AtomicType, MemorySpace
from pypto_core.ir.expr import Call, Expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, Type, UnknownType
from pypto_core.ops.build import (
    check_window,
    dsl_entry,
    element_dtype,
    require_scalar,
    require_tensor,
    require_tile,
    retype_literal,
    to_enum_int,
    to_expr,
    to_tuple,
    tuple_elements,
)
from pypto_core.ops.family import OpFamily
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, Effect, KwargSpec, OpDef, OpTraits
from pypto_core.ops.registry import create_op_call

NOTIFY, DEFER_WAIT, PUT = "pld.system.notify", "pld.system.defer_wait", "pld.tile.put"

family = OpFamily("comm")


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


def deduce_notify(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    _signal_word(NOTIFY, args)
    return UnknownType()


def deduce_defer_wait(args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    _signal_word(DEFER_WAIT, args)
    return UnknownType()


def notify_effects(kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
    """The AtomicAdd form reads the word it adds to (it keeps the target InOut)."""
    atomic = int(kwargs.get("atomic", 0)) == int(AtomicType.Add)
    return {0: Effect.READ_WRITE if atomic else Effect.WRITE}


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

family.op(OpDef(NOTIFY, deduce_notify, args=_SIGNAL_ARGS, kwargs=(KwargSpec("atomic", (int,), 0, choices=(0, 1)),),
                effects=notify_effects, affinity=CoreAffinity.SHARED, no_duplicate=True,
                traits=OpTraits(shape_args=(2,)),
                doc="Write (or atomically add) a value into a signal word of a tensor."))
family.op(OpDef(DEFER_WAIT, deduce_defer_wait, args=_SIGNAL_ARGS, affinity=CoreAffinity.SHARED,
                traits=OpTraits(shape_args=(2,)), doc="Wait until a signal word of a tensor reaches a value."))
family.op(OpDef(PUT, deduce_put, args=(ArgSpec("tile"), ArgSpec("offsets"), ArgSpec("target")),
                effects={2: Effect.WRITE}, input_memory={0: (MemorySpace.Vec,)},
                traits=OpTraits(shape_args=(1,), gm_transfer=True),
                doc="Write a Vec tile into a window of a (remote) tensor; returns the (updated) tensor."))


# -- semantics ----------------------------------------------------------------------------------------------
def _word(call: Any, args: list) -> tuple[int, ...]:
    signal = args[0]
    index = tuple(map(int, args[2])) if len(args) > 2 else (0,) * signal.ndim
    if len(index) != signal.ndim or any(not 0 <= i < d for i, d in zip(index, signal.shape)):
        raise MachineError(f"{call.op.name}: signal index {list(index)} is outside shape {list(signal.shape)}",
                           call.span)
    return index


@family.semantics(NOTIFY)
def write_signal(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    """signal[index] = value, or += value in the AtomicAdd form; in place."""
    signal, index = args[0], _word(call, args)
    if int(kwargs.get("atomic") or 0) == 1:
        signal[index] = signal[index] + args[1]
    else:
        signal[index] = args[1]


@family.semantics(DEFER_WAIT)
def wait_for_signal(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    """Blocks until signal[index] >= value: another task of the core group (the other core, the other lane)
    may notify it; a task running alone, or every task waiting, never gets there (an error)."""
    signal, index = args[0], _word(call, args)
    wanted = args[1]

    def describe() -> str:
        return (f"{DEFER_WAIT} waits for signal{list(index)} >= {wanted} but it holds {signal[index]}, and "
                f"nothing notifies it while the program waits: {NOTIFY} it first")

    try:
        ctx.wait(lambda: bool(signal[index] >= wanted), describe)
    except MachineError as exc:
        raise MachineError(str(exc.args[0]) if exc.args else describe(), call.span) from None


@family.semantics(PUT)
def write_window(ctx: Any, call: Any, args: list, kwargs: dict) -> np.ndarray:
    """target[offsets : offsets + the tile's valid extents] = the tile, in place; returns target."""
    tile, offsets, target = args[0], tuple(map(int, args[1])), args[2]
    extents = ctx.valid_shape(call.args[0].type)
    full = (1,) * (target.ndim - len(extents)) + tuple(extents)
    for axis, (o, e) in enumerate(zip(offsets, full)):
        if o < 0 or o + e > target.shape[axis]:
            raise MachineError(f"{PUT} writes past the end of dimension {axis}: offset {o} + extent {e} exceeds "
                               f"the target extent {target.shape[axis]}", call.span)
    part = tile[tuple(slice(0, e) for e in extents)].reshape(full)
    target[tuple(slice(o, o + e) for o, e in zip(offsets, full))] = part.astype(target.dtype, copy=False)
    return target


# -- DSL ----------------------------------------------------------------------------------------------------
def _signal_args(signal: Expr, value: Any, indices: Any, span: Span | None) -> list[Expr]:
    args = [signal, retype_literal(to_expr(value, span), element_dtype(signal.type))]
    if indices is not None:
        args.append(to_tuple(indices, span))
    return args


@family.dsl(NOTIFY, builder=False)
@dsl_entry
def notify(signal: Expr, value: Any, indices: Any = None, span: Span | None = None, *,
           atomic: Any = AtomicType.None_) -> Call:
    """Without indices the signal word is element 0; `atomic=pl.AtomicType.Add` adds instead of writing."""
    kwargs = {}
    if to_enum_int(atomic, AtomicType, "atomic") != 0:
        kwargs["atomic"] = int(AtomicType.Add)
    return create_op_call(NOTIFY, _signal_args(signal, value, indices, span), kwargs, span=span)


@family.dsl(DEFER_WAIT, builder=False)
@dsl_entry
def defer_wait(signal: Expr, value: Any, indices: Any = None, span: Span | None = None) -> Call:
    return create_op_call(DEFER_WAIT, _signal_args(signal, value, indices, span), span=span)


@family.dsl(PUT, builder=False)
@dsl_entry
def put(tile: Expr, offsets: Any, target: Expr, span: Span | None = None) -> Call:
    return create_op_call(PUT, [tile, to_tuple(offsets, span), target], span=span)
