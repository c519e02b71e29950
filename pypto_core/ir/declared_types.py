"""Whether a value agrees with the type a function or an annotation declares for it (docs/dsl.md, functions).

The parser compares a `return` with the return annotation while parsing; a pass that adds a caller to a function
(ExpandMixedKernel's Group wrapper) compares again. Both use these rules, so what the parser records as a
mismatch is what a pass refuses.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir import expr as E
from pypto_core.ir import types as T


def dims_compatible(ann: Sequence[E.Expr], inferred: Sequence[E.Expr]) -> bool:
    """Same rank, and every pair of dims equal or not both constant (a pl.dynamic dim may be anything)."""
    if len(ann) != len(inferred):
        return False
    return all(T.dims_equal([a], [b]) or not (isinstance(a, E.ConstInt) and isinstance(b, E.ConstInt))
               for a, b in zip(ann, inferred))


def returned_types(values: Sequence[E.Expr], declared_count: int) -> list[T.Type]:
    """The types a `return` gives: one tuple-typed value (`return self.g(x)`) stands for its elements."""
    types = [v.type for v in values]
    if len(types) == 1 and isinstance(types[0], T.TupleType) and declared_count != 1:
        return list(types[0].types)
    return types


def shaped_value_differs(got: T.Type, want: T.Type) -> bool:
    """A tensor or tile of another dtype or shape than declared (a value of another kind is not this check's)."""
    if not isinstance(got, (T.TensorType, T.TileType)) or type(got) is not type(want):
        return False
    return not (got.dtype is want.dtype and dims_compatible(want.shape, got.shape))  # type: ignore[attr-defined]
