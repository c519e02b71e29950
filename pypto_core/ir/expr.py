"""IR expressions (docs/architecture.md, the core).

Python `==` on an Expr builds an `Eq` node (as PyPTO's does), so never compare Exprs with `==`
for identity: use `is`, `same_as`, or `structural_equal`. Hashing is by identity.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.node import Ignored, IRNode, Usual
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, TupleType, Type, UnknownType


class Op(IRNode):
    """An operator handle; equality is by name."""

    fields = (Usual("name"),)

    def __init__(self, name: str) -> None:
        self._init(name=name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Op) and type(other) is type(self) and other.name == self.name

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.name))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class GlobalVar(Op):
    """The callee of a cross-function Call and the key of `Program.functions`."""

    fields = ()


class Expr(IRNode):
    """Base of expressions. Every Expr has a `type` and a `span`."""

    fields = (Usual("type"), Ignored("span"))

    # Python operators build IR with the promotion rules of docs/dsl.md.
    def _bin(self, name: str, other: Any, reflected: bool = False) -> Expr:
        from pypto_core.ir import scalar_ops

        if not isinstance(other, (Expr, int, float)) and name not in ("eq", "ne"):
            return NotImplemented  # let the other operand try (e.g. a pl.dynamic dim in an annotation)
        fn = getattr(scalar_ops, name)
        return fn(other, self) if reflected else fn(self, other)

    def __add__(self, o: Any) -> Expr:
        return self._bin("add", o)

    def __radd__(self, o: Any) -> Expr:
        return self._bin("add", o, True)

    def __sub__(self, o: Any) -> Expr:
        return self._bin("sub", o)

    def __rsub__(self, o: Any) -> Expr:
        return self._bin("sub", o, True)

    def __mul__(self, o: Any) -> Expr:
        return self._bin("mul", o)

    def __rmul__(self, o: Any) -> Expr:
        return self._bin("mul", o, True)

    def __truediv__(self, o: Any) -> Expr:
        return self._bin("truediv", o)

    def __rtruediv__(self, o: Any) -> Expr:
        return self._bin("truediv", o, True)

    def __floordiv__(self, o: Any) -> Expr:
        return self._bin("floordiv", o)

    def __rfloordiv__(self, o: Any) -> Expr:
        return self._bin("floordiv", o, True)

    def __mod__(self, o: Any) -> Expr:
        return self._bin("mod", o)

    def __rmod__(self, o: Any) -> Expr:
        return self._bin("mod", o, True)

    def __pow__(self, o: Any) -> Expr:
        return self._bin("pow", o)

    def __lshift__(self, o: Any) -> Expr:
        return self._bin("bit_shift_left", o)

    def __rshift__(self, o: Any) -> Expr:
        return self._bin("bit_shift_right", o)

    def __and__(self, o: Any) -> Expr:
        return self._bin("bit_and", o)

    def __or__(self, o: Any) -> Expr:
        return self._bin("bit_or", o)

    def __xor__(self, o: Any) -> Expr:
        return self._bin("bit_xor", o)

    def __eq__(self, o: Any) -> Expr:  # type: ignore[override]
        return self._bin("eq", o)

    def __ne__(self, o: Any) -> Expr:  # type: ignore[override]
        return self._bin("ne", o)

    def __lt__(self, o: Any) -> Expr:
        return self._bin("lt", o)

    def __le__(self, o: Any) -> Expr:
        return self._bin("le", o)

    def __gt__(self, o: Any) -> Expr:
        return self._bin("gt", o)

    def __ge__(self, o: Any) -> Expr:
        return self._bin("ge", o)

    def __neg__(self) -> Expr:
        from pypto_core.ir import scalar_ops

        return scalar_ops.neg(self)

    def __invert__(self) -> Expr:
        from pypto_core.ir import scalar_ops

        return scalar_ops.bit_not(self)

    __hash__ = IRNode.__hash__

    @property
    def dtype(self) -> DataType | None:
        t = self.type
        return getattr(t, "dtype", None)


_var_ids = itertools.count()


class Var(Expr):
    """A variable: an identity; its name is only a hint."""

    fields = (Ignored("name_hint"),)
    extra_slots = ("unique_id",)

    def __init__(self, name_hint: str, type: Type | None = None, span: Span | None = None) -> None:
        self._init(type=type if type is not None else UnknownType(), span=span or Span.unknown(),
                   name_hint=name_hint, unique_id=next(_var_ids))

    def with_fields(self, **changes: Any) -> IRNode:
        new = super().with_fields(**changes)
        object.__setattr__(new, "unique_id", next(_var_ids))
        return new

    @property
    def name(self) -> str:
        return self.name_hint

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name_hint!r})"


class IterArg(Var):
    """A loop-carried variable with its initial value."""

    fields = (Usual("initValue"),)

    def __init__(self, name_hint: str, type: Type | None, initValue: Expr, span: Span | None = None) -> None:  # noqa: N803
        super().__init__(name_hint, type, span)
        object.__setattr__(self, "initValue", initValue)

    @property
    def init_value(self) -> Expr:
        return self.initValue


class ConstInt(Expr):
    fields = (Usual("value"),)

    def __init__(self, value: int, dtype: DataType = DataType.INDEX, span: Span | None = None) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"ConstInt needs an int, got {value!r}")
        self._init(type=ScalarType(dtype), span=span or Span.unknown(), value=value)

    def __repr__(self) -> str:
        return f"ConstInt({self.value}, {self.type.dtype.name})"


class ConstFloat(Expr):
    fields = (Usual("value"),)

    def __init__(self, value: float, dtype: DataType = DataType.FP32, span: Span | None = None) -> None:
        self._init(type=ScalarType(dtype), span=span or Span.unknown(), value=float(value))

    def __repr__(self) -> str:
        return f"ConstFloat({self.value}, {self.type.dtype.name})"


class ConstBool(Expr):
    fields = (Usual("value"),)

    def __init__(self, value: bool, span: Span | None = None) -> None:
        self._init(type=ScalarType(DataType.BOOL), span=span or Span.unknown(), value=bool(value))


class BinaryExpr(Expr):
    """`left <op> right` with a result dtype; no promotion here (see scalar_ops)."""

    fields = (Usual("left"), Usual("right"))

    def __init__(self, left: Expr, right: Expr, dtype: DataType, span: Span | None = None) -> None:
        self._init(type=ScalarType(dtype), span=span or Span.unknown(), left=left, right=right)


class UnaryExpr(Expr):
    fields = (Usual("operand"),)

    def __init__(self, operand: Expr, dtype: DataType, span: Span | None = None) -> None:
        self._init(type=ScalarType(dtype), span=span or Span.unknown(), operand=operand)


def _binary(name: str) -> type[BinaryExpr]:
    return type(name, (BinaryExpr,), {"__module__": __name__})


def _unary(name: str) -> type[UnaryExpr]:
    return type(name, (UnaryExpr,), {"__module__": __name__})


Add = _binary("Add")
Sub = _binary("Sub")
Mul = _binary("Mul")
FloorDiv = _binary("FloorDiv")
FloorMod = _binary("FloorMod")
FloatDiv = _binary("FloatDiv")
Min = _binary("Min")
Max = _binary("Max")
Pow = _binary("Pow")
Eq = _binary("Eq")
Ne = _binary("Ne")
Lt = _binary("Lt")
Le = _binary("Le")
Gt = _binary("Gt")
Ge = _binary("Ge")
And = _binary("And")
Or = _binary("Or")
Xor = _binary("Xor")
BitAnd = _binary("BitAnd")
BitOr = _binary("BitOr")
BitXor = _binary("BitXor")
BitShiftLeft = _binary("BitShiftLeft")
BitShiftRight = _binary("BitShiftRight")

Abs = _unary("Abs")
Neg = _unary("Neg")
Not = _unary("Not")
BitNot = _unary("BitNot")
Cast = _unary("Cast")

BINARY_EXPR_CLASSES: tuple[type[BinaryExpr], ...] = (
    Add, Sub, Mul, FloorDiv, FloorMod, FloatDiv, Min, Max, Pow, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor,
    BitAnd, BitOr, BitXor, BitShiftLeft, BitShiftRight)
UNARY_EXPR_CLASSES: tuple[type[UnaryExpr], ...] = (Abs, Neg, Not, BitNot, Cast)


def _as_mapping(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if type(value) is dict:  # the usual case, without the slower ABC check below
        return dict(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (list, tuple)):
        return {str(k): v for k, v in value}
    raise TypeError(f"Call {what} must be a mapping or a list of (name, value) pairs, got {type(value).__name__}")


def _literal_args(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Call arguments with Python ints, floats and bools as constants (INDEX, FP32, BOOL), as PyPTO's
    `ir.Call(gvar, [x, 3], span)` takes them."""
    from pypto_core.ir.scalar_ops import as_expr

    return tuple(as_expr(a) if isinstance(a, (int, float)) else a for a in args)


