"""OpDefs of the communication ops: pld.system.notify / pld.system.defer_wait, pld.tile.put.

IR layouts:
* `pld.system.notify(target, value[, indices])` kwarg `atomic` (1 = Add) only when set: writes `value`
  into one element of the signal tensor `target` (element 0 without indices); the AtomicAdd form adds
  it. A statement (UnknownType).
* `pld.system.defer_wait(signal, value[, indices])`: waits until that element reaches `value`.
  A statement (UnknownType).
* `pld.tile.put(tile, offsets, target)`: writes the tile's valid region into the window of the (remote)
  tensor `target` at `offsets`, like tile.store; returns the target's type so that it can be rebound.

Registry facts (docs/passes/outline_incore_scopes.md, parameters; docs/passes/expand_mixed_kernel.md, regions): notify writes its
target (Write; ReadWrite in the AtomicAdd form, which reads the word it adds to), is SHARED and
no-duplicate (a region pins it to one AIV lane instead of copying it); the wait only reads its
signal and is safe to duplicate; put writes its target and reads a Vec tile.

Choices of pypto's own, where PyPTO's documents are silent: the AtomicAdd form is the `atomic=pl.AtomicType.Add`
kwarg tile.store uses; the wait is named `defer_wait` and is satisfied when the
signal word is at least the awaited value (a flag set once, or a counter added to); put takes no
atomic form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.enums import AtomicType, MemorySpace
from pypto_core.ir.expr import Expr
from pypto_core.ir.types import ScalarType, Type, UnknownType
from pypto_core.ops.build import check_window, require_scalar, require_tensor, require_tile, tuple_elements
from pypto_core.ops.opdef import ArgSpec, CoreAffinity, Effect, KwargSpec, OpDef, OpTraits

NOTIFY, DEFER_WAIT, PUT = "pld.system.notify", "pld.system.defer_wait", "pld.tile.put"


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
    """The AtomicAdd form reads the word it adds to (docs/passes/outline_incore_scopes.md: it keeps the target InOut)."""
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


_SIGNAL_ARGS = (ArgSpec("signal"), ArgSpec("value"), ArgSpec("indices", optional=True))

OPDEFS = [
    OpDef(NOTIFY, deduce_notify, args=_SIGNAL_ARGS,
          kwargs=(KwargSpec("atomic", (int,), 0, choices=(0, 1)),),
          effects=notify_effects, affinity=CoreAffinity.SHARED, no_duplicate=True,
          traits=OpTraits(shape_args=(2,)),
          doc="Write (or atomically add) a value into a signal word of a tensor."),
    OpDef(DEFER_WAIT, deduce_defer_wait, args=_SIGNAL_ARGS, affinity=CoreAffinity.SHARED,
          traits=OpTraits(shape_args=(2,)),
          doc="Wait until a signal word of a tensor reaches a value."),
    OpDef(PUT, deduce_put, args=(ArgSpec("tile"), ArgSpec("offsets"), ArgSpec("target")),
          effects={2: Effect.WRITE}, input_memory={0: (MemorySpace.Vec,)},
          traits=OpTraits(shape_args=(1,), gm_transfer=True),
          doc="Write a Vec tile into a window of a (remote) tensor; returns the (updated) tensor."),
]
