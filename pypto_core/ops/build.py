"""Helpers for op plugins: turning DSL/builder arguments into IR and common type rules.

DSL functions and IR builders receive a mix of Python values and IR: a positional literal
arrives from the parser as ConstInt(INDEX)/ConstFloat(FP32); a keyword literal as a Python
int/float/bool/str; lists as Python lists; `pl.FP32` / `pl.Mem.Vec` as the enum member. Builders
called from Python (`T.load(t, [0, 0], [64, 128])`) get plain ints. These helpers accept both.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import ConstBool, ConstFloat, ConstInt, Expr, MakeTuple
from pypto_core.ir.scalar_ops import as_expr
from pypto_core.ir.span import Span
from pypto_core.ir.types import ScalarType, TensorType, TileType, Type


def to_expr(value: Any, span: Span | None = None) -> Expr:
    """An operand as an Expr (ints -> INDEX, floats -> FP32, enums -> their int value as INDEX)."""
    if isinstance(value, enum.Enum) and not isinstance(value, DataType):
        v = value.value
        return ConstInt(int(v) if isinstance(v, int) else 0, DataType.INDEX, span)
    return as_expr(value, span)


def to_tuple(values: Any, span: Span | None = None) -> MakeTuple:
    """A shape/offset list as a MakeTuple of INDEX dims (a MakeTuple passes through)."""
    if isinstance(values, MakeTuple):
        items = list(values.elements)
    elif isinstance(values, Expr):
        items = [values]
    else:
        items = [to_expr(v, span) for v in values]
    for e in items:
        if not isinstance(e.type, ScalarType) or not (e.type.dtype.is_int() or e.type.dtype.is_index_like()):
            # `pl.reshape(a, b)` with a tensor b: a dim must be a number (its printed form would not parse)
            raise TypeError(f"a shape, offset or index entry must be an integer scalar, got {_describe(e)}")
    return values if isinstance(values, MakeTuple) else MakeTuple(items, span)


def to_int(value: Any, what: str = "value") -> int:
    """A compile-time integer from an int or a ConstInt."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, ConstInt):
        return value.value
    if isinstance(value, enum.IntEnum):
        return int(value)
    raise TypeError(f"{what} must be a compile-time integer, got {_describe(value)}")


def to_float(value: Any, what: str = "value") -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, (ConstInt, ConstFloat)):
        return float(value.value)
    raise TypeError(f"{what} must be a compile-time number, got {_describe(value)}")


def to_bool(value: Any, what: str = "value") -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, ConstBool):
        return value.value
    raise TypeError(f"{what} must be True or False, got {_describe(value)}")


def static_int(e: Any) -> int | None:
    """The value of a constant dim, or None when it is dynamic."""
    if isinstance(e, ConstInt):
        return e.value
    if isinstance(e, int) and not isinstance(e, bool):
        return e
    return None


def static_dims(dims: Sequence[Any]) -> list[int] | None:
    out = []
    for d in dims:
        v = static_int(d)
        if v is None:
            return None
        out.append(v)
    return out


def tuple_elements(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, MakeTuple):
        return e.elements
    raise TypeError(f"expected a list of dims, got {_describe(e)}")


def _describe(value: Any) -> str:
    if isinstance(value, Expr):
        return f"an expression of type {value.type}"
    return f"{type(value).__name__} {value!r}"


def is_tile(e: Any) -> bool:
    return isinstance(e, Expr) and isinstance(e.type, TileType)


def is_tensor(e: Any) -> bool:
    return isinstance(e, Expr) and isinstance(e.type, TensorType)


def is_scalar(e: Any) -> bool:
    return isinstance(e, Expr) and isinstance(e.type, ScalarType)


def element_dtype(t: Type) -> DataType:
    dtype = getattr(t, "dtype", None)
    if not isinstance(dtype, DataType):
        raise TypeError(f"expected a tensor, tile or scalar, got {t}")
    return dtype


def promote_dtypes(a: DataType, b: DataType, op_name: str) -> DataType:
    """Element dtype of an element-wise op (its promotion rule): the same dtype stays; a float beats
    an int; else the wider wins; on equal widths the signed int; else `a`."""
    if a is b:
        return a
    for d in (a, b):
        if d.category == "other":
            raise TypeError(f"{op_name}: {d.name} elements take no part in arithmetic (operands {a.name} and "
                            f"{b.name}); allowed: bool, integer and float dtypes")
    if a.is_float() != b.is_float():
        return a if a.is_float() else b
    if a.get_bit() != b.get_bit():
        return a if a.get_bit() > b.get_bit() else b
    if a.is_signed_int() != b.is_signed_int():
        return a if a.is_signed_int() else b
    return a


