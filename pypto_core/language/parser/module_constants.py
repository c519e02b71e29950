"""Module-level constants of a text file, read from its AST: the text path never runs the file (docs/dsl.md, the text path).

Read: imports of pypto modules, and `NAME = value`, `NAME: T = value`, `A, B = 1, 2`, `N += 1` whose value
is a literal, a list or tuple of them (nested), arithmetic or indexing on earlier constants, a `pl.*` enum
or dtype, `pl.dynamic("M")`, `pl.min` / `pl.max` / `pl.cast` / `pl.const` of constants, or a `pl.MemRef()` declaration. A name bound any other way (a call, an import of another module, a def,
an assignment inside an `if` or a loop, a later mutation) is recorded as `Unresolved`, so that a program
using it gets a located error saying why, and nothing is run to find out.
"""

from __future__ import annotations

import ast
from typing import Any

from pypto_core.language.dsl_modules import import_for_text, is_dsl_package_name
from pypto_core.language.parser.env import (
    MISSING,
    Env,
    Unresolved,
    dynamic_dim_call,
    fold_binop,
    static_value,
)

# What the text path can read, for messages.
READABLE = ("literals, lists and tuples of them, arithmetic on earlier constants, pl.* enums and dtypes, "
            "and pl.dynamic(\"M\")")
_LITERAL_KINDS = {ast.Dict: "dict", ast.Set: "set", ast.ListComp: "list comprehension",
                  ast.SetComp: "set comprehension", ast.DictComp: "dict comprehension",
                  ast.GeneratorExp: "generator", ast.Lambda: "function (lambda)", ast.JoinedStr: "f-string"}


def text_module_env(tree: ast.Module) -> Env:
    """Names a text module binds at its top level, read without executing it."""
    return _ModuleReader().read(tree)


