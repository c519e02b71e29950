"""Printed variable names (docs/dsl.md, the printed form): disambiguation within a function and program-wide dynamic dims."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.node import FieldRole, IRNode
from pypto_core.ir.types import Type


def assign_names(vars_in_order: Iterable[E.Var], reserved: Iterable[str] = ()) -> dict[int, str]:
    """Names that occur once are reserved first; each colliding Var then takes base, base_1, ...

    Returns a map from id(var) to its printed name.
    """
    ordered: list[E.Var] = []
    seen: set[int] = set()
    for v in vars_in_order:
        if id(v) not in seen:
            seen.add(id(v))
            ordered.append(v)
    counts = Counter(v.name_hint for v in ordered)
    taken: set[str] = set(reserved)
    names: dict[int, str] = {}
    for v in ordered:
        if counts[v.name_hint] == 1 and v.name_hint not in taken:
            names[id(v)] = v.name_hint
    taken.update(names.values())
    for v in ordered:
        if id(v) in names:
            continue
        base = v.name_hint or "v"
        candidate, k = base, 0
        while candidate in taken:
            k += 1
            candidate = f"{base}_{k}"
        names[id(v)] = candidate
        taken.add(candidate)
    return names


class VarOrder:
    """Walks a function once: params, then body definitions in walk order, then uses; the variables in
    types (dynamic dims); and the functions it calls (for the printer's callee-first order).

    The walk runs over every node of every printed function, so it skips what cannot hold a variable
    (constants, ops, types without variables) instead of descending generically.
    """

    def __init__(self) -> None:
        self.defs: list[E.Var] = []
        self.uses: list[E.Var] = []
        self.type_vars: list[E.Var] = []
        self.callees: list[str] = []
        self._callee_set: set[str] = set()
        self._def_ids: set[int] = set()
        self._in_type = 0
        # First parts of the `pld.` ops the function calls: printed without the prefix (`system.notify`), they
        # read as module names, so no variable may print under them.
        self.pld_modules: set[str] = set()

    def define(self, v: E.Var) -> None:
        if id(v) not in self._def_ids:
            self._def_ids.add(id(v))
            self.defs.append(v)
        self.walk(v.type)
        if isinstance(v, E.IterArg):
            self.walk(v.initValue)

    def walk(self, value: object) -> None:
        kind = _KINDS.get(type(value))
        if kind is None:
            kind = _KINDS[type(value)] = _kind_of(type(value))
        if kind is _FIELDS:
            self._walk_fields(value)  # type: ignore[arg-type]
        elif kind is _VAR:
            (self.type_vars if self._in_type else self.uses).append(value)  # type: ignore[arg-type]
        elif kind is _SEQUENCE:
            for item in value:  # type: ignore[attr-defined]
                self.walk(item)
        elif kind is _TYPE:
            if value.has_vars:  # type: ignore[attr-defined]
                self._in_type += 1
                self._walk_fields(value)  # type: ignore[arg-type]
                self._in_type -= 1
        elif kind is _MAPPING:
            for item in value.values():  # type: ignore[attr-defined]
                self.walk(item)
        elif kind is _GLOBAL:
            name = value.name  # type: ignore[attr-defined]
            if name not in self._callee_set:
                self._callee_set.add(name)
                self.callees.append(name)
        elif kind is _OP:
            name = value.name  # type: ignore[attr-defined]
            if name.startswith("pld."):
                self.pld_modules.add(name.split(".")[1])

    def _walk_fields(self, node: IRNode) -> None:
        for spec in node.COMPARED_FIELDS:
            value = getattr(node, spec.name)
            if spec.role is FieldRole.DEF:
                for v in value if isinstance(value, tuple) else (value,):
                    if isinstance(v, E.Var):
                        self.define(v)
            else:
                self.walk(value)

    def is_defined(self, v: E.Var) -> bool:
        return id(v) in self._def_ids


_LEAVES = (E.ConstInt, E.ConstFloat, E.ConstBool)

# What the walk does with a value, decided once per class (the walk sees every node of every printed function).
_SKIP, _FIELDS, _VAR, _TYPE, _GLOBAL, _OP, _SEQUENCE, _MAPPING = range(8)
_KINDS: dict[type, int] = {}


def _kind_of(cls: type) -> int:
    if issubclass(cls, IRNode):
        if issubclass(cls, E.Var):
            return _VAR
        if issubclass(cls, Type):
            return _TYPE
        if issubclass(cls, _LEAVES):
            return _SKIP
        if issubclass(cls, E.Op):
            return _GLOBAL if issubclass(cls, E.GlobalVar) else _OP
        return _FIELDS
    if issubclass(cls, (tuple, list)):
        return _SEQUENCE
    if issubclass(cls, dict):
        return _MAPPING
    return _SKIP


def function_var_order(func: F.Function) -> VarOrder:
    order = VarOrder()
    for p in func.params:
        order.define(p)
    order.walk(func.return_types)
    order.walk(func.attrs)
    order.walk(func.body)
    return order


def dynamic_dim_vars(program: F.Program, orders: Iterable[VarOrder] | None = None) -> list[E.Var]:
    """Vars inside types that no function defines: the program's `pl.dynamic` dims."""
    out: list[E.Var] = []
    seen: set[int] = set()
    if orders is None:
        orders = [function_var_order(f) for f in program.functions.values()]
    for order in orders:
        for v in order.type_vars:
            if not order.is_defined(v) and id(v) not in seen:
                seen.add(id(v))
                out.append(v)
    return out
