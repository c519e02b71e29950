"""Structural equality and hashing (docs/architecture.md, the core), driven by the field roles of each node class.

* Definition sites (Def fields) map variables 1:1 in both directions after checking their types;
  variables inside a parameter's type (dynamic dims) are mapped while that parameter is defined, and so are
  those inside a function's return types (a dim only the return type names, e.g. `-> pl.Tensor[[M, 16], ...]`
  of a function whose parameters do not use M).
* Uses match through the map, by identity, or (with enable_auto_mapping) by mapping on first sight.
* Ignored fields (spans, names, comments) never take part.
* kwargs and attrs compare as unordered maps with type-sensitive values (1 is not True).
* Integer constants and loop-variable types treat INDEX and INT64 as the same dtype.
* A Function's `"split": 0` (NONE) attr equals an absent one: the printer omits it, so a function
  built with it re-parses without it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.expr import ConstFloat, ConstInt, GlobalVar, IterArg, Op, Var
from pypto_core.ir.function import Function, Program, effective_function_attrs
from pypto_core.ir.node import FieldRole, IRNode
from pypto_core.ir.stmt import ForStmt, SeqStmts
from pypto_core.ir.types import ScalarType


class _Mismatch(Exception):
    def __init__(self, path: str, reason: str, lhs: Any, rhs: Any) -> None:
        super().__init__(reason)
        self.path = path
        self.reason = reason
        self.lhs = lhs
        self.rhs = rhs


def _join(path: str, name: str) -> str:
    return name if not path else f"{path}.{name}"


def _same_const_dtype(a: DataType, b: DataType) -> bool:
    return a is b or (a.is_index_like() and b.is_index_like())


class _Equality:
    def __init__(self, auto_map: bool) -> None:
        self.auto_map = auto_map
        self.l2r: dict[int, Var] = {}
        self.r2l: dict[int, Var] = {}
        self.defining_type = False

    # -- variables -------------------------------------------------------------------------
    def define(self, a: Any, b: Any, path: str, loop_var: bool = False) -> None:
        if not isinstance(a, Var) or not isinstance(b, Var):
            self.value(a, b, path)
            return
        if type(a) is not type(b):
            raise _Mismatch(path, f"variable kinds differ ({type(a).__name__} vs {type(b).__name__})", a, b)
        mapped = self.l2r.get(id(a))
        if mapped is not None:
            if mapped is not b:
                raise _Mismatch(path, f"variable '{a.name_hint}' is already mapped to another variable", a, b)
            return
        if id(b) in self.r2l:
            raise _Mismatch(path, f"variable '{b.name_hint}' is already mapped to another variable", a, b)
        if not (loop_var and self._index_like_scalars(a.type, b.type)):
            saved = self.defining_type
            self.defining_type = True
            try:
                self.node(a.type, b.type, _join(path, "type"))
            finally:
                self.defining_type = saved
        self.l2r[id(a)] = b
        self.r2l[id(b)] = a
        if isinstance(a, IterArg):
            self.value(a.initValue, b.initValue, _join(path, "initValue"))

    @staticmethod
    def _index_like_scalars(ta: Any, tb: Any) -> bool:
        return (isinstance(ta, ScalarType) and isinstance(tb, ScalarType)
                and _same_const_dtype(ta.dtype, tb.dtype))

    def use(self, a: Var, b: Any, path: str) -> None:
        if not isinstance(b, Var):
            raise _Mismatch(path, f"a variable vs a {type(b).__name__}", a, b)
        mapped = self.l2r.get(id(a))
        if mapped is not None:
            if mapped is not b:
                raise _Mismatch(path, f"variable '{a.name_hint}' maps to a different variable", a, b)
            return
        if a is b and id(b) not in self.r2l:
            return
        if (self.auto_map or self.defining_type) and id(b) not in self.r2l and type(a) is type(b):
            self.define(a, b, path)
            return
        raise _Mismatch(path, f"variable '{a.name_hint}' is not mapped to '{b.name_hint}'", a, b)

    # -- values ------------------------------------------------------------------------------
    def value(self, a: Any, b: Any, path: str) -> None:
        if isinstance(a, IRNode) or isinstance(b, IRNode):
            if a is None or b is None:
                raise _Mismatch(path, "one side is None", a, b)
            self.node(a, b, path)
            return
        if isinstance(a, (tuple, list)):
            if not isinstance(b, (tuple, list)):
                raise _Mismatch(path, f"a sequence vs {type(b).__name__}", a, b)
            if len(a) != len(b):
                raise _Mismatch(path, f"length differs ({len(a)} vs {len(b)})", a, b)
            for i, (x, y) in enumerate(zip(a, b)):
                self.value(x, y, f"{path}[{i}]")
            return
        if isinstance(a, Mapping):
            self.mapping(a, b, path)
            return
        if type(a) is not type(b):
            raise _Mismatch(path, f"value types differ ({type(a).__name__} vs {type(b).__name__})", a, b)
        if isinstance(a, float):
            same = a == b or (a != a and b != b)
        else:
            same = a == b
        if not same:
            raise _Mismatch(path, f"values differ ({_show_value(a)} vs {_show_value(b)})", a, b)

    def mapping(self, a: Mapping[Any, Any], b: Any, path: str) -> None:
        if not isinstance(b, Mapping):
            raise _Mismatch(path, f"a map vs {type(b).__name__}", a, b)
        ka, kb = set(a), set(b)
        if ka != kb:
            missing = sorted(map(str, ka - kb))
            extra = sorted(map(str, kb - ka))
            raise _Mismatch(path, f"keys differ (only on lhs: {missing}, only on rhs: {extra})", a, b)
        for key in a:
            self.value(a[key], b[key], f"{path}[{key!r}]")

    def node(self, a: IRNode, b: IRNode, path: str) -> None:
        if a is b and not self.l2r and not self.defining_type:
            return
        if type(a) is not type(b):
            raise _Mismatch(path, f"node kinds differ ({type(a).__name__} vs {type(b).__name__})", a, b)
        if isinstance(a, Var):
            self.use(a, b, path)
            return
        if isinstance(a, Op):
            if a.name != b.name:  # type: ignore[attr-defined]
                raise _Mismatch(path, f"ops differ ('{a.name}' vs '{b.name}')", a, b)  # type: ignore[attr-defined]
            return
        if isinstance(a, ConstInt):
            if a.value != b.value or not _same_const_dtype(a.type.dtype, b.type.dtype):  # type: ignore[attr-defined]
                raise _Mismatch(path, f"constants differ ({a.value} {a.type.dtype.name} vs "
                                      f"{b.value} {b.type.dtype.name})", a, b)  # type: ignore[attr-defined]
            return
        if isinstance(a, ConstFloat):
            if a.type.dtype is not b.type.dtype or not (a.value == b.value or (a.value != a.value and b.value != b.value)):  # type: ignore[attr-defined]
                raise _Mismatch(path, f"constants differ ({a.value} vs {b.value})", a, b)  # type: ignore[attr-defined]
            return
        if isinstance(a, Program):
            self.program(a, b, path)  # type: ignore[arg-type]
            return
        if isinstance(a, SeqStmts):
            sa, sb = a.stmts, b.stmts  # type: ignore[attr-defined]
            if len(sa) != len(sb):
                raise _Mismatch(path or "body", f"statement count differs ({len(sa)} vs {len(sb)})", a, b)
            for i, (x, y) in enumerate(zip(sa, sb)):
                self.node(x, y, f"{path}[{i}]")
            return
        is_for = isinstance(a, ForStmt)
        is_func = isinstance(a, Function)
        for spec in a.COMPARED_FIELDS:
            fa, fb = getattr(a, spec.name), getattr(b, spec.name)
            if is_func and spec.name == "attrs":
                fa, fb = effective_function_attrs(fa), effective_function_attrs(fb)
            fpath = _join(path, spec.name)
            if spec.role is FieldRole.DEF:
                if isinstance(fa, (tuple, list)):
                    if not isinstance(fb, (tuple, list)) or len(fa) != len(fb):
                        raise _Mismatch(fpath, f"{spec.name} count differs", fa, fb)
                    for i, (x, y) in enumerate(zip(fa, fb)):
                        self.define(x, y, f"{fpath}[{i}]")
                else:
                    self.define(fa, fb, fpath, loop_var=is_for and spec.name == "loop_var")
            elif is_func and spec.name == "return_types":
                saved, self.defining_type = self.defining_type, True
                try:
                    self.value(fa, fb, fpath)
                finally:
                    self.defining_type = saved
            else:
                self.value(fa, fb, fpath)

    def program(self, a: Program, b: Program, path: str) -> None:
        names_a = [gv.name for gv in a.functions]
        names_b = [gv.name for gv in b.functions]
        if names_a != names_b:
            raise _Mismatch(_join(path, "functions"), f"function names differ ({names_a} vs {names_b})", a, b)
        for (gv, fa), fb in zip(a.functions.items(), b.functions.values()):
            self.node(fa, fb, _join(path, f"functions[{gv.name}]"))


def _show_value(v: Any) -> str:
    if isinstance(v, enum.Enum):
        return f"{type(v).__name__}.{v.name}"
    return repr(v)


def _show(node: Any) -> str:
    try:
        if isinstance(node, IRNode):
            from pypto_core.language.printer import python_print

            return python_print(node, format=False)
    except Exception:  # the printer must never hide the mismatch itself
        pass
    return repr(node)


def assert_structural_equal(lhs: Any, rhs: Any, enable_auto_mapping: bool = False) -> None:
    """Raise ValueError naming the first mismatching path and printing both sides."""
    try:
        _Equality(enable_auto_mapping).value(lhs, rhs, "")
    except _Mismatch as m:
        where = m.path or "<root>"
        raise ValueError(
            f"Structural equality failed at {where}: {m.reason}\n  lhs: {_show(m.lhs)}\n  rhs: {_show(m.rhs)}"
        ) from None


def structural_equal(lhs: Any, rhs: Any, enable_auto_mapping: bool = False) -> bool:
    if lhs is rhs:
        return True
    try:
        _Equality(enable_auto_mapping).value(lhs, rhs, "")
    except _Mismatch:
        return False
    return True


class _Hasher:
    def __init__(self, auto_map: bool) -> None:
        self.auto_map = auto_map
        self.numbers: dict[int, int] = {}
        self.defining_type = False

    def define(self, v: Any) -> int:
        if not isinstance(v, Var):
            return self.value(v)
        if id(v) not in self.numbers:
            self.numbers[id(v)] = len(self.numbers)
            saved = self.defining_type
            self.defining_type = True
            h = self.value(v.type)
            self.defining_type = saved
        else:
            h = 0
        if isinstance(v, IterArg):
            h = hash((h, self.value(v.initValue)))
        return hash(("def", type(v).__name__, h))

    def value(self, v: Any) -> int:
        if isinstance(v, Var):
            n = self.numbers.get(id(v))
            if n is None:
                if self.auto_map or self.defining_type:
                    n = self.numbers[id(v)] = len(self.numbers)
                else:
                    return hash(("free", id(v)))
            return hash(("var", n))
        if isinstance(v, IRNode):
            return self.node(v)
        if isinstance(v, (tuple, list)):
            return hash(tuple(self.value(x) for x in v))
        if isinstance(v, Mapping):
            return hash(frozenset((str(k), self.value(x)) for k, x in v.items()))
        if isinstance(v, float) and v != v:
            return hash("nan")
        return hash((type(v).__name__, v))

    def node(self, n: IRNode) -> int:
        if isinstance(n, Op):
            return hash(("op", n.name, isinstance(n, GlobalVar)))
        if isinstance(n, ConstInt):
            dtype = "index" if n.type.dtype.is_index_like() else n.type.dtype.name
            return hash(("ConstInt", n.value, dtype))
        if isinstance(n, Program):
            return hash(tuple((gv.name, self.node(f)) for gv, f in n.functions.items()))
        parts: list[int] = [hash(type(n).__name__)]
        is_func = isinstance(n, Function)
        for spec in n.COMPARED_FIELDS:
            v = getattr(n, spec.name)
            if is_func and spec.name == "attrs":
                v = effective_function_attrs(v)
            if spec.role is FieldRole.DEF:
                if isinstance(v, (tuple, list)):
                    parts.append(hash(tuple(self.define(x) for x in v)))
                elif isinstance(n, ForStmt) and spec.name == "loop_var":
                    self.numbers.setdefault(id(v), len(self.numbers))
                    parts.append(hash("loop_var"))
                else:
                    parts.append(self.define(v))
            elif is_func and spec.name == "return_types":
                saved, self.defining_type = self.defining_type, True
                parts.append(self.value(v))
                self.defining_type = saved
            else:
                parts.append(self.value(v))
        return hash(tuple(parts))


def structural_hash(node: Any, enable_auto_mapping: bool = False) -> int:
    return _Hasher(enable_auto_mapping).value(node)


__all__ = ["assert_structural_equal", "structural_equal", "structural_hash"]