def require_dtype_in(op_name: str, dtype: DataType, allowed: Sequence[DataType], what: str) -> None:
    """TypeError naming the op, the operand and the dtypes it accepts (the op's dtype rule)."""
    if dtype not in allowed:
        names = ", ".join(d.name for d in allowed)
        raise TypeError(f"{op_name}: {what} is {dtype.name}; allowed dtypes: {names}")


def broadcast_shapes(a: Sequence[Expr], b: Sequence[Expr], op_name: str) -> tuple[Expr, ...]:
    """Right-aligned numpy-style broadcasting of two shapes (a dynamic dim matches anything equal)."""
    from pypto_core.ir.structural import structural_equal

    out: list[Expr] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else None
        y = b[-i] if i <= len(b) else None
        if x is None:
            out.append(y)  # type: ignore[arg-type]
            continue
        if y is None:
            out.append(x)
            continue
        sx, sy = static_int(x), static_int(y)
        if sx == 1 and sy != 1:
            out.append(y)
        elif sy == 1:
            out.append(x)
        elif sx is not None and sy is not None and sx != sy:
            raise TypeError(f"{op_name}: shapes {_shape_text(a)} and {_shape_text(b)} do not broadcast")
        elif sx is None and sy is None and not structural_equal(x, y):
            raise TypeError(f"{op_name}: dynamic dims of {_shape_text(a)} and {_shape_text(b)} may differ")
        else:
            out.append(x if sx is not None or sy is None else y)
    return tuple(reversed(out))


def _shape_text(dims: Sequence[Expr]) -> str:
    parts = []
    for d in dims:
        v = static_int(d)
        parts.append(str(v) if v is not None else getattr(d, "name_hint", "?"))
    return "[" + ", ".join(parts) + "]"


shape_text = _shape_text


def retype_literal(operand: Expr, dtype: DataType) -> Expr:
    """A literal scalar operand of a tile/tensor op whose elements are `dtype` (docs/plugins.md, OpDef fields).

    An int literal (an INDEX ConstInt) on an integer operand takes its dtype (`pl.const(2, pl.INT32)`);
    a float literal stays an FP32 constant, printed bare and never re-typed, so a tensor op promotes
    with FP32 (`pl.add(x_fp16, 1.0)` is FP32). Typed constants and scalar Vars are kept. PyPTO's reference is
    silent on an int literal on a float operand: it becomes a float constant of that dtype, as before.
    """
    if isinstance(operand, ConstInt) and operand.type.dtype is DataType.INDEX:
        span = dtype.int_range()
        if span is not None:
            low, high = span
            if not low <= operand.value <= high:
                raise ValueError(f"the literal {operand.value} does not fit the operand's dtype {dtype.name} "
                                 f"({low}..{high})")
            return ConstInt(operand.value, dtype, operand.span)
        if dtype.is_float():
            return ConstFloat(float(operand.value), dtype, operand.span)
    return operand


# -- operand checks used by type deducers ---------------------------------------------------------
def require_tile(op_name: str, e: Expr, what: str) -> TileType:
    if not isinstance(e.type, TileType):
        raise TypeError(f"{op_name}: {what} must be a tile, got {_describe(e)}")
    return e.type


def require_tensor(op_name: str, e: Expr, what: str) -> TensorType:
    if not isinstance(e.type, TensorType):
        raise TypeError(f"{op_name}: {what} must be a tensor, got {_describe(e)}")
    return e.type


def require_scalar(op_name: str, e: Expr, what: str) -> ScalarType:
    if not isinstance(e.type, ScalarType):
        raise TypeError(f"{op_name}: {what} must be a scalar, got {_describe(e)}")
    return e.type


def require_rank(op_name: str, dims: Sequence[Expr], rank: int, what: str) -> None:
    if len(dims) != rank:
        raise TypeError(f"{op_name}: {what} must be {rank}-D, got {len(dims)}-D {shape_text(dims)}")


def same_dim(a: Expr, b: Expr) -> bool:
    """Two dims are known equal: equal constants, or the same expression."""
    from pypto_core.ir.structural import structural_equal

    sa, sb = static_int(a), static_int(b)
    if sa is not None or sb is not None:
        return sa == sb
    return structural_equal(a, b)


