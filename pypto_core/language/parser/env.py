"""Name resolution outside the DSL body: closure values for decorators, static values for text.

Text is never executed (API.md 2.12): module-level literal assignments, `pl.dynamic("M")` bindings
and imports of pypto modules are read from the AST; anything else is simply not resolvable.
"""

from __future__ import annotations

import ast
import importlib
import operator
from collections.abc import Mapping
from typing import Any

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

    # Annotations are evaluated when a method is defined: arithmetic on a dim must not fail there.
    def _absorb(self, *_: Any) -> RuntimeDimExpr:
        return RuntimeDimExpr()

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _absorb
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __truediv__ = __rtruediv__ = _absorb
    __pow__ = __rpow__ = __lshift__ = __rlshift__ = __rshift__ = __rrshift__ = _absorb
    __and__ = __rand__ = __or__ = __ror__ = __xor__ = __rxor__ = _absorb
    __neg__ = __pos__ = __abs__ = __invert__ = _absorb


class RuntimeDimExpr(DynamicDim):
    """An arithmetic combination of dynamic dims seen at run time (only the AST matters)."""

    __slots__ = ()

    def __init__(self) -> None:
        self.name = "<expr>"

    def __repr__(self) -> str:
        return "<dynamic dim expression>"


class Env:
    """Maps Python names to values (closure, module globals, or statically read module constants)."""

    def __init__(self, scopes: list[Mapping[str, Any]]) -> None:
        self.scopes = scopes

    def lookup(self, name: str) -> Any:
        for scope in self.scopes:
            if name in scope:
                return scope[name]
        return _MISSING

    def has(self, name: str) -> bool:
        return self.lookup(name) is not _MISSING


MISSING = _MISSING

_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
           ast.Mod: operator.mod, ast.Div: operator.truediv, ast.Pow: operator.pow, ast.LShift: operator.lshift,
           ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
           ast.BitXor: operator.xor}


def static_value(node: ast.AST, env: Env) -> Any:
    """Evaluate literals, names bound to constants, and arithmetic/attribute access on them; else MISSING."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env.lookup(node.id)
    if isinstance(node, ast.Attribute):
        base = static_value(node.value, env)
        if base is _MISSING or not _safe_attribute_base(base):
            return _MISSING
        return getattr(base, node.attr, _MISSING)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = static_value(node.operand, env)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
        return _MISSING
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        a, b = static_value(node.left, env), static_value(node.right, env)
        if _number(a) and _number(b):
            try:
                return _BINOPS[type(node.op)](a, b)
            except (ArithmeticError, ValueError):
                return _MISSING
        return _MISSING
    if isinstance(node, ast.Compare):
        return _static_compare(node, env)
    if isinstance(node, ast.BoolOp):
        values = [static_value(v, env) for v in node.values]
        if any(v is _MISSING or not isinstance(v, (bool, int, float)) for v in values):
            return _MISSING
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = static_value(node.operand, env)
        return _MISSING if v is _MISSING or not isinstance(v, (bool, int, float)) else not v
    if isinstance(node, (ast.Tuple, ast.List)):
        items = [static_value(e, env) for e in node.elts]
        if any(i is _MISSING for i in items):
            return _MISSING
        return tuple(items) if isinstance(node, ast.Tuple) else items
    return _MISSING


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


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _safe_attribute_base(base: Any) -> bool:
    """Attribute access is only followed on our own modules and classes (never user objects)."""
    import enum
    import types

    if isinstance(base, types.ModuleType):
        return base.__name__.split(".")[0] in ("pypto", "pypto_core")
    if isinstance(base, type):
        return issubclass(base, enum.Enum) or base.__module__.split(".")[0] in ("pypto", "pypto_core")
    return False


def text_module_env(tree: ast.Module) -> Env:
    """Names a text module binds at its top level, read without executing it."""
    values: dict[str, Any] = {}
    env = Env([values])
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name.split(".")[0] != "pypto":
                    continue
                module = _import(alias.name)
                if module is None:
                    continue
                if alias.asname:
                    values[alias.asname] = module
                else:
                    values[alias.name.split(".")[0]] = _import("pypto")
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.module.split(".")[0] == "pypto":
            module = _import(stmt.module)
            if module is None:
                continue
            for alias in stmt.names:
                value = getattr(module, alias.name, _MISSING)
                if value is _MISSING:
                    value = _import(f"{stmt.module}.{alias.name}") or _MISSING
                if value is not _MISSING:
                    values[alias.asname or alias.name] = value
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if stmt.value is None or len(targets) != 1 or not isinstance(targets[0], ast.Name):
                continue
            value = _dynamic_dim(stmt.value, env)
            if value is _MISSING:
                value = static_value(stmt.value, env)
            if value is not _MISSING:
                values[targets[0].id] = value
    # A printed Function (API.md 8.3) has no import line; `pl` still means the DSL there.
    if "pl" not in values:
        values["pl"] = _import("pypto.language")
    return env


def _dynamic_dim(node: ast.AST, env: Env) -> Any:
    """`M = pl.dynamic("M")` at module level."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return _MISSING
    fn = static_value(node.func, env)
    from pypto_core.language import runtime

    if fn is not runtime.dynamic:
        return _MISSING
    name = static_value(node.args[0], env)
    if not isinstance(name, str):
        return _MISSING
    return DynamicDim(name)


def _import(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
