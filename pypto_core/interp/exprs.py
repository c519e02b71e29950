"""Compile scalar expressions, tuples and calls into closures `f(frame) -> value`.

Scalars are numpy scalars of their IR dtype; arithmetic follows numpy (integer overflow wraps),
FloorDiv / FloorMod are Python's floor semantics (which numpy integer scalars share), a Cast of a
float to an int truncates toward zero.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from pypto_core.interp.context import alias_target, bind_alias
from pypto_core.interp.dtypes import np_scalar_type
from pypto_core.interp.errors import MachineError
from pypto_core.interp.frame import UNSET, Released
from pypto_core.ir import expr as E
from pypto_core.ir.types import ScalarType, TileType

if TYPE_CHECKING:
    from pypto_core.interp.code import FunctionCode

Closure = Callable[[list[Any]], Any]


def _logical_and(a: Any, b: Any) -> Any:
    return np.bool_(bool(a) and bool(b))


def _logical_or(a: Any, b: Any) -> Any:
    return np.bool_(bool(a) or bool(b))


def _logical_xor(a: Any, b: Any) -> Any:
    return np.bool_(bool(a) != bool(b))


def _min(a: Any, b: Any) -> Any:
    return b if b < a else a


def _max(a: Any, b: Any) -> Any:
    return b if b > a else a


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    E.Add: operator.add, E.Sub: operator.sub, E.Mul: operator.mul, E.FloorDiv: operator.floordiv,
    E.FloorMod: operator.mod, E.FloatDiv: operator.truediv, E.Min: _min, E.Max: _max, E.Pow: operator.pow,
    E.Eq: operator.eq, E.Ne: operator.ne, E.Lt: operator.lt, E.Le: operator.le, E.Gt: operator.gt,
    E.Ge: operator.ge, E.And: _logical_and, E.Or: _logical_or, E.Xor: _logical_xor,
    E.BitAnd: operator.and_, E.BitOr: operator.or_, E.BitXor: operator.xor,
    E.BitShiftLeft: operator.lshift, E.BitShiftRight: operator.rshift,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    E.Abs: abs, E.Neg: operator.neg, E.Not: lambda a: np.bool_(not bool(a)), E.BitNot: operator.invert,
}


def constant(e: E.Expr) -> Any:
    """The numpy value of a constant expression node."""
    if isinstance(e, E.ConstBool):
        return np.bool_(e.value)
    if isinstance(e, (E.ConstInt, E.ConstFloat)):
        return np_scalar_type(e.type.dtype)(e.value)
    raise TypeError(f"not a constant: {e!r}")


def cast_scalar(value: Any, to: type) -> Any:
    """A scalar converted as an element cast converts it: some scalar types (ml_dtypes' INT4, ...) take no
    numpy bool or out-of-range value in their constructor, so those go through an array cast."""
    try:
        return to(value)
    except (TypeError, ValueError, OverflowError):
        return np.asarray(value).astype(to)[()]


def compile_expr(code: FunctionCode, e: E.Expr) -> Closure:
    if isinstance(e, (E.ConstInt, E.ConstFloat, E.ConstBool)):
        value = constant(e)
        return lambda fr: value
    if isinstance(e, E.Var):
        return compile_var(code, e)
    if isinstance(e, E.BinaryExpr):
        return _compile_binary(code, e)
    if isinstance(e, E.Cast):
        to = np_scalar_type(e.type.dtype)
        operand = compile_expr(code, e.operand)
        return lambda fr: cast_scalar(operand(fr), to)
    if isinstance(e, E.UnaryExpr):
        fn = _UNARY[type(e)]
        operand = compile_expr(code, e.operand)
        return lambda fr: fn(operand(fr))
    if isinstance(e, E.MakeTuple):
        return _compile_tuple(code, e)
    if isinstance(e, E.TupleGetItemExpr):
        tup, index = compile_expr(code, e.tuple), e.index
        return lambda fr: tup(fr)[index]
    if isinstance(e, E.Call):
        from pypto_core.interp.calls import compile_call

        return write_through(code, e, compile_call(code, e))
    raise MachineError(f"the reference machine cannot evaluate a {type(e).__name__} expression",
                       getattr(e, "span", None))


def _compile_tuple(code: FunctionCode, e: E.MakeTuple) -> Closure:
    # Offsets and shapes are MakeTuples on every op call: make the common forms cheap.
    if all(isinstance(x, (E.ConstInt, E.ConstFloat, E.ConstBool)) for x in e.elements):
        values = tuple(constant(x) for x in e.elements)
        return lambda fr: values
    parts = [compile_expr(code, x) for x in e.elements]
    if len(parts) == 1:
        p0 = parts[0]
        return lambda fr: (p0(fr),)
    if len(parts) == 2:
        p0, p1 = parts
        return lambda fr: (p0(fr), p1(fr))
    return lambda fr: tuple([p(fr) for p in parts])


def compile_var(code: FunctionCode, var: E.Var, handle: bool = False) -> Closure:
    """A variable's value. `handle`: the value is only passed on (a yield, a copy `h = v`), not read, so a
    released popped tile (frame.Released) passes as it is."""
    slot = code.slots.lookup(var) if code.frozen else code.slots(var)
    name = var.name_hint
    if slot is None:  # only reachable from types compiled after the body: a var never bound here
        def unbound(fr: list[Any]) -> Any:
            raise MachineError(f"variable '{name}' is used in {code.func.name} but never bound there")

        return unbound

    placed = code.placement(var)
    ndarray = np.ndarray

    def read(fr: list[Any]) -> Any:
        value = fr[slot]
        if value.__class__ is ndarray and placed is None:  # the usual case: neither unset nor released
            return value
        if placed is not None and isinstance(value, np.ndarray):
            return placed.read(fr)  # the bytes, which a tile sharing them may have changed
        if value is UNSET:
            raise MachineError(f"variable '{name}' is read before it is assigned (in {code.func.name})",
                               var.span)
        if value.__class__ is Released and not handle:
            raise MachineError(f"'{name}' is read after the popped tile it holds was released by {value.op} at "
                               f"{_where(value.span)} (in {fr[0].where()}): the FIFO slot belongs to the producer "
                               f"again, which may overwrite it; the tfree must follow the tile's last use", var.span)
        return value

    return read


def compile_handle(code: FunctionCode, e: E.Expr) -> Closure:
    """An expression whose value is passed on unread (a yield's value, the right side of `h = v`)."""
    return compile_var(code, e, handle=True) if isinstance(e, E.Var) else compile_expr(code, e)


def _where(span: Any) -> str:
    return span.to_string() if hasattr(span, "to_string") else str(span)


def _compile_binary(code: FunctionCode, e: E.BinaryExpr) -> Closure:
    fn = _BINARY[type(e)]
    left, right = compile_expr(code, e.left), compile_expr(code, e.right)
    result = e.type.dtype if isinstance(e.type, ScalarType) else None
    operand_dtypes = {getattr(x.type, "dtype", None) for x in (e.left, e.right)}
    # numpy keeps the dtype of two equal-dtype operands except for true division and the
    # comparisons / logic ops (which give np.bool_ already): cast only where it may differ.
    closed = (result is not None and len(operand_dtypes) == 1 and result in operand_dtypes
              and not isinstance(e, E.FloatDiv))
    if closed or result is None or result.is_bool():
        return lambda fr: fn(left(fr), right(fr))
    to = np_scalar_type(result)
    return lambda fr: to(fn(left(fr), right(fr)))


def written_tile_operand(call: E.Call) -> int | None:
    """The index of the first tile variable an op call writes (a Write / ReadWrite effect), or None."""
    from pypto_core.ops.opdef import Effect
    from pypto_core.ops.registry import op_registry

    if isinstance(call.op, E.GlobalVar) or not isinstance(call.type, TileType):
        return None
    opdef = op_registry().find_opdef(call.op.name)
    if opdef is None:
        return None
    kwargs = {spec.name: spec.default for spec in opdef.kwargs}
    kwargs.update(call.kwargs)
    return next((i for i, a in enumerate(call.args) if isinstance(a, E.Var) and isinstance(a.type, TileType)
                 and opdef.arg_effect(i, kwargs) is not Effect.READ), None)


def write_through(code: FunctionCode, call: E.Call, run: Closure) -> Closure:
    """An op call that writes its tile result into a tile operand's buffer (a Write / ReadWrite effect, e.g.
    matmul_acc's `acc`): when that operand is a view aliasing a parent buffer (context.bind_alias: an Acc
    tile.slice), the result's valid region is written into the parent too, and the view is the result, so
    that a chain of such ops keeps writing through. Other call sites are left as they are."""
    written = written_tile_operand(call)
    if written is None:
        return run
    operand, result_type = compile_var(code, call.args[written]), call.type

    def run_through(fr: list[Any]) -> Any:
        result = run(fr)
        target = alias_target(operand(fr))
        if target is None or target is result or target.shape != getattr(result, "shape", None):
            return result
        region = tuple(slice(0, v) for v in fr[0].valid_shape(result_type))
        target[region] = result[region]
        bind_alias(target, target)
        return target

    return run_through
