"""Call sites: ops dispatch to their OpDef's `evaluate`; GlobalVar calls go through the machine.

Everything that can be decided once per call site is decided at compile time: the OpDef, the
kwargs completed with defaults, whether the result type narrows the valid region (only then is
poison written), the static result shape used to check what evaluate returned.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from pypto_core.interp.dims import free_vars
from pypto_core.interp.dtypes import np_dtype, np_scalar_type, poison_value
from pypto_core.interp.errors import MachineError
from pypto_core.interp.exprs import written_tile_operand
from pypto_core.interp.gm_race import READ, note, notes_itself
from pypto_core.interp.lane_ops import once_for_all_lanes, runs_once_on_lanes
from pypto_core.ir import expr as E
from pypto_core.ir.types import ScalarType, TensorType, TileType
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import op_registry

if TYPE_CHECKING:
    from pypto_core.interp.code import FunctionCode

Closure = Callable[[list[Any]], Any]


def compile_call(code: FunctionCode, call: E.Call) -> Closure:
    from pypto_core.interp.exprs import compile_expr

    arg_fns = [compile_expr(code, a) for a in call.args]
    if isinstance(call.op, E.GlobalVar):
        return _function_call(code, call, arg_fns)
    return _op_call(code, call, arg_fns)


def _function_call(code: FunctionCode, call: E.Call, arg_fns: list[Closure]) -> Closure:
    machine, name = code.machine, call.op.name
    callee = machine.program_function(name, call.span)

    def run(fr: list[Any]) -> Any:
        return machine.call(fr[0], callee, [f(fr) for f in arg_fns], call)

    return run


def _raiser(message: str, span: Any) -> Closure:
    def run(fr: list[Any]) -> Any:
        raise MachineError(message, span)

    return run


@dataclass(frozen=True)
class PlainSite:
    """An op call site whose result is checked by shape and dtype alone (the common case), in parts: a compiled
    loop (loop_code.py) runs it inline, without the closures of `_op_call`."""

    call: E.Call
    evaluate: Callable[..., Any]
    kwargs: dict[str, Any]
    shape: tuple[int, ...]
    dtype: np.dtype
    finish: Callable[[list[Any], Any, list[Any]], Any]
    failed: Callable[[Exception], MachineError]


def _op_call(code: FunctionCode, call: E.Call, arg_fns: list[Closure]) -> Closure:
    site = _op_site(code, call)
    if not isinstance(site, tuple):
        return site  # an op the machine cannot run: raises when reached
    evaluate, kwargs, finish, plain, failed = site
    # A cube op of a function that can run on a fork's lanes runs once for all of them (lane_ops.py).
    lanes_once = runs_once_on_lanes(code, call)

    arguments = _arguments(arg_fns)
    if plain is not None:
        # The result type has a constant shape and nothing outside a valid region: an array of that
        # shape and dtype is the result as it is (anything else goes through the full check).
        shape, dtype = plain
        ndarray = np.ndarray

        def run_plain(fr: list[Any]) -> Any:
            args = arguments(fr)
            try:
                result = evaluate(fr[0], call, args, kwargs)
            except MachineError:
                raise
            except Exception as exc:
                raise failed(exc) from exc
            if result.__class__ is ndarray and result.shape == shape and result.dtype == dtype:
                return result
            return finish(fr, result, args)

        return once_for_all_lanes(call, run_plain) if lanes_once else run_plain

    def run(fr: list[Any]) -> Any:
        args = arguments(fr)
        try:
            result = evaluate(fr[0], call, args, kwargs)
        except MachineError:
            raise
        except Exception as exc:
            raise failed(exc) from exc
        return finish(fr, result, args)

    return once_for_all_lanes(call, run) if lanes_once else run


def plain_site(code: FunctionCode, call: E.Call) -> PlainSite | None:
    """The call site in parts when it is an op call with a plain result that runs on every lane as it is (not
    a cube op run once for a fork's lanes) and writes through no aliased operand (exprs.write_through); else
    None."""
    if isinstance(call.op, E.GlobalVar) or runs_once_on_lanes(code, call) or \
            written_tile_operand(call) is not None:
        return None
    site = _op_site(code, call)
    if not isinstance(site, tuple) or site[3] is None:
        return None
    evaluate, kwargs, finish, (shape, dtype), failed = site
    return PlainSite(call, evaluate, kwargs, shape, dtype, finish, failed)


def _op_site(code: FunctionCode, call: E.Call) -> Closure | tuple[Any, ...]:
    """(evaluate, kwargs, finish, plain, failed) of an op call site, decided once; or a closure raising why the
    machine cannot run the op."""
    name = call.op.name
    registry = op_registry()
    opdef = registry.find_opdef(name)
    if opdef is None:
        return _raiser(f"op '{name}' is not registered: no plugin provides it", call.span)
    evaluate = opdef.evaluate
    if evaluate is None:
        owner = registry.op_owners.get(name, "?")
        return _raiser(f"op '{name}' has no evaluate: the reference machine cannot execute it (its plugin "
                       f"'{owner}' registers no numpy semantics for it)", call.span)
    kwargs = {spec.name: spec.default for spec in opdef.kwargs}
    kwargs.update(call.kwargs)
    # An evaluate may specialise itself for this call site once (types and constant operands known):
    # `evaluate.specialize(code, call, kwargs)` returns an evaluate for this call only, or None.
    specialize = getattr(evaluate, "specialize", None)
    if specialize is not None:
        evaluate = specialize(code, call, kwargs) or evaluate
    if not notes_itself(opdef.evaluate):
        evaluate = _noting_tensor_reads(opdef, call, kwargs, evaluate)
    span = call.span

    def failed(exc: Exception) -> MachineError:  # numpy / semantics errors: say which op and where
        return MachineError(f"{name}: {type(exc).__name__}: {exc}", span)

    return evaluate, kwargs, _result_finisher(code, call), _plain_result(code, call), failed


def _arguments(arg_fns: list[Closure]) -> Callable[[list[Any]], list[Any]]:
    """The operands of a call, evaluated: one to three without a comprehension's frame, a good part of the
    fixed cost of an element-wise op (docs/architecture.md, performance)."""
    if len(arg_fns) == 1:
        only = arg_fns[0]
        return lambda fr: [only(fr)]
    if len(arg_fns) == 2:
        first, second = arg_fns
        return lambda fr: [first(fr), second(fr)]
    if len(arg_fns) == 3:
        first, second, third = arg_fns
        return lambda fr: [first(fr), second(fr), third(fr)]
    return lambda fr: [f(fr) for f in arg_fns]


def _noting_tensor_reads(opdef: Any, call: E.Call, kwargs: dict[str, Any], evaluate: Callable[..., Any]
                         ) -> Callable[..., Any]:
    """`evaluate` reporting, while tasks run concurrently, a whole read of each tensor operand the op reads
    (registry effects); for an op whose evaluate does not report its own accesses (context.py)."""
    reads = [i for i, a in enumerate(call.args)
             if isinstance(a.type, TensorType) and opdef.arg_effect(i, kwargs) is Effect.READ]
    if not reads:
        return evaluate
    ndarray = np.ndarray

    def noting(ctx: Any, call: E.Call, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if ctx.race is not None:
            for i in reads:
                if args[i].__class__ is ndarray:
                    note(ctx, call, i, READ, args[i])
        return evaluate(ctx, call, args, kwargs)

    return noting


def _plain_result(code: FunctionCode, call: E.Call) -> tuple[tuple[int, ...], np.dtype] | None:
    """(shape, dtype) of a tile / tensor result type with a constant shape and no narrower valid region."""
    t = call.type
    if not isinstance(t, (TileType, TensorType)):
        return None
    if not all(isinstance(d, E.ConstInt) for d in t.shape):
        return None
    shape = tuple(d.value for d in t.shape)
    if isinstance(t, TileType) and t.tile_view is not None and t.tile_view.valid_shape:
        if code.static_valid(t) != shape:
            return None  # poison to write (or a valid region known only at run time)
    try:
        return shape, np_dtype(t.dtype)
    except Exception:  # no numpy dtype: the full check reports it
        return None


def _from_operands(code: FunctionCode, fr: list[Any], dims: Any, got: tuple[int, ...],
                   typed: tuple[int, ...]) -> bool:
    """Whether every axis where the result's extent differs from its type names a dim symbol the frame's
    parameters gave different extents: the result then takes that extent from its operands (code.py)."""
    ambiguous = code.ambiguous_dims(fr)
    if not ambiguous or len(got) != len(typed):
        return False
    for dim, g, w in zip(dims, got, typed):
        if g != w and not any(code.slots.lookup(v) in ambiguous for v in free_vars(dim)):
            return False
    return True


def _result_finisher(code: FunctionCode, call: E.Call) -> Callable[[list[Any], Any, list[Any]], Any]:
    """Check what evaluate returned against the call's type and poison outside the valid region."""
    t, name = call.type, call.op.name
    if isinstance(t, ScalarType):
        to = np_scalar_type(t.dtype)

        def scalar(fr: list[Any], value: Any, args: list[Any]) -> Any:
            return value if type(value) is to else to(value)

        return scalar
    if not isinstance(t, (TileType, TensorType)):
        return lambda fr, value, args: value
    want_dtype = np_dtype(t.dtype)
    shape_fn = code.dims_fn(t.shape)
    valid_exprs = t.tile_view.valid_shape if isinstance(t, TileType) and t.tile_view is not None else ()
    valid_fn = code.dims_fn(valid_exprs) if valid_exprs else None

    def array(fr: list[Any], value: Any, args: list[Any]) -> Any:
        if not isinstance(value, np.ndarray):
            raise MachineError(f"{name}: evaluate returned {type(value).__name__}, expected an array for {t}",
                               call.span)
        shape = shape_fn(fr)
        if value.shape != shape and value.ndim > 2 == len(shape) and value.shape[-1] == shape[1] \
                and value.size == shape[0] * shape[1]:
            # FlattenTileNdTo2D's form: an N-D window typed as its leading dims merged
            # (docs/passes/flatten_tile_nd_to_2d.md).
            value = value.reshape(shape)
        if value.shape != shape:
            if not _from_operands(code, fr, t.shape, value.shape, shape):
                raise MachineError(f"{name}: evaluate produced shape {list(value.shape)} but the call's type is "
                                   f"{t} (shape {list(shape)})", call.span)
            shape = value.shape
        if value.dtype != want_dtype:
            value = value.astype(want_dtype)
        if valid_fn is not None:
            valid = valid_fn(fr)
            if any(v < s for v, s in zip(valid, shape)):
                # Never poison an operand or a view of one: tiles are values.
                if value.base is not None or not value.flags.writeable or any(value is a for a in args):
                    value = value.copy()
                poison = poison_value(want_dtype)
                for axis, v in enumerate(valid):
                    if v < shape[axis]:
                        index = (slice(None),) * axis + (slice(max(v, 0), None),)
                        value[index] = poison
        return value

    return array
