"""Name resolution outside the DSL body: closure values for decorators, static values for text.

`static_value` evaluates an expression from its AST and an `Env` without calling anything the text
defines (docs/dsl.md); `module_constants` uses it to read a text file's module-level constants.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pypto_core.ir import scalar_ops

_MISSING = object()


class DynamicDim:
    """What `pl.dynamic("M")` returns at run time: a named symbolic dimension."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"pl.dynamic needs an identifier name, got {name!r}")
        self.name = name

    def __repr__(self) -> str:
        return f"pl.dynamic({self.name!r})"


class RuntimeDimExpr(DynamicDim):
    """Arithmetic on dynamic dims done in Python (`K = M * 2` before the decorator, or an annotation
    evaluated when a method is defined): the operation is recorded so the parser can rebuild it as an IR
    expression. `build` is a `pypto_core.ir.scalar_ops` builder; None means the parser cannot rebuild it."""

    __slots__ = ("build", "operands")

    def __init__(self, build: Callable[..., Any] | None = None, operands: tuple[Any, ...] = ()) -> None:
        self.name = "<expr>"
        self.build = build
        self.operands = operands

    def __repr__(self) -> str:
        if self.build is None:
            return "<dynamic dim expression>"
        return f"{self.build.__name__}({', '.join(map(repr, self.operands))})"


def _recording(op: str, reflected: bool = False) -> Callable[..., RuntimeDimExpr]:
    # Annotations are evaluated when a method is defined: arithmetic on a dim must not fail there.
    def method(self: DynamicDim, other: Any) -> RuntimeDimExpr:
        return RuntimeDimExpr(getattr(scalar_ops, op), (other, self) if reflected else (self, other))

    return method


def _recording_unary(op: str) -> Callable[..., RuntimeDimExpr]:
    def method(self: DynamicDim) -> RuntimeDimExpr:
        return RuntimeDimExpr(getattr(scalar_ops, op), (self,))

    return method


_DIM_BINOPS = {"add": "add", "sub": "sub", "mul": "mul", "floordiv": "floordiv", "mod": "mod",
               "truediv": "truediv", "pow": "pow", "lshift": "bit_shift_left", "rshift": "bit_shift_right",
               "and": "bit_and", "or": "bit_or", "xor": "bit_xor"}
for _py, _op in _DIM_BINOPS.items():
    setattr(DynamicDim, f"__{_py}__", _recording(_op))
    setattr(DynamicDim, f"__r{_py}__", _recording(_op, reflected=True))
for _py, _op in {"neg": "neg", "abs": "abs_", "invert": "bit_not"}.items():
    setattr(DynamicDim, f"__{_py}__", _recording_unary(_op))
DynamicDim.__pos__ = lambda self: self  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Unresolved:
    """A module-level name of a text file whose value cannot be read without running the file."""

    name: str
    reason: str  # completes "'N' is ...", e.g. "computed by calling 'make(...)'"
    line: int
    type_name: str | None = None  # the Python type, when the value is a literal of an unsupported one


class Env:
    """Maps Python names to values (closure, module globals, or statically read module constants).

    `unresolved` names the text path saw assigned but could not evaluate (docs/dsl.md, the text path): using one is a
    located error that says why, instead of "undefined"."""

    def __init__(self, scopes: list[Mapping[str, Any]], unresolved: Mapping[str, Unresolved] | None = None) -> None:
        self.scopes = scopes
        self.unresolved: Mapping[str, Unresolved] = unresolved if unresolved is not None else {}

    def lookup(self, name: str) -> Any:
        for scope in self.scopes:
            if name in scope:
                return scope[name]
        return _MISSING

    def has(self, name: str) -> bool:
        return self.lookup(name) is not _MISSING

    def overlay(self, scope: Mapping[str, Any]) -> Env:
        """This environment with `scope` searched first (a function body's parse-time constants)."""
        return Env([scope, *self.scopes], self.unresolved)


MISSING = _MISSING

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod, ast.Div: operator.truediv, ast.Pow: operator.pow, ast.LShift: operator.lshift,
           ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor}