class Call(Expr):
    """A call of an Op or a GlobalVar. kwargs keep their order; attrs are machine annotations."""

    fields = (Usual("op"), Usual("args"), Usual("kwargs"), Usual("attrs"))

    def __init__(self, op: Op, args: Sequence[Expr], *rest: Any, kwargs: Any = None, attrs: Any = None,
                 type: Type | None = None, span: Span | None = None) -> None:
        if rest:
            # Positional forms (docs/architecture.md, the core): (op, args, [kwargs, [attrs,]] [type,] span).
            mappings: list[Any] = []
            for item in rest:
                if isinstance(item, Span):
                    span = item
                elif isinstance(item, Type):
                    type = item
                else:
                    mappings.append(item)
            if len(mappings) > 2:
                raise TypeError("Call takes at most kwargs and attrs as mappings")
            if mappings:
                kwargs = mappings[0]
            if len(mappings) == 2:
                attrs = mappings[1]
        if not isinstance(op, Op):
            raise TypeError(f"Call.op must be an Op or GlobalVar, got {op!r}")
        # Copies of kwargs and attrs; the usual dict / None skip _as_mapping's checks.
        kwargs = dict(kwargs) if isinstance(kwargs, dict) else _as_mapping(kwargs, "kwargs")
        attrs = {} if attrs is None else _as_mapping(attrs, "attrs")
        args = tuple(args)
        for arg in args:
            if not isinstance(arg, Expr):  # rare: a Python number given as an argument
                args = _literal_args(args)
                break
        self._init(type=type if type is not None else UnknownType(), span=span or Span.unknown(), op=op,
                   args=args, kwargs=kwargs, attrs=attrs)

    @property
    def arg_directions(self) -> list[Any]:
        return list(self.attrs.get("arg_directions", []))

    def __repr__(self) -> str:
        return f"Call({self.op.name}, {len(self.args)} args)"


