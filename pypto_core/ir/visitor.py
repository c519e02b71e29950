"""IRVisitor and IRMutator (docs/architecture.md, the core), generic over the field declarations of the node classes.

Override `visit_<snake_case_class>` (e.g. `visit_call`, `visit_assign_stmt`, `visit_in_core_scope_stmt`)
and call `super().visit_<...>(node)` to recurse. Each default method falls back to the method of the
node's base class (`visit_add` -> `visit_binary_expr` -> `visit_expr_node`), so overriding a base
method catches all its subclasses. The mutator copies on write: an unchanged subtree comes back as the
same object.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.node import IRNode, snake_case


def _node_classes() -> list[type[IRNode]]:
    out: list[type[IRNode]] = []
    pending: list[type] = [IRNode]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            if sub not in out:
                out.append(sub)
                pending.append(sub)
    return out


class _Dispatching:
    """Per-class cache from node class to the bound `visit_<snake>` method."""

    _dispatch_cache: dict[type, Callable[..., Any]] = {}

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls._dispatch_cache = {}

    def _dispatch(self, node: IRNode) -> Any:
        cls = type(self)
        key = type(node)
        fn = cls._dispatch_cache.get(key)
        if fn is None:
            fn = getattr(cls, "visit_" + snake_case(key.__name__), None) or cls.visit_node  # type: ignore[attr-defined]
            # A default method only calls its base class's method (`visit_add` -> `visit_binary_expr`):
            # dispatch straight to the method it ends at, a call or two fewer on every node visited.
            while True:
                target = getattr(fn, "_defers_to", None)
                if target is None:
                    break
                fn = getattr(cls, target)
            cls._dispatch_cache[key] = fn
        return fn(self, node)


class IRVisitor(_Dispatching):
    """Read-only walk. Entry points: visit_program, visit_function, visit_stmt, visit_expr, visit_type."""

    def visit_program(self, program: F.Program) -> None:
        for func in program.functions.values():
            self.visit_function(func)

    def visit_function(self, func: F.Function) -> None:
        for p in func.params:
            self.visit_expr(p)
        for t in func.return_types:
            self.visit_type(t)
        self.visit_stmt(func.body)

    def visit_stmt(self, stmt: S.Stmt) -> None:
        self._dispatch(stmt)

    def visit_expr(self, expr: E.Expr) -> None:
        self._dispatch(expr)

    def visit_type(self, typ: T.Type) -> None:
        self._dispatch(typ)

    def visit(self, node: Any) -> None:
        if isinstance(node, F.Program):
            self.visit_program(node)
        elif isinstance(node, F.Function):
            self.visit_function(node)
        elif isinstance(node, IRNode):
            self._dispatch(node)
        else:
            self._visit_value(node)

    def visit_node(self, node: IRNode) -> None:
        """Visit every non-ignored child of a node."""
        for name in node.WALKED_NAMES:
            self._visit_value(getattr(node, name))

    def visit_var_like(self, var: E.Var) -> None:
        """Variables: the walk goes on into the expressions of their type (dynamic dims)."""
        if var.type.has_vars:
            self.visit_type(var.type)

    def visit_iter_arg(self, var: E.IterArg) -> None:
        self.visit_var_like(var)
        self.visit_expr(var.initValue)

    def _visit_value(self, value: Any) -> None:
        if isinstance(value, F.Function):
            self.visit_function(value)
        elif isinstance(value, IRNode):
            if not isinstance(value, E.Op) and not (isinstance(value, T.Type) and not value.has_vars):
                self._dispatch(value)
        elif isinstance(value, (tuple, list)):
            for item in value:
                self._visit_value(item)
        elif isinstance(value, Mapping):
            for item in value.values():
                self._visit_value(item)


class IRMutator(_Dispatching):
    """Rebuilding walk: each visit returns the (possibly new) node."""

    def visit_program(self, program: F.Program) -> F.Program:
        changed = False
        new_funcs: list[F.Function] = []
        for func in program.functions.values():
            new = self.visit_function(func)
            changed = changed or new is not func
            new_funcs.append(new)
        if not changed:
            return program
        return F.Program(new_funcs, program.name, program.span)

    def visit_function(self, func: F.Function) -> F.Function:
        return self.visit_node(func)

    def visit_stmt(self, stmt: S.Stmt) -> S.Stmt:
        return self._dispatch(stmt)

    def visit_expr(self, expr: E.Expr) -> E.Expr:
        return self._dispatch(expr)

    def visit_type(self, typ: T.Type) -> T.Type:
        return self._dispatch(typ)

    def visit(self, node: Any) -> Any:
        if isinstance(node, F.Program):
            return self.visit_program(node)
        if isinstance(node, F.Function):
            return self.visit_function(node)
        if isinstance(node, IRNode):
            return self._dispatch(node)
        return self._mutate_value(node)

    def visit_node(self, node: IRNode) -> Any:
        changes: dict[str, Any] = {}
        mutate = self._mutate_value
        for name in node.WALKED_NAMES:
            old = getattr(node, name)
            new = mutate(old)
            if new is not old:
                changes[name] = new
        return node.with_fields(**changes) if changes else node

    def visit_var(self, var: E.Var) -> E.Expr:
        return var

    def visit_iter_arg(self, var: E.IterArg) -> E.Expr:
        # An IterArg whose initial value changes is rebuilt once; every later occurrence (the uses in
        # the loop body) must get that same new variable.
        rebuilt = self.__dict__.get("_rebuilt_iter_args")
        if rebuilt is not None and id(var) in rebuilt:
            return rebuilt[id(var)]
        new_init = self._mutate_value(var.initValue)
        if new_init is var.initValue:
            return var
        new = var.with_fields(initValue=new_init)
        if rebuilt is None:
            rebuilt = self.__dict__["_rebuilt_iter_args"] = {}
        rebuilt[id(var)] = new
        return new  # type: ignore[return-value]

    def _mutate_value(self, value: Any) -> Any:
        if isinstance(value, IRNode):
            if isinstance(value, T.Type):
                return self._dispatch(value) if value.has_vars else value
            if isinstance(value, E.Op):
                return value
            if isinstance(value, F.Function):
                return self.visit_function(value)
            return self._dispatch(value)
        if isinstance(value, tuple):
            if not value:
                return value
            mutate = self._mutate_value
            items = [mutate(v) for v in value]
            for a, b in zip(items, value):
                if a is not b:
                    return tuple(items)
            return value
        if value is None or isinstance(value, (int, float, str, enum.Enum)):
            return value
        if isinstance(value, list):
            mutate = self._mutate_value
            items = [mutate(v) for v in value]
            for a, b in zip(items, value):
                if a is not b:
                    return items
            return value
        if isinstance(value, Mapping):
            out = {k: self._mutate_value(v) for k, v in value.items()}
            return value if all(out[k] is value[k] for k in value) else out
        return value


def _install_default_methods() -> None:
    """Give both walkers a `visit_<snake>` per node class that defers to its base class's method."""
    for cls in _node_classes():
        name = "visit_" + snake_case(cls.__name__)
        parent = next((b for b in cls.__bases__ if issubclass(b, IRNode)), IRNode)
        # Expr, Stmt and Type name the entry points (visit_expr, ...), so their children fall back
        # to the generic walk instead.
        roots = (IRNode, E.Expr, S.Stmt, T.Type)
        parent_name = "visit_node" if parent in roots else "visit_" + snake_case(parent.__name__)
        for walker in (IRVisitor, IRMutator):
            if name in walker.__dict__:
                continue
            target = "visit_var_like" if cls is E.Var and walker is IRVisitor else parent_name

            def default(self: Any, node: IRNode, _p: str = target) -> Any:
                return getattr(self, _p)(node)

            default.__name__ = name
            default._defers_to = target  # type: ignore[attr-defined]  # read by _Dispatching._dispatch
            setattr(walker, name, default)


_install_default_methods()