# Folding reads the text, it does not run it: a folded sequence or integer stays this small, so that
# `2 ** 10 ** 9` or `[0] * 10 ** 9` in a file is left unevaluated instead of hanging the parser.
SIZE_LIMIT = 1 << 16
_SEQUENCES = (list, tuple, str)


def static_value(node: ast.AST, env: Env) -> Any:
    """Evaluate literals, names bound to constants, and arithmetic, indexing and attribute access on them;
    else MISSING. Nothing the text defines is ever called."""
    handler = _STATIC.get(type(node))
    return handler(node, env) if handler is not None else _MISSING


def _static_constant(node: ast.Constant, env: Env) -> Any:
    return node.value


def _static_name(node: ast.Name, env: Env) -> Any:
    return env.lookup(node.id)


def _static_attribute(node: ast.Attribute, env: Env) -> Any:
    base = static_value(node.value, env)
    if base is _MISSING or not _safe_attribute_base(base):
        return _MISSING
    return getattr(base, node.attr, _MISSING)


def _static_unary(node: ast.UnaryOp, env: Env) -> Any:
    v = static_value(node.operand, env)
    if isinstance(node.op, ast.Not):
        return _MISSING if v is _MISSING or not isinstance(v, (bool, int, float)) else not v
    if isinstance(node.op, (ast.USub, ast.UAdd)) and (_number(v) or isinstance(v, DynamicDim)):
        return -v if isinstance(node.op, ast.USub) else v
    return _MISSING


def _static_binop(node: ast.BinOp, env: Env) -> Any:
    return fold_binop(type(node.op), static_value(node.left, env), static_value(node.right, env))


def fold_binop(op: type[ast.operator], a: Any, b: Any) -> Any:
    """`a <op> b` on Python constants: numbers, pl.dynamic dims (recorded), and `+` / `*` on lists,
    tuples and strings; MISSING for anything else or a result past SIZE_LIMIT."""
    fn = _BINOPS.get(op)
    if fn is None or a is _MISSING or b is _MISSING:
        return _MISSING
    if _number(a) and _number(b):
        if not _small_result(op, a, b):
            return _MISSING
        try:
            value = fn(a, b)
        except (ArithmeticError, ValueError):
            return _MISSING
        return _MISSING if isinstance(value, complex) else value
    if isinstance(a, DynamicDim) or isinstance(b, DynamicDim):
        operands_ok = all(_number(v) or isinstance(v, DynamicDim) for v in (a, b))
        return fn(a, b) if operands_ok else _MISSING
    return _fold_sequences(op, a, b)


def fold_failure(op: type[ast.operator], a: Any, b: Any) -> str:
    """Why `fold_binop(op, a, b)` gave MISSING, found without building a huge result."""
    fn = _BINOPS.get(op)
    if fn is None:
        return "the operator is not supported"
    if _number(a) and _number(b):
        if not _small_result(op, a, b):
            return f"the result would be larger than {SIZE_LIMIT} bits"
        try:
            value = fn(a, b)
        except (ArithmeticError, ValueError) as exc:
            return str(exc)
        if isinstance(value, complex):
            return "the result is not a real number (a negative base to a fractional power)"
    return (f"it does not apply to a {type(a).__name__} and a {type(b).__name__}, or the result would be larger "
            f"than {SIZE_LIMIT} elements")


def _small_result(op: type[ast.operator], a: Any, b: Any) -> bool:
    if op is ast.Pow and isinstance(a, int) and isinstance(b, int) and b > 0 and abs(a) > 1:
        return b * a.bit_length() <= SIZE_LIMIT
    if op is ast.LShift and isinstance(b, int):
        return b <= SIZE_LIMIT
    return True


def _fold_sequences(op: type[ast.operator], a: Any, b: Any) -> Any:
    if op is ast.Add and type(a) is type(b) and type(a) in _SEQUENCES:
        return a + b if len(a) + len(b) <= SIZE_LIMIT else _MISSING
    if op is ast.Mult:
        seq, count = (a, b) if type(a) in _SEQUENCES else (b, a)
        if type(seq) in _SEQUENCES and type(count) is int and len(seq) * max(count, 0) <= SIZE_LIMIT:
            return seq * count
    return _MISSING