class MakeTuple(Expr):
    fields = (Usual("elements"),)

    def __init__(self, elements: Sequence[Expr], span: Span | None = None) -> None:
        elements = tuple(elements)
        self._init(type=TupleType([e.type for e in elements]), span=span or Span.unknown(), elements=elements)

    def with_fields(self, **changes: Any) -> IRNode:
        if "elements" in changes and "type" not in changes:  # the type follows the elements
            return MakeTuple(changes["elements"], changes.get("span", self.span))
        return super().with_fields(**changes)


class TupleGetItemExpr(Expr):
    fields = (Usual("tuple"), Usual("index"))

    def __init__(self, tuple: Expr, index: int, span: Span | None = None) -> None:  # noqa: A002
        t = tuple.type
        item_type: Type = UnknownType()
        if isinstance(t, TupleType):
            if not 0 <= index < len(t.types):
                raise IndexError(f"tuple index {index} out of range for a {len(t.types)}-element tuple")
            item_type = t.types[index]
        self._init(type=item_type, span=span or Span.unknown(), tuple=tuple, index=int(index))

    def with_fields(self, **changes: Any) -> IRNode:
        if "tuple" in changes and "type" not in changes:  # the type follows the tuple
            return TupleGetItemExpr(changes["tuple"], changes.get("index", self.index), changes.get("span", self.span))
        return super().with_fields(**changes)


def is_var(e: object) -> bool:
    return isinstance(e, Var)


__all__ = [
    "Op", "GlobalVar", "Expr", "Var", "IterArg", "ConstInt", "ConstFloat", "ConstBool", "BinaryExpr",
    "UnaryExpr", "Call", "MakeTuple", "TupleGetItemExpr", "BINARY_EXPR_CLASSES", "UNARY_EXPR_CLASSES",
    *[c.__name__ for c in BINARY_EXPR_CLASSES], *[c.__name__ for c in UNARY_EXPR_CLASSES],
]
