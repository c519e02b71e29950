"""Python subscripts on tensors and tiles (docs/dsl.md, scopes; docs/reference/ops.md, `tensor.slice` / `tile.slice`).

`t[:, 0:HALF]` builds what `pl.slice(t, [rows, HALF], [0, 0])` builds (`tensor.slice` or `tile.slice` by
operand); an integer index keeps extent 1 and drops the axis, numpy-style, as
`pl.slice(t, [1, 128], [i, 0], drop_dims=[0])` does. `out[0:16, 0:128] = x` and `out[:] = x` become
`out = pl.assemble(out, x, offsets)` (stmts.py); a window that writes both bounds is checked against
`x` when both extents are known (a narrower window fits when x's valid extent is the window's or dynamic:
the assemble moves x's valid region). A missing bound is the axis start or end, `...` stands for the axes not written, and only
step 1 is allowed: the ops take a window, not a stride.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import scalar_ops
from pypto_core.ir import types as T
from pypto_core.language.parser.annotations import TypeParser
from pypto_core.language.parser.errors import ParserSyntaxError, ParserTypeError, UnsupportedFeatureError

_CONST = ""  # the constant term's key in a linear form
_DIM = "<axis extent>"  # the key of the sliced axis's own (dynamic) extent


def _valid_extents(t: Any, shape: Any) -> Any:
    """A tensor's or tile's valid extents (its shape when its view declares none)."""
    view = t.tensor_view if isinstance(t, T.TensorType) else t.tile_view
    valid = getattr(view, "valid_shape", None)
    return valid if valid and len(valid) == len(shape) else shape


@dataclass
class Window:
    """The part of a tensor or tile a subscript selects."""

    offsets: list[Any] = field(default_factory=list)  # int or scalar Expr, one per axis
    extents: list[Any] = field(default_factory=list)  # int or scalar Expr, one per axis
    indexed: list[int] = field(default_factory=list)  # axes given by a plain index (extent 1)
    bounded: list[int] = field(default_factory=list)  # axes whose slice writes both bounds (`0:16`)


class SliceParser(TypeParser):
    # Provided by the expression parser.
    def to_expr(self, value: Any, node: ast.AST, what: str = "an expression") -> E.Expr:  # pragma: no cover
        raise NotImplementedError

    def call_dsl(self, path: str, node: ast.Call, args: list[Any] | None = None,
                 kwargs: dict[str, Any] | None = None) -> E.Expr:  # pragma: no cover - mixin contract
        raise NotImplementedError

    def slice_value(self, base: E.Expr, node: ast.Subscript) -> E.Expr:
        """`t[:, 0:HALF]` / `t[i, 0:64]` as the `pl.slice(...)` call that spells the same window."""
        window = self.window(base, node)
        if len(window.indexed) == len(window.offsets):
            self.fail(UnsupportedFeatureError, f"'{ast.unparse(node)}' indexes every axis: reading one element "
                                               f"is not a slice", node,
                      hint=f"read it with pl.read({ast.unparse(node.value)}, [...])")
        kwargs = {"drop_dims": list(window.indexed)} if window.indexed else {}
        return self.call_dsl("slice", node, [base, window.extents, window.offsets], kwargs)  # type: ignore[arg-type]

    def window(self, base: E.Expr, node: ast.Subscript) -> Window:
        shape = list(T.shape_of(base.type))
        out = Window()
        for axis, item in enumerate(self._index_items(node, len(shape))):
            if isinstance(item, ast.Slice):
                offset, extent = self._slice_axis(item, shape[axis], axis, node)
                if item.upper is not None:
                    out.bounded.append(axis)
            else:
                offset, extent = self._bound(item, shape[axis]), 1
                out.indexed.append(axis)
            out.offsets.append(offset)
            out.extents.append(extent)
        return out

    def check_window_fits(self, window: Window, src: E.Expr, node: ast.Subscript) -> None:
        """`out[0:16, 0:64] = x`: where the window writes both bounds and its extent and x's static dim are
        known and differ, x's valid extent on that axis must be dynamic or the window's: the assemble moves
        x's valid region (`out[:] = x` and `out[16:, :] = x` only place x, as PyPTO's desugaring does)."""
        src_shape = T.shape_of(src.type) if isinstance(src.type, (T.TensorType, T.TileType)) else ()
        if len(src_shape) != len(window.extents):
            return  # the assemble op reports a rank mismatch
        valid = _valid_extents(src.type, src_shape)
        for axis, (extent, dim) in enumerate(zip(window.extents, src_shape)):
            if axis not in window.bounded or not isinstance(extent, int) or not isinstance(dim, E.ConstInt):
                continue
            if extent != dim.value and isinstance(valid[axis], E.ConstInt) and valid[axis].value != extent:
                self.fail(ParserTypeError, f"Subscript-write shape mismatch on source axis {axis}: window expects "
                                           f"{extent} elements, source has {dim.value}", node,
                          hint=f"'{ast.unparse(node)}' writes {extent} element(s) on axis {axis}: make the window "
                               f"as large as the value (or its valid extent), or leave out its end "
                               f"('out[16:, ...] = x')")

    # -- items ------------------------------------------------------------------------------------------
    def _index_items(self, node: ast.Subscript, rank: int) -> list[ast.AST]:
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        dots = [i for i, it in enumerate(items) if isinstance(it, ast.Constant) and it.value is Ellipsis]
        if len(dots) > 1:
            self.fail(ParserSyntaxError, "a subscript can hold at most one '...'", node)
        full = [ast.copy_location(ast.Slice(), node) for _ in range(rank)]
        if dots:
            items[dots[0]:dots[0] + 1] = full[:max(rank - len(items) + 1, 0)]
        if len(items) > rank:
            self.fail(ParserSyntaxError, f"'{ast.unparse(node)}' has {len(items)} indices for a {rank}-D value",
                      node)
        return items + full[:rank - len(items)]

    def _slice_axis(self, item: ast.Slice, dim: E.Expr, axis: int, node: ast.Subscript) -> tuple[Any, Any]:
        if item.step is not None and self.parse_value(item.step) != 1:
            self.fail(UnsupportedFeatureError, f"slice steps are not supported ('{ast.unparse(item)}')", item,
                      hint="slices select a window; use step 1")
        lower, lower_form = self._bound_form(item.lower, dim, at_end=False)
        upper, upper_form = self._bound_form(item.upper, dim, at_end=True)
        extent = self._extent(lower, lower_form, upper, upper_form, dim, item)
        if isinstance(extent, int):
            if extent <= 0:
                self.fail(ParserSyntaxError, f"'{ast.unparse(item)}' selects nothing on axis {axis}", item)
            if isinstance(dim, E.ConstInt) and isinstance(upper, int) and upper > dim.value:
                self.fail(ParserSyntaxError, f"'{ast.unparse(item)}' runs past the end of axis {axis} of "
                                             f"'{ast.unparse(node.value)}' (extent {dim.value})", item)
        return lower, extent

    def _bound_form(self, node: ast.AST | None, dim: E.Expr, at_end: bool) -> tuple[Any, dict[str, int] | None]:
        """A slice bound and its linear form; a missing bound is the axis start or end."""
        if node is None:
            if not at_end:
                return 0, {_CONST: 0}
            if isinstance(dim, E.ConstInt):
                return dim.value, {_CONST: dim.value}
            return dim, {_DIM: 1}
        value = self._bound(node, dim)
        if isinstance(value, int):
            return value, {_CONST: value}
        raw = self.outside_static(node)
        if isinstance(raw, int) and not isinstance(raw, bool) and raw < 0:  # counted from a dynamic end
            return value, {_DIM: 1, _CONST: raw}
        return value, self._linear(node)

    def _bound(self, node: ast.AST, dim: E.Expr) -> Any:
        """A bound or index: a Python int (negative counts from the end, numpy-style) or a scalar Expr."""
        value = self.parse_value(node)
        if isinstance(value, int) and not isinstance(value, bool):
            if value >= 0:
                return value
            if isinstance(dim, E.ConstInt):
                return dim.value + value
            return scalar_ops.sub(dim, -value, self.span(node))
        expr = self.to_expr(value, node, "a slice bound")
        if not isinstance(expr.type, T.ScalarType) or not expr.type.dtype.is_index_like():
            self.fail(ParserTypeError, f"a slice bound must be an integer scalar, got '{ast.unparse(node)}' of "
                                       f"type {expr.type}", node)
        return expr

    def _extent(self, lower: Any, lower_form: dict[str, int] | None, upper: Any,
                upper_form: dict[str, int] | None, dim: E.Expr, item: ast.Slice) -> Any:
        """upper - lower: an int when the bounds differ by a constant (`k:k + 64`, `i * 64:(i + 1) * 64`),
        the axis extent for a whole dynamic axis, else the scalar expression."""
        if isinstance(lower, int) and isinstance(upper, int):
            return upper - lower
        difference = _subtract(upper_form, lower_form)
        if difference is not None and set(difference) <= {_CONST}:
            return difference.get(_CONST, 0)
        if difference == {_DIM: 1}:
            return dim
        if isinstance(lower, int) and lower == 0:
            return upper
        return scalar_ops.sub(upper, lower, self.span(item))

    def _linear(self, node: ast.AST | None) -> dict[str, int] | None:
        """`node` as {term: coefficient} over its non-constant parts, or None when it is not linear."""
        if node is None:
            return {_CONST: 0}
        value = self.outside_static(node) if not isinstance(node, ast.Constant) else node.value
        if isinstance(value, int) and not isinstance(value, bool):
            return {_CONST: value}
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self._linear(node.operand)
            return None if inner is None else {k: -v for k, v in inner.items()}
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            left, right = self._linear(node.left), self._linear(node.right)
            if left is None or right is None:
                return None
            sign = 1 if isinstance(node.op, ast.Add) else -1
            return _combine(left, right, sign)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            left, right = self._linear(node.left), self._linear(node.right)
            if left is None or right is None:
                return None
            for factor, other in ((left, right), (right, left)):
                if set(factor) == {_CONST}:
                    return {k: v * factor[_CONST] for k, v in other.items()}
        return {ast.dump(node): 1}


def _combine(a: dict[str, int], b: dict[str, int], sign: int) -> dict[str, int]:
    out = dict(a)
    for k, v in b.items():
        out[k] = out.get(k, 0) + sign * v
    return out


def _subtract(upper: dict[str, int] | None, lower: dict[str, int] | None) -> dict[str, int] | None:
    """upper - lower with the zero terms dropped (the constant too), or None when either is not linear."""
    if upper is None or lower is None:
        return None
    return {k: v for k, v in _combine(upper, lower, -1).items() if v}


def _dim_value(dim: E.Expr) -> Any:
    return dim.value if isinstance(dim, E.ConstInt) else dim
