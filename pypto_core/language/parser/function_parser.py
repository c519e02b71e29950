"""Parsing one `def` into an `ir.Function`: decorator options, parameters, `pl.func_attr`, the body."""

from __future__ import annotations

import ast
import enum
import warnings
from dataclasses import dataclass, field
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import FunctionType, Level, Role, SplitMode
from pypto_core.ir.function import normalize_attr_value
from pypto_core.ir.utils import make_body
from pypto_core.language.parser.context import ProgramContext
from pypto_core.language.parser.env import MISSING, Env, static_value
from pypto_core.language.parser.errors import (
    BUG_CLASS_EXCEPTIONS,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    UnsupportedFeatureError,
)
from pypto_core.language.parser.scopes import ScopeParser
from pypto_core.language.parser.source import SourceInfo
from pypto_core.language.parser.stmts import docstring_lines

_HIDDEN_ATTR_KEYS = ("auto_scope", "external_source")


@dataclass
class FunctionOptions:
    """What `@pl.function(...)` says, read from the decorator's AST."""

    func_type: FunctionType = FunctionType.Opaque
    level: Level | None = None
    role: Role | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    auto_scope: bool = True
    strict_ssa: bool = False
    external_source: str | None = None


class FunctionParser(ScopeParser):
    def parse_function(self, fdef: ast.FunctionDef, options: FunctionOptions) -> F.Function:
        self.last_line = fdef.lineno
        params = self.parse_params(fdef)
        returns = self.parse_return_annotation(fdef.returns) if fdef.returns is not None else []
        self.declared_returns = returns if fdef.returns is not None else None
        attrs = dict(options.attrs)
        if not options.auto_scope:
            attrs["auto_scope"] = False
        if options.external_source is not None:
            attrs["external_source"] = options.external_source
        body_nodes = list(fdef.body)
        if body_nodes and isinstance(body_nodes[0], ast.Expr) and isinstance(body_nodes[0].value, ast.Constant) \
                and isinstance(body_nodes[0].value.value, str):
            # The docstring becomes leading comments of the first statement, like any bare string.
            self.note_statement_start(body_nodes[0])
            self.pending_comments.extend(docstring_lines(body_nodes[0].value.value))
            self.note_statement_end(body_nodes[0])
            body_nodes = body_nodes[1:]
        while body_nodes and isinstance(body_nodes[0], ast.Expr) and isinstance(body_nodes[0].value, ast.Call) \
                and self.pl_path(body_nodes[0].value.func) == "func_attr":
            self.note_statement_start(body_nodes[0])
            self.func_attr(body_nodes[0].value, attrs, set(options.attrs))
            self.note_statement_end(body_nodes[0])
            body_nodes = body_nodes[1:]
        if options.external_source is not None:
            if options.func_type not in (FunctionType.AIC, FunctionType.AIV):
                self.syntax_error(f"external_source= gives the code of an AIC or AIV kernel; '{fdef.name}' is "
                                  f"{options.func_type.name}", fdef,
                                  hint="declare it @pl.function(type=pl.FunctionType.AIC, ...) or "
                                       "type=pl.FunctionType.AIV")
            # `...`, or `pass` (PyPTO prints an external kernel's empty body so: docs/passes/split_vector_kernel.md)
            if not (len(body_nodes) == 1 and (isinstance(body_nodes[0], ast.Pass) or (
                    isinstance(body_nodes[0], ast.Expr) and isinstance(body_nodes[0].value, ast.Constant)
                    and body_nodes[0].value.value is Ellipsis))):
                self.syntax_error("a function with external_source= must have '...' as its body", fdef,
                                  hint="write '...' (or 'pass'): the kernel's code is in external_source")
            body_nodes = []
        stmts = self.parse_body(body_nodes)
        if returns and options.external_source is None and not _has_return(body_nodes):
            self.fail(ParserTypeError, f"'{fdef.name}' declares {len(returns)} return value(s) but never returns",
                      fdef, hint="end the function with `return ...`, or drop the return annotation")
        try:
            return F.Function(fdef.name, params, returns, make_body(stmts, self.span(fdef)), self.span(fdef),
                              options.func_type, options.level, options.role, attrs)
        except ValueError as exc:
            self.syntax_error(str(exc), fdef)

    def parse_params(self, fdef: ast.FunctionDef) -> list[tuple[E.Var, Any]]:
        args = fdef.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs or args.defaults:
            self.fail(UnsupportedFeatureError, "pl functions take plain parameters only (no defaults, *args, "
                                               "**kwargs or keyword-only parameters)", fdef)
        plain = list(args.args)
        if plain and plain[0].arg == "self":
            plain = plain[1:]
        out: list[tuple[E.Var, Any]] = []
        for a in plain:
            if a.arg == "self":
                # Only the leading receiver may be `self`: the printer writes parameters without one, so a
                # parameter named self would be read back as the receiver and dropped.
                self.syntax_error("a parameter may not be named 'self' (only the method's first, unannotated "
                                  "receiver is)", a, hint="rename the parameter")
            if a.annotation is None:
                self.fail(ParserTypeError, f"parameter '{a.arg}' needs a type annotation", a,
                          hint="e.g. x: pl.Tensor[[64], pl.FP32]")
            if a.arg in self.symbols:
                self.syntax_error(f"duplicate parameter '{a.arg}'", a)
            typ, direction = self.parse_param_annotation(a.annotation)
            var = E.Var(a.arg, typ, self.span(a))
            self.symbols[a.arg] = var
            self.def_nodes[a.arg] = a
            self.params.append(var)
            out.append((var, direction))
        return out

    def func_attr(self, call: ast.Call, attrs: dict[str, Any], decorator_keys: set[str]) -> None:
        if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Dict):
            self.syntax_error('pl.func_attr takes one dict literal: pl.func_attr({"key": value})', call)
        d: ast.Dict = call.args[0]  # type: ignore[assignment]
        for k, v in zip(d.keys, d.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                self.syntax_error("pl.func_attr keys must be string literals", k or d)
            key = k.value
            if key in _HIDDEN_ATTR_KEYS:
                self.syntax_error(f"'{key}' is set on the decorator (@pl.function({key}=...)), not by pl.func_attr",
                                  k)
            if key in attrs or key in decorator_keys:
                self.syntax_error(f"function attribute '{key}' is given twice", k)
            value = self.func_attr_value(key, v)
            if key == "split" and type(value) is int and value == 0:
                continue  # "no split" has one encoding: no key (docs/passes/outline_incore_scopes.md)
            attrs[key] = value

    def func_attr_value(self, key: str, node: ast.AST) -> Any:
        value = static_value(node, self.env)
        if value is not MISSING:
            if isinstance(value, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
                return list(value)
            if key == "cache_policy" and isinstance(value, list):
                return [tuple(int(x) for x in pair) for pair in value]
            if isinstance(value, enum.Enum):  # before int: an IntEnum (SplitMode) is stored as its int
                return normalize_attr_value(value)
            if isinstance(value, (bool, int, float, str)):
                return value
        if isinstance(node, ast.Name) and node.id in self.symbols:
            return self.symbols[node.id]
        if isinstance(node, ast.List) and node.elts and all(isinstance(e, ast.Name) and e.id in self.symbols
                                                            for e in node.elts):
            return [self.symbols[e.id] for e in node.elts]  # type: ignore[attr-defined]
        return self.parse_value(node)


def decorator_options(call: ast.AST | None, env: Env, src: SourceInfo, warn: bool = True) -> FunctionOptions:
    """Read `@pl.function(type=..., level=..., attrs={...}, ...)` without running it."""
    opts = FunctionOptions()
    if not isinstance(call, ast.Call):
        return opts
    if call.args:
        raise ParserSyntaxError("@pl.function takes keyword arguments only", src.span(call),
                                source_lines=src.source_lines)
    for kw in call.keywords:
        value = _decorator_value(kw.value, env, src)
        if kw.arg == "type":
            opts.func_type = _expect(value, FunctionType, kw, src)
        elif kw.arg == "level":
            opts.level = None if value is None else _expect(value, Level, kw, src)
        elif kw.arg == "role":
            opts.role = None if value is None else _expect(value, Role, kw, src)
        elif kw.arg == "attrs":
            if value is None:
                continue
            if not isinstance(value, dict):
                raise ParserSyntaxError("attrs= must be a dict literal", src.span(kw), source_lines=src.source_lines)
            if value and warn:
                warnings.warn("@pl.function(attrs=...) is deprecated; use pl.func_attr({...}) in the body",
                              DeprecationWarning, stacklevel=4)
            for k, v in value.items():
                if isinstance(v, SplitMode) and v is SplitMode.NONE:
                    continue
                opts.attrs[k] = normalize_attr_value(v)
        elif kw.arg == "auto_scope":
            opts.auto_scope = bool(value)
        elif kw.arg == "strict_ssa":
            opts.strict_ssa = bool(value)
        elif kw.arg == "external_source":
            opts.external_source = str(value)
        else:
            raise ParserSyntaxError(f"@pl.function does not accept '{kw.arg}='", src.span(kw),
                                    source_lines=src.source_lines)
    return opts


def _decorator_value(node: ast.AST, env: Env, src: SourceInfo) -> Any:
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            key = static_value(k, env) if k is not None else MISSING
            if not isinstance(key, str):
                raise ParserSyntaxError("attrs keys must be string literals", src.span(k or node),
                                        source_lines=src.source_lines)
            out[key] = _decorator_value(v, env, src)
        return out
    value = static_value(node, env)
    if value is MISSING:
        raise ParserSyntaxError(f"cannot evaluate '{ast.unparse(node)}' in a decorator{_why_unreadable(node, env)}",
                                src.span(node), source_lines=src.source_lines)
    return value


def _why_unreadable(node: ast.AST, env: Env) -> str:
    """"; 'K' (module level, line 3) is computed by calling ..." for a text module name that was not read."""
    for sub in ast.walk(node):
        info = env.unresolved.get(sub.id) if isinstance(sub, ast.Name) else None
        if info is not None:
            return f": '{info.name}' (module level, line {info.line}) is {info.reason}"
    return ""


def _expect(value: Any, cls: type, node: ast.AST, src: SourceInfo) -> Any:
    if not isinstance(value, cls):
        raise ParserSyntaxError(f"expected a {cls.__name__}, got {value!r}", src.span(node),
                                source_lines=src.source_lines)
    return value


def run_function_parser(fdef: ast.FunctionDef, options: FunctionOptions, src: SourceInfo, env: Env,
                        program: ProgramContext, strict_ssa: bool) -> F.Function:
    """Parse one function; unexpected failures become a located ParserSyntaxError (docs/dsl.md, errors)."""
    parser = FunctionParser(src, env, program, fdef.name, options.func_type, strict_ssa)
    try:
        return parser.parse_function(fdef, options)
    except ParserError as err:
        raise err.attach(src.span(fdef), src.source_lines) from None
    except BUG_CLASS_EXCEPTIONS:
        raise
    except Exception as exc:  # anything else is reported at the statement, never as a bare traceback
        where = parser.current_stmt if parser.current_stmt is not None else fdef
        raise ParserSyntaxError(f"Failed to parse function '{fdef.name}': {exc}", src.span(where),
                                source_lines=src.source_lines) from exc


_STMT_LIST_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")  # where statements hold statements


def _has_return(body: list[ast.stmt]) -> bool:
    """A `return` anywhere in `body` (nested blocks and defs included). A return is a statement, so only
    statement lists are searched, not the expressions (which cannot hold one: a lambda's body is an
    expression)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return):
            return True
        for name in _STMT_LIST_FIELDS:
            nodes = getattr(node, name, None)
            if type(nodes) is list:
                stack.extend(nodes)
    return False