def check_window(op_name: str, verb: str, offsets: Sequence[Expr], extents: Sequence[Expr],
                 limits: Sequence[Expr], noun: str) -> None:
    """ValueError when a static window runs past a static extent (leading dims may be implicit 1s).

    The message names the dimension and the numbers, e.g. "tile.store writes past the end of
    dimension 0: offset 16 + extent 127 exceeds the target extent 128".
    """
    lead = len(limits) - len(extents)
    for dim, off in enumerate(offsets):
        if dim >= len(limits):
            break
        ext = extents[dim - lead] if dim >= lead else None
        o, e, limit = static_int(off), static_int(ext), static_int(limits[dim])
        if o is not None and o < 0:
            raise ValueError(f"{op_name}: offset {o} of dimension {dim} is negative")
        if verb == "reads" and e == 0:
            # A window of no element has no tile form (the hardware asserts positive extents).
            raise ValueError(f"{op_name} reads an empty window: extent 0 in dimension {dim}; give every "
                             f"dimension at least one element")
        if o is not None and e is not None and limit is not None and o + e > limit:
            raise ValueError(f"{op_name} {verb} past the end of dimension {dim}: offset {o} + extent {e} "
                             f"exceeds the {noun} extent {limit}; use a smaller offset or window")


def ceil_half(dim: Expr) -> Expr:
    """The lane box of a split axis: (n + 1) // 2 for a constant, n // 2 for a dynamic dim."""
    from pypto_core.ir.scalar_ops import floordiv

    n = static_int(dim)
    if n is not None:
        return ConstInt((n + 1) // 2, dim.type.dtype, dim.span)
    return floordiv(dim, 2)


def ceil_half_extent(extent: Expr) -> Expr:
    """A valid extent halved the way a lane sees it: ceil(v / 2), also when v is dynamic."""
    from pypto_core.ir.scalar_ops import add, floordiv

    v = static_int(extent)
    if v is not None:
        return ConstInt((v + 1) // 2, extent.type.dtype, extent.span)
    return floordiv(add(extent, 1), 2)


def dims_product(dims: Sequence[Expr]) -> Expr:
    """The product of dims, folded when they are constants (an INDEX 1 for no dims)."""
    from pypto_core.ir.scalar_ops import mul

    out: Expr = ConstInt(1)
    for d in dims:
        a, b = static_int(out), static_int(d)
        out = ConstInt(a * b) if a is not None and b is not None else (
            d if a == 1 else out if b == 1 else mul(out, d))
    return out


def dims_sum(terms: Sequence[Expr]) -> Expr:
    """The sum of index terms, folded when they are constants (an INDEX 0 for none)."""
    from pypto_core.ir.scalar_ops import add

    out: Expr = ConstInt(0)
    for t in terms:
        a, b = static_int(out), static_int(t)
        out = ConstInt(a + b) if a is not None and b is not None else (t if a == 0 else add(out, t))
    return out


def merged_2d(dims: Sequence[Expr]) -> list[Expr]:
    """N-D dims (N > 2) as 2-D: the leading dims merged into rows, the last kept (FlattenTileNdTo2D)."""
    if len(dims) <= 2:
        return list(dims)
    return [dims_product(dims[:-1]), dims[-1]]


def flat_valid(shape: Sequence[Expr], valid: Sequence[Expr]) -> list[Expr]:
    """N-D valid extents as 2-D rows. The valid rows must be a row-major prefix of the merged rows: every
    leading dim after the one partly valid is whole, every one before it holds one index (`[1, v, 64]` of a
    `[1, 16, 64]` tile is `[v, 64]`); anything else is no rectangle once the leading dims merge."""
    if len(shape) <= 2:
        return list(valid)
    partial = [i for i in range(len(shape) - 1) if not same_dim(valid[i], shape[i])]
    j = partial[-1] if partial else 0
    for i in range(j):
        if static_int(valid[i]) != 1:
            raise ValueError(f"the valid region {shape_text(valid)} of a {shape_text(shape)} tile is not whole "
                             f"rows once the leading dims merge (dim {j} is only partly valid)")
    return [dims_product([valid[j], *shape[j + 1:-1]]), valid[-1]]


def doubled(dim: Expr) -> Expr:
    from pypto_core.ir.scalar_ops import mul

    n = static_int(dim)
    if n is not None:
        return ConstInt(2 * n, dim.type.dtype, dim.span)
    return mul(dim, 2)


# -- DSL argument conversions ------------------------------------------------------------------------
def operand_kind(value: Any) -> str:
    """'Tensor', 'Tile', 'Scalar' (literals included) or the type's name: for dispatch and messages."""
    if isinstance(value, Expr):
        t = value.type
        if isinstance(t, TensorType):
            return "Tensor"
        if isinstance(t, TileType):
            return "Tile"
        if isinstance(t, ScalarType):
            return "Scalar"
        return type(t).__name__
    if isinstance(value, (int, float)) or isinstance(value, enum.Enum):
        return "Scalar"
    return type(value).__name__


def reject_tensor_tile_mix(*values: Any) -> None:
    kinds = [operand_kind(v) for v in values]
    if "Tensor" in kinds and "Tile" in kinds:
        raise TypeError(f"cannot mix Tensor and Tile arguments ({', '.join(kinds)}); load the tensor into a "
                        f"tile first (pl.load) or store the tile into a tensor (pl.store)")


def to_enum_int(value: Any, enum_cls: type[enum.Enum], what: str) -> int:
    """An enum-valued kwarg stored as int: accepts the member, its name or its int value."""
    if isinstance(value, enum_cls):
        return int(value.value)
    if isinstance(value, str):
        for member in enum_cls:
            if member.name.lower().rstrip("_") == value.lower().rstrip("_"):
                return int(member.value)
        names = ", ".join(repr(m.name) for m in enum_cls)
        raise ValueError(f"{what} must be one of {names}, got {value!r}")
    if isinstance(value, (int, ConstInt)) and not isinstance(value, bool):
        v = to_int(value, what)
        if v in {int(m.value) for m in enum_cls}:
            return v
        raise ValueError(f"{what} must be one of {sorted(int(m.value) for m in enum_cls)}, got {v}")
    raise TypeError(f"{what} must be a {enum_cls.__name__}, got {_describe(value)}")


def to_dtype(value: Any, what: str = "dtype") -> DataType:
    if isinstance(value, DataType):
        return value
    raise TypeError(f"{what} must be a dtype such as pl.FP32, got {_describe(value)}")


def optional_tuple(values: Any, span: Span | None = None) -> MakeTuple | None:
    return None if values is None else to_tuple(values, span)


def int_list(values: Any, what: str) -> tuple[int, ...]:
    """A list of compile-time ints (a kwarg such as `shape=[64, 128]`) as a tuple."""
    if isinstance(values, MakeTuple):
        values = values.elements
    if isinstance(values, (int, ConstInt)) and not isinstance(values, bool):
        values = [values]
    if not isinstance(values, (list, tuple)):
        raise TypeError(f"{what} must be a list of integers, got {_describe(values)}")
    return tuple(to_int(v, what) for v in values)


def dsl_entry(fn: Any) -> Any:
    """Wrap a DSL function / IR builder so that a bad call says what is wrong and how to fix it.

    The parser binds the call against the wrapper (which accepts anything) and turns the TypeError
    raised here into `InvalidOperationError("pl.<op>: ...")`; unknown keywords get a "did you mean".
    """
    import difflib
    import inspect

    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.name != "span"]
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    # A builder may take `span` positionally (T.store(tile, offs, out, None, span)).
    max_positional = sum(1 for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    keywords = [p.name for p in params if p.kind is not p.VAR_POSITIONAL and p.kind is not p.VAR_KEYWORD]
    open_kwargs = any(p.kind is p.VAR_KEYWORD for p in params)
    open_args = any(p.kind is p.VAR_POSITIONAL for p in params)

    def call(*args: Any, **kwargs: Any) -> Any:
        limit = len(positional) if "span" in kwargs else max_positional
        if not open_args and len(args) > limit:
            raise TypeError(f"takes at most {len(positional)} positional argument(s) ({', '.join(positional)}), "
                            f"got {len(args)}")
        if not open_kwargs:
            for key in kwargs:
                if key != "span" and key not in keywords:
                    hint = difflib.get_close_matches(key, keywords, n=1)
                    suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
                    raise TypeError(f"{fn.__name__}() got an unexpected keyword argument '{key}' (valid keywords: "
                                    f"{', '.join(keywords) or 'none'}){suggestion}")
        try:
            return fn(*args, **kwargs)
        except TypeError:
            # Only now pay for binding: a call that does not fit the signature gets the signature.
            try:
                sig.bind(*args, **kwargs)
            except TypeError as exc:
                raise TypeError(f"{exc}; expected {fn.__name__}{_signature_text(params)}") from None
            raise

    call.__name__ = fn.__name__
    call.__qualname__ = fn.__qualname__
    call.__doc__ = fn.__doc__
    call.__module__ = fn.__module__
    call.dsl_target = fn  # type: ignore[attr-defined]
    return call


def _signature_text(params: Sequence[Any]) -> str:
    return "(" + ", ".join(str(p) for p in params) + ")"