class _ModuleReader:
    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.unresolved: dict[str, Unresolved] = {}
        self.call_errors: dict[int, str] = {}
        self.env = Env([self.values], self.unresolved)

    def read(self, tree: ast.Module) -> Env:
        # A printed Function (docs/dsl.md, the printed form) has no import line; `pl` still means the DSL there, also in the
        # `M = pl.dynamic("M")` lines above it. A statement binding `pl` itself replaces this.
        self.values["pl"] = import_for_text("pypto.language")
        for stmt in tree.body:
            handler = getattr(self, "_stmt_" + type(stmt).__name__, None)
            (handler or self._compound)(stmt)
        return self.env

    # -- bindings -------------------------------------------------------------------------------------
    def bind(self, name: str, value: Any) -> None:
        self.values[name] = value
        self.unresolved.pop(name, None)

    def unbind(self, name: str, reason: str, node: ast.AST, type_name: str | None = None) -> None:
        self.values.pop(name, None)
        self.unresolved[name] = Unresolved(name, reason, getattr(node, "lineno", -1), type_name)

    def bind_target(self, target: ast.AST, value: Any, value_node: ast.AST, stmt: ast.stmt) -> None:
        if isinstance(target, ast.Name):
            if value is MISSING:
                reason, type_name = self.why_not_constant(value_node)
                self.unbind(target.id, reason, stmt, type_name)
            else:
                self.bind(target.id, value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            self._unpack(target, value, value_node, stmt)
        else:  # `SHAPE[0] = 8`, `cfg.rows = 4`: the named value changes in a way that is not read
            self._mutated(target, stmt)

    def _unpack(self, target: ast.Tuple | ast.List, value: Any, value_node: ast.AST, stmt: ast.stmt) -> None:
        starred = any(isinstance(e, ast.Starred) for e in target.elts)
        if type(value) in (list, tuple) and len(value) == len(target.elts) and not starred:
            parts = value_node.elts if isinstance(value_node, (ast.Tuple, ast.List)) else [value_node] * len(value)
            for elt, item, part in zip(target.elts, value, parts):
                self.bind_target(elt, item, part, stmt)
            return
        if value is MISSING:
            reason, type_name = self.why_not_constant(value_node)
        else:
            reason, type_name = (f"unpacked from '{_snippet(value_node)}', which does not give exactly "
                                 f"{len(target.elts)} values"), None
        for name in _stored_names(target):
            self.unbind(name, reason, stmt, type_name)

    def _mutated(self, target: ast.AST, stmt: ast.stmt) -> None:
        root = _root_name(target)
        if root is not None:
            self.unbind(root, f"changed by '{_snippet(stmt)}'", stmt)

    def evaluate(self, node: ast.AST) -> Any:
        value = dynamic_dim_call(node, self.env)
        if value is MISSING:
            value = self._pure_call(node)
        return static_value(node, self.env) if value is MISSING else value

    def _pure_call(self, node: ast.AST) -> Any:
        """`pl.min(M, 64)`, `pl.max(...)`, `pl.cast(...)`, `pl.const(32, pl.INDEX)` on constants: pypto's own
        functions without side effects, so calling them is reading, not running the file."""
        if not isinstance(node, ast.Call):
            return MISSING
        from pypto_core.language import runtime

        fn = static_value(node.func, self.env)
        # pl.MemRef(...) at module level declares an allocation (docs/memory_planning.md): a value, nothing run.
        if not any(fn is pure for pure in (runtime.min, runtime.max, runtime.cast, runtime.const, runtime.MemRef)):
            return MISSING
        args = [static_value(a, self.env) for a in node.args]
        kwargs = {kw.arg: static_value(kw.value, self.env) for kw in node.keywords if kw.arg is not None}
        values = [*args, *kwargs.values()]
        if any(v is MISSING for v in values) or len(kwargs) != len(node.keywords):
            return MISSING
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError) as exc:
            self.call_errors[id(node)] = str(exc)  # said where the name is used (`pl.MemRef(slots=0)`)
            return MISSING

    def why_not_constant(self, node: ast.AST) -> tuple[str, str | None]:
        """(a clause completing "'N' is ...", the Python type when the value is a literal of one)."""
        kind = _LITERAL_KINDS.get(type(node))
        if kind is not None:
            return f"a Python {kind}", kind
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                error = self.call_errors.get(id(sub))
                if error is not None:
                    return f"computed by calling '{_snippet(sub.func)}(...)', which fails: {error}", None
                return f"computed by calling '{_snippet(sub.func)}(...)'", None
            if isinstance(sub, ast.Name) and sub.id in self.unresolved:
                inner = self.unresolved[sub.id]
                return f"computed from '{sub.id}', which is {inner.reason}", inner.type_name
            if isinstance(sub, ast.Name) and sub.id not in self.values:
                return f"computed from '{sub.id}', which the module does not define as a constant", None
            kind = _LITERAL_KINDS.get(type(sub))
            if kind is not None:
                return f"computed from a Python {kind}", None
        return f"set to '{_snippet(node)}', which is not a constant expression", None

    # -- statements ----------------------------------------------------------------------------------
    def _stmt_Import(self, stmt: ast.Import) -> None:  # noqa: N802
        for alias in stmt.names:
            root = alias.name.split(".")[0]
            bound = alias.asname or root
            if not is_dsl_package_name(alias.name):
                self.unbind(bound, f"imported from '{alias.name}', a module the text path does not import", stmt)
                continue
            module = import_for_text(alias.name)
            if module is None:
                self.unbind(bound, f"imported from '{alias.name}', which does not exist", stmt)
            else:
                self.bind(bound, module if alias.asname else import_for_text(root))

    def _stmt_ImportFrom(self, stmt: ast.ImportFrom) -> None:  # noqa: N802
        ours = stmt.level == 0 and stmt.module is not None and is_dsl_package_name(stmt.module)
        module = import_for_text(stmt.module) if ours and stmt.module else None
        for alias in stmt.names:
            bound = alias.asname or alias.name
            if alias.name == "*":
                continue
            value = getattr(module, alias.name, MISSING) if module is not None else MISSING
            if value is MISSING and module is not None:
                value = import_for_text(f"{stmt.module}.{alias.name}") or MISSING
            if value is MISSING:
                where = "." * stmt.level + (stmt.module or "")
                self.unbind(bound, f"imported from '{where}', a module the text path does not import", stmt)
            else:
                self.bind(bound, value)

    def _stmt_Assign(self, stmt: ast.Assign) -> None:  # noqa: N802
        value = self.evaluate(stmt.value)
        for target in stmt.targets:
            self.bind_target(target, value, stmt.value, stmt)

    def _stmt_AnnAssign(self, stmt: ast.AnnAssign) -> None:  # noqa: N802
        if stmt.value is not None:
            self.bind_target(stmt.target, self.evaluate(stmt.value), stmt.value, stmt)

    def _stmt_AugAssign(self, stmt: ast.AugAssign) -> None:  # noqa: N802
        if not isinstance(stmt.target, ast.Name):
            self._mutated(stmt.target, stmt)
            return
        name = stmt.target.id
        value = fold_binop(type(stmt.op), self.values.get(name, MISSING), self.evaluate(stmt.value))
        if value is MISSING:
            self.unbind(name, f"updated by '{_snippet(stmt)}', which is not a constant expression", stmt)
        else:
            self.bind(name, value)

    def _stmt_Expr(self, stmt: ast.Expr) -> None:  # noqa: N802
        # `SHAPE.append(4)` changes a list read earlier: the name can no longer be trusted.
        call = stmt.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            root = _root_name(call.func)
            if root is not None and type(self.values.get(root)) is list:
                self._mutated(call.func, stmt)

    def _stmt_FunctionDef(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef) -> None:  # noqa: N802
        self.unbind(stmt.name, "a function defined in the file", stmt)

    _stmt_AsyncFunctionDef = _stmt_FunctionDef

    def _stmt_ClassDef(self, stmt: ast.ClassDef) -> None:  # noqa: N802
        self.unbind(stmt.name, "a class defined in the file", stmt)

    def _stmt_Delete(self, stmt: ast.Delete) -> None:  # noqa: N802
        for target in stmt.targets:
            for name in _stored_names(target, ast.Del):
                self.unbind(name, "deleted by the module", stmt)

    def _stmt_Pass(self, stmt: ast.Pass) -> None:  # noqa: N802
        pass

    def _compound(self, stmt: ast.stmt) -> None:
        """`if` / `for` / `while` / `with` / `try` / `match` at module level: whatever they bind depends on
        running them, so every name they bind is unresolved."""
        kind = type(stmt).__name__.lower()
        for node in ast.walk(stmt):
            names: list[str] = []
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names = [node.id]
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [(a.asname or a.name).split(".")[0] for a in node.names]
            for name in names:
                self.unbind(name, f"bound inside a module-level '{kind}' statement", stmt)


def _stored_names(target: ast.AST, ctx: type = ast.Store) -> list[str]:
    return [n.id for n in ast.walk(target) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)]


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Starred)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _snippet(node: ast.AST, limit: int = 60) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[:limit - 3] + "..."