def _static_boolop(node: ast.BoolOp, env: Env) -> Any:
    values = [static_value(v, env) for v in node.values]
    if any(v is _MISSING or not isinstance(v, (bool, int, float)) for v in values):
        return _MISSING
    return all(values) if isinstance(node.op, ast.And) else any(values)


def _static_sequence(node: ast.Tuple | ast.List, env: Env) -> Any:
    items: list[Any] = []
    for elt in node.elts:
        if isinstance(elt, ast.Starred):  # `[*SHAPE, 4]`
            inner = static_value(elt.value, env)
            if type(inner) not in (list, tuple):
                return _MISSING
            items.extend(inner)
            continue
        value = static_value(elt, env)
        if value is _MISSING:
            return _MISSING
        items.append(value)
    return tuple(items) if isinstance(node, ast.Tuple) else items


def _static_subscript(node: ast.Subscript, env: Env) -> Any:
    """`SHAPE[0]`, `BUFS[i % 2]`, `SHAPE[1:]` on a list, tuple or string constant."""
    base = static_value(node.value, env)
    if type(base) not in _SEQUENCES:
        return _MISSING
    index = _static_index(node.slice, env)
    if index is _MISSING:
        return _MISSING
    try:
        return base[index]
    except (IndexError, TypeError):
        return _MISSING


def _static_index(node: ast.AST, env: Env) -> Any:
    """An integer or a `slice` with integer bounds, or MISSING."""
    if isinstance(node, ast.Slice):
        parts = [static_value(p, env) if p is not None else None for p in (node.lower, node.upper, node.step)]
        if any(p is not None and not _int(p) for p in parts):
            return _MISSING
        return slice(*parts)
    value = static_value(node, env)
    return value if _int(value) else _MISSING


def _static_ifexp(node: ast.IfExp, env: Env) -> Any:
    cond = static_value(node.test, env)
    if cond is _MISSING or not isinstance(cond, (bool, int, float)):
        return _MISSING
    return static_value(node.body if cond else node.orelse, env)


_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}


def _static_compare(node: ast.Compare, env: Env) -> Any:
    """`k > 2`, `0 < k <= 8` on closure numbers (static asserts); anything else is not static."""
    left = static_value(node.left, env)
    for op, right_node in zip(node.ops, node.comparators):
        right = static_value(right_node, env)
        if type(op) not in _COMPARE or not (_number(left) or isinstance(left, bool)) \
                or not (_number(right) or isinstance(right, bool)):
            return _MISSING
        if not _COMPARE[type(op)](left, right):
            return False
        left = right
    return True


_STATIC: dict[type, Callable[[Any, Env], Any]] = {
    ast.Constant: _static_constant, ast.Name: _static_name, ast.Attribute: _static_attribute,
    ast.UnaryOp: _static_unary, ast.BinOp: _static_binop, ast.Compare: _static_compare,
    ast.BoolOp: _static_boolop, ast.Tuple: _static_sequence, ast.List: _static_sequence,
    ast.Subscript: _static_subscript, ast.IfExp: _static_ifexp,
}


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _safe_attribute_base(base: Any) -> bool:
    """Attribute access is only followed on our own modules, classes and op namespaces (`pl.tile`), never
    on user objects."""
    import enum
    import types

    from pypto_core.language.dsl_modules import is_own_class, is_own_module
    from pypto_core.language.runtime import OpNamespace

    if isinstance(base, OpNamespace):
        return True
    if isinstance(base, types.ModuleType):
        return is_own_module(base)
    if isinstance(base, type):
        return issubclass(base, enum.Enum) or is_own_class(base)
    return False


def dynamic_dim_call(node: ast.AST, env: Env) -> Any:
    """`pl.dynamic("M")` (read, not called), or MISSING."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return _MISSING
    fn = static_value(node.func, env)
    from pypto_core.language import runtime

    if fn is not runtime.dynamic:
        return _MISSING
    name = static_value(node.args[0], env)
    if not isinstance(name, str) or not name.isidentifier():
        return _MISSING
    return DynamicDim(name)
