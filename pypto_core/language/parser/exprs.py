"""Expressions of the DSL: scalars with promotion, op calls through the registry, `self.f(...)` calls."""

from __future__ import annotations

import ast
import enum
import inspect
import types
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import scalar_ops
from pypto_core.ir import types as T
from pypto_core.ir.dtypes import DataType, const_problem
from pypto_core.ir.enums import ArgDirection, FunctionType
from pypto_core.language.parser.call_checks import argument_mismatch
from pypto_core.language.parser.env import MISSING, fold_binop, fold_failure, static_value
from pypto_core.language.parser.errors import (
    InvalidOperationError,
    ParserError,
    ParserSyntaxError,
    ParserTypeError,
    UndefinedVariableError,
    UnsupportedFeatureError,
)
from pypto_core.language.parser.limits import INT64_MAX, INT64_MIN, describe_int
from pypto_core.language.parser.slices import SliceParser

_BINOP = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
          ast.Mod: "mod", ast.Pow: "pow", ast.LShift: "bit_shift_left", ast.RShift: "bit_shift_right",
          ast.BitAnd: "bit_and", ast.BitOr: "bit_or", ast.BitXor: "bit_xor"}
_COMPARE = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge"}
# `pl.<name>` helpers the parser implements itself rather than through an op plugin.
STATEMENT_ONLY = {"range", "parallel", "unroll", "pipeline", "while_", "split_aiv", "at", "yield_", "cond",
                  "func_attr", "static_print", "static_assert", "set_cache_policy", "dump_tag", "split",
                  "cross_core_slot", "scope", "manual_scope", "cluster", "spmd", "dynamic"}
REGION_BOUNDARY = {"aiv_shard", "aic_gather", "tile.aiv_shard", "tile.aic_gather", "tensor.aiv_shard",
                   "tensor.aic_gather"}


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _is_python_operand(v: Any) -> bool:
    """A number, list or string: Python operators on these fold while parsing (tuples arrive as lists)."""
    return _is_number(v) or isinstance(v, (list, str))


class ExprParser(SliceParser):
    # -- conversions ----------------------------------------------------------------------------
    def check_int64(self, value: int, node: ast.AST) -> None:
        """Integers in the IR are at most 64-bit (parser/limits.py)."""
        if not INT64_MIN <= value <= INT64_MAX:
            self.fail(ParserTypeError, f"the integer {describe_int(value)} does not fit in 64 bits "
                                       f"({INT64_MIN}..{INT64_MAX})", node)

    def to_expr(self, value: Any, node: ast.AST, what: str = "an expression") -> E.Expr:
        if isinstance(value, E.Expr):
            return value
        span = self.span(node)
        if isinstance(value, bool):
            return E.ConstBool(value, span)
        if isinstance(value, int):
            self.check_int64(value, node)
            return E.ConstInt(value, DataType.INDEX, span)
        if isinstance(value, float):
            return E.ConstFloat(value, DataType.FP32, span)
        if isinstance(value, list):
            return E.MakeTuple([self.to_expr(v, node, what) for v in value], span)
        if isinstance(value, enum.Enum) and isinstance(value.value, int):
            return E.ConstInt(int(value.value), DataType.INDEX, span)
        if value is None:
            from pypto_core.ops.registry import create_op_call, is_op_registered

            if is_op_registered("system.task_invalid"):
                return create_op_call("system.task_invalid", [], span=span)
        self.fail(ParserSyntaxError, f"expected {what}, got '{ast.unparse(node)}'", node)

    def parse_expr(self, node: ast.AST, what: str = "an expression") -> E.Expr:
        value = self.parse_value(node)
        return value if isinstance(value, E.Expr) else self.to_expr(value, node, what)

    def parse_scalar_expr(self, node: ast.AST, what: str = "a scalar expression") -> E.Expr:
        e = self.parse_expr(node, what)
        if not isinstance(e.type, T.ScalarType):
            self.fail(ParserTypeError, f"{what} must be a scalar, got '{ast.unparse(node)}' of type {e.type}", node)
        return e

    def scalar_operand(self, e: E.Expr, node: ast.AST) -> E.Expr:
        if isinstance(e.type, T.ScalarType):
            return e
        kind = "Var" if isinstance(e, E.Var) else type(e).__name__
        self.fail(ParserSyntaxError,
                  f"Failed to parse function '{self.func_name}': Expression must be ScalarExpr or Var with "
                  f"ScalarType, got {kind} with type {type(e.type).__name__}", node,
                  hint="Python operators work on scalars only; use pl.add(x, 1.0), pl.mul(...) etc. "
                       "for element-wise tensor/tile arithmetic")

    # -- values ----------------------------------------------------------------------------------
    def parse_value(self, node: ast.AST) -> Any:
        handler = self._value_handlers.get(type(node))
        if handler is None:  # `_value_<NodeClass>`, looked up once per node class and parse
            handler = getattr(type(self), "_value_" + type(node).__name__, None)
            if handler is None:
                self.fail(UnsupportedFeatureError, f"'{ast.unparse(node)}' ({type(node).__name__}) is not "
                                                   f"supported in a pl function", node)
            self._value_handlers[type(node)] = handler
        return handler(self, node)

    def _value_Constant(self, node: ast.Constant) -> Any:  # noqa: N802
        if isinstance(node.value, (bool, int, float, str)) or node.value is None:
            return node.value
        self.fail(UnsupportedFeatureError, f"unsupported literal {node.value!r}", node)

    def _value_Name(self, node: ast.Name) -> Any:  # noqa: N802
        var = self.symbols.get(node.id)
        if var is not None:
            return var
        return self.resolve_global(node.id, node)  # a body constant, or a name from outside the body

    def _value_Attribute(self, node: ast.Attribute) -> Any:  # noqa: N802
        path = self.pl_path(node)
        if path is not None:
            value = self.pl_value(path)
            if isinstance(value, (enum.Enum, int, float, str)) and not isinstance(value, bool):
                return value
            self.fail(ParserSyntaxError, f"'{ast.unparse(node)}' cannot be used as a value here", node)
        base = self.parse_value(node.value)
        if isinstance(base, types.ModuleType) or isinstance(base, type):
            value = static_value(node, self.env)
            if value is not MISSING and not isinstance(value, (types.ModuleType, type)):
                return value
        self.fail(UnsupportedFeatureError, f"attribute access '{ast.unparse(node)}' is not supported", node)

    def _value_List(self, node: ast.List) -> list[Any]:  # noqa: N802
        out: list[Any] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):  # `[*shape, 64]` with a Python list from outside the body
                inner = self.parse_value(elt.value)
                if not isinstance(inner, list):
                    self.fail(ParserTypeError, f"'*{ast.unparse(elt.value)}' must unpack a Python list or tuple",
                              elt)
                out.extend(inner)
            else:
                out.append(self.parse_value(elt))
        return out

    _value_Tuple = _value_List

    def _value_UnaryOp(self, node: ast.UnaryOp) -> Any:  # noqa: N802
        operand = self.parse_value(node.operand)
        if isinstance(node.op, ast.UAdd):
            return operand
        if isinstance(node.op, ast.USub) and _is_number(operand):
            return -operand
        e = self.scalar_operand(self.to_expr(operand, node.operand), node.operand)
        fn = {ast.USub: scalar_ops.neg, ast.Not: scalar_ops.not_, ast.Invert: scalar_ops.bit_not}[type(node.op)]
        return self._scalar_call(fn, node, e)

    def _scalar_call(self, fn: Any, node: ast.AST, *args: Any) -> E.Expr:
        try:
            return fn(*args, self.span(node))
        except TypeError as exc:
            self.fail(ParserSyntaxError, f"Failed to parse function '{self.func_name}': {exc}", node)

    def _value_BinOp(self, node: ast.BinOp) -> Any:  # noqa: N802
        left, right = self.parse_value(node.left), self.parse_value(node.right)
        if _is_python_operand(left) and _is_python_operand(right):
            return self._fold(node, left, right)
        a = self.scalar_operand(self.to_expr(left, node.left), node.left)
        b = self.scalar_operand(self.to_expr(right, node.right), node.right)
        name = _BINOP.get(type(node.op))
        if name is None:
            self.fail(UnsupportedFeatureError, f"operator in '{ast.unparse(node)}' is not supported", node)
        if name == "bit_xor" and a.type.dtype is DataType.BOOL and b.type.dtype is DataType.BOOL:
            name = "xor"
        return self._scalar_call(getattr(scalar_ops, name), node, a, b)

    def _fold(self, node: ast.BinOp, left: Any, right: Any) -> Any:
        """Python arithmetic on constants (`rows // TILE`, `shape + [4]`) is done while parsing."""
        value = fold_binop(type(node.op), left, right)
        if value is MISSING:
            reason = fold_failure(type(node.op), left, right)
            self.fail(ParserSyntaxError, f"cannot fold '{ast.unparse(node)}': {reason}", node)
        return value

    def _value_BoolOp(self, node: ast.BoolOp) -> Any:  # noqa: N802
        fn = scalar_ops.and_ if isinstance(node.op, ast.And) else scalar_ops.or_
        result = self.scalar_operand(self.parse_expr(node.values[0]), node.values[0])
        for operand in node.values[1:]:
            rhs = self.scalar_operand(self.parse_expr(operand), operand)
            result = self._scalar_call(fn, node, result, rhs)
        return result

    def _value_Compare(self, node: ast.Compare) -> Any:  # noqa: N802
        if len(node.ops) != 1:
            self.fail(ParserSyntaxError, "chained comparisons like 'a < b < c' are not supported; "
                                         "write 'a < b and b < c'", node)
        name = _COMPARE.get(type(node.ops[0]))
        if name is None:
            self.fail(UnsupportedFeatureError, f"comparison '{ast.unparse(node)}' is not supported", node)
        left, right = self.parse_value(node.left), self.parse_value(node.comparators[0])
        a = self.scalar_operand(self.to_expr(left, node.left), node.left)
        b = self.scalar_operand(self.to_expr(right, node.comparators[0]), node.comparators[0])
        return self._scalar_call(getattr(scalar_ops, name), node, a, b)

    def _value_Subscript(self, node: ast.Subscript) -> Any:  # noqa: N802
        base = self.parse_value(node.value)
        if isinstance(base, (list, str)):  # a Python value from outside the body: indexed while parsing
            return self.python_index(base, self._python_index_value(node.slice), node)
        if isinstance(base, E.Expr) and isinstance(base.type, T.TupleType):
            return self._tuple_item(base, node)
        if isinstance(base, E.Expr) and isinstance(base.type, (T.TensorType, T.TileType)):
            return self.slice_value(base, node)
        self.fail(UnsupportedFeatureError, f"subscript '{ast.unparse(node)}' is not supported here", node,
                  hint="index tuples with a constant (t[0]), slice tensors and tiles (t[0:16, :]), and read "
                       "elements with pl.read(t, [i, j])")

    def _python_index_value(self, node: ast.AST) -> Any:
        if not isinstance(node, ast.Slice):
            return self.parse_value(node)
        parts = [self.parse_value(p) if p is not None else None for p in (node.lower, node.upper, node.step)]
        if any(p is not None and (not isinstance(p, int) or isinstance(p, bool)) for p in parts):
            self.fail(ParserTypeError, f"the bounds of '{ast.unparse(node)}' on a Python value must be integer "
                                       f"constants", node)
        return slice(*parts)

    def _tuple_item(self, base: E.Expr, node: ast.Subscript) -> E.Expr:
        index = self.parse_value(node.slice)
        if not isinstance(index, int) or isinstance(index, bool):
            self.fail(ParserSyntaxError, "a tuple index must be an integer constant", node.slice)
        if not 0 <= index < len(base.type.types):  # type: ignore[attr-defined]
            self.fail(ParserSyntaxError, f"tuple index {index} out of range for a "
                                         f"{len(base.type.types)}-element tuple", node.slice)  # type: ignore[attr-defined]
        return E.TupleGetItemExpr(base, index, self.span(node))

    def _value_Call(self, node: ast.Call) -> Any:  # noqa: N802
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" \
                and "self" not in self.symbols:
            return self.call_function(func.attr, node)
        path = self.pl_path(func)
        if path is not None:
            return self.call_pl(path, node)
        if isinstance(func, ast.Name) and self.lookup_var(func.id) is None:
            outside = self.env.lookup(func.id)
            if isinstance(outside, F.Function):
                return self.call_external(func.id, outside, node)
            if func.id == "abs" and len(node.args) == 1:
                return self._scalar_call(scalar_ops.abs_, node, self.parse_scalar_expr(node.args[0]))
            if func.id == "float" and len(node.args) == 1:
                text = self.parse_value(node.args[0])
                if isinstance(text, str):
                    return float(text)
        self.fail(UnsupportedFeatureError, f"call of '{ast.unparse(func)}' is not supported in a pl function",
                  node, hint="call ops as pl.<op>(...) and other functions of the program as self.<name>(...)")

    # -- pl.* calls ----------------------------------------------------------------------------------
    def call_pl(self, path: str, node: ast.Call) -> Any:
        if path in STATEMENT_ONLY:
            self.fail(ParserSyntaxError, f"pl.{path}(...) cannot be used as a value here", node)
        if path == "const":
            return self._const(node)
        if path in ("min", "max"):
            if len(node.args) != 2 or node.keywords:
                self.fail(ParserSyntaxError, f"pl.{path} takes exactly two scalar arguments", node)
            a, b = (self.parse_scalar_expr(x) for x in node.args)
            return self._scalar_call(scalar_ops.min_ if path == "min" else scalar_ops.max_, node, a, b)
        if path == "cast" and node.args:
            first = self.parse_value(node.args[0])
            if _is_number(first) or (isinstance(first, E.Expr) and isinstance(first.type, T.ScalarType)):
                if len(node.args) < 2:
                    self.fail(ParserSyntaxError, "pl.cast needs a target dtype", node)
                return self._scalar_call(scalar_ops.cast, node, self.to_expr(first, node.args[0]),
                                         self.parse_dtype(node.args[1]))
        if path == "no_dep":
            self.fail(UnsupportedFeatureError, "pl.no_dep(...) call-argument markers are not supported by pypto",
                      node, hint="use no_dep_args=[...] on the enclosing pl.at(...) scope")
        if path in REGION_BOUNDARY:
            return self.region_boundary(path, node)
        result = self.call_dsl(path, node)
        # Only an Orchestration body folds pl.tensor.dim: elsewhere the call is skipped.
        return self.fold_tensor_dim(result) if self.func_type is FunctionType.Orchestration else result

    def _const(self, node: ast.Call) -> E.Expr:
        if len(node.args) != 2 or node.keywords:
            self.fail(ParserSyntaxError, "pl.const takes a literal and a dtype: pl.const(0, pl.INT32)", node)
        value = self.parse_value(node.args[0])
        if not _is_number(value):
            self.fail(ParserSyntaxError, "pl.const takes an int or float literal", node.args[0])
        dtype = self.parse_dtype(node.args[1])
        if isinstance(value, int):
            self.check_int64(value, node)
        problem = const_problem(value, dtype)
        if problem is not None:
            self.fail(ParserTypeError, f"pl.const: {problem}", node.args[0])
        if isinstance(value, int):
            return E.ConstInt(value, dtype, self.span(node))
        return E.ConstFloat(value, dtype, self.span(node))

    def dsl_arguments(self, node: ast.Call) -> tuple[list[Any], dict[str, Any]]:
        args = list(map(self.parse_value, node.args))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                self.fail(UnsupportedFeatureError, "**kwargs is not supported in a pl call", kw)
            if kw.arg == "attrs" and isinstance(kw.value, ast.Dict):
                continue  # machine attrs of the call (docs/dsl.md, the printed form), applied by call_dsl
            kwargs[kw.arg] = self.parse_value(kw.value)
        return args, kwargs

    def call_attrs_of(self, node: ast.AST) -> dict[str, Any]:
        for kw in getattr(node, "keywords", ()):
            if kw.arg == "attrs" and isinstance(kw.value, ast.Dict):
                return self.parse_call_attrs(kw.value)
        return {}

    def call_dsl(self, path: str, node: ast.Call, args: list[Any] | None = None,
                 kwargs: dict[str, Any] | None = None) -> E.Expr:
        entry = self.dsl_names.get(path)
        if entry is None:
            ns, _, name = path.rpartition(".")
            where = f"pl.{ns}" if ns else "pl"
            self.fail(InvalidOperationError, f"Unknown {where} operation: {name}", node,
                      hint=self._op_suggestion(path))
        if args is None or kwargs is None:
            args, kwargs = self.dsl_arguments(node)
        fn = entry.function
        sig, target, wants_ctx = _CALL_PLANS.get(fn) or _call_plan(fn)
        if wants_ctx:
            kwargs = {**kwargs, "ctx": self}
        span = self.span(node)
        if sig is not None:
            try:
                sig.bind(*args, span=span, **kwargs)
            except TypeError as exc:
                self.fail(InvalidOperationError, f"pl operation '{path}': {fn.__name__}() {exc}", node)
        try:
            if target is None:
                result = fn(*args, span=span, **kwargs)
            else:
                # A `dsl_entry` wrapper re-checks the call on every use; call what it wraps and let the
                # wrapper explain only a call that fails (building IR has no side effects to undo).
                try:
                    result = target(*args, span=span, **kwargs)
                except TypeError:
                    result = fn(*args, span=span, **kwargs)
        except ParserError:
            raise
        except (TypeError, ValueError) as exc:
            text = str(exc)
            prefix = f"pl.{path}"
            self.fail(InvalidOperationError, text if text.startswith(prefix) else f"{prefix}: {text}", node)
        if not isinstance(result, E.Expr):
            self.fail(InvalidOperationError, f"pl.{path} did not produce an expression", node)
        attrs = self.call_attrs_of(node) if getattr(node, "keywords", None) else None
        if attrs:
            if not isinstance(result, E.Call):
                self.fail(InvalidOperationError, f"pl.{path} with attrs= must build an op call", node)
            result = result.with_fields(attrs={**result.attrs, **attrs})  # type: ignore[assignment]
        return result

    def op_call(self, name: str, args: list[E.Expr], kwargs: dict[str, Any], node: ast.AST) -> E.Call:
        """An IR op call the parser builds itself (not through a DSL name), with located errors."""
        from pypto_core.ops.registry import create_op_call

        try:
            return create_op_call(name, args, kwargs, span=self.span(node))
        except (TypeError, ValueError) as exc:
            self.fail(InvalidOperationError, f"{name}: {exc}", node)

    @staticmethod
    def _op_suggestion(path: str) -> str | None:
        import difflib

        from pypto_core.ops.registry import op_registry
        from pypto_core.plugins.host import unavailable_provider_note

        hit = difflib.get_close_matches(path, list(op_registry().dsl), n=1)
        note = unavailable_provider_note("dsl", path)[2:]  # a failed or blocked plugin that might provide it
        return "; ".join(([f"did you mean pl.{hit[0]}?"] if hit else []) + ([note] if note else [])) or None

    def fold_tensor_dim(self, call: E.Expr) -> E.Expr:
        """In an Orchestration body, `pl.tensor.dim(a, k)` of a pl.dynamic axis is that symbol (docs/passes/outline_incore_scopes.md)."""
        if self.func_type is not FunctionType.Orchestration:
            return call
        return fold_dim_of_param(call, self.params, set(map(id, self.program.dynamic_vars.values())))

    def is_folded_dim(self, node: ast.AST, value: E.Expr) -> bool:
        """`node` is a `pl.tensor.dim(...)` call that `fold_tensor_dim` turned into a pl.dynamic symbol."""
        return (isinstance(node, ast.Call) and isinstance(value, E.Var)
                and self.pl_path(node.func) in ("tensor.dim", "dim")
                and any(value is v for v in self.program.dynamic_vars.values()))

    # -- self.f(...) -----------------------------------------------------------------------------------
    def call_external(self, name: str, callee: F.Function, node: ast.Call) -> E.Expr:
        """A bare-name call of a `@pl.function` defined outside the program (docs/dsl.md, calls between
        functions): the program takes the function in under its name, and the call is a call of it."""
        if not self.program.in_program:
            self.fail(UnsupportedFeatureError, f"call of the @pl.function '{name}' outside a @pl.program: a call "
                                               f"needs a program that holds its callee", node,
                      hint=f"call '{name}' from a method of a @pl.program class, which then includes it")
        if name != callee.name:
            self.fail(UnsupportedFeatureError, f"'{name}' names the @pl.function '{callee.name}': call a "
                                               f"function by its own name, which the program gives it", node)
        known = self.program.parsed.get(name)
        if name in self.program.global_vars and known is not callee:
            what = "a method of this program" if name not in self.program.external else "another @pl.function"
            self.fail(ParserSyntaxError, f"'{name}' is {what} and also the outside @pl.function called here; "
                                         f"a program holds one function per name", node,
                      hint=f"rename one of them, or call the method as self.{name}(...)")
        if name not in self.program.external:
            self.program.external[name] = callee
            self.program.global_vars[name] = E.GlobalVar(name)
            self.program.parsed[name] = callee
        return self.call_function(name, node)

    def call_function(self, name: str, node: ast.Call) -> E.Expr:
        gv = self.program.global_vars.get(name)
        if gv is None:
            self.fail(UndefinedVariableError, f"Function '{name}' not defined in program", node)
        args = [self.parse_expr(a, "a call argument") for a in node.args]
        callee = self.program.parsed.get(name)
        if callee is None:
            self.program.forward_call = True
        if callee is not None and len(args) != len(callee.params):
            self.fail(ParserSyntaxError, f"function '{name}' takes {len(callee.params)} argument(s), "
                                         f"got {len(args)}", node)
        bad = argument_mismatch(callee.params, args) if callee is not None else None
        if bad is not None:
            self.fail(ParserTypeError, f"argument {bad[0] + 1} of '{name}' {bad[1]}", node.args[bad[0]])
        attrs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg == "attrs":
                attrs.update(self.parse_call_attrs(kw.value))
            elif kw.arg == "device":
                attrs["device"] = self.parse_value(kw.value)
            else:
                self.fail(ParserSyntaxError, f"a call of '{name}' takes no keyword '{kw.arg}' "
                                             f"(only attrs={{...}})", kw)
        tagged = [v for v in self.tagged_in(args) if not any(v is w for w in attrs.get("dump_vars", ()))]
        if tagged:  # a dispatch consuming dump-tagged tensors lists them (docs/dsl.md, scopes: pl.at)
            attrs["dump_vars"] = [*attrs.get("dump_vars", ()), *tagged]
        ret: T.Type = T.UnknownType()
        if callee is not None:
            ret = call_return_type(callee, args)
        return E.Call(gv, args, {}, attrs, ret, self.span(node))

    def parse_call_attrs(self, node: ast.AST) -> dict[str, Any]:
        if not isinstance(node, ast.Dict):
            self.fail(ParserSyntaxError, "attrs= must be a dict literal", node)
        out: dict[str, Any] = {}
        for k, v in zip(node.keys, node.values):
            if not (isinstance(k, ast.Constant) and isinstance(k.value, str)):
                self.fail(ParserSyntaxError, "attrs keys must be string literals", k or node)
            value = self.parse_value(v)
            if isinstance(value, list) and all(isinstance(x, (E.Var, ArgDirection)) for x in value):
                value = list(value)
            out[k.value] = value
        return out


_CallPlan = tuple[inspect.Signature | None, Any, bool]
_CALL_PLANS: dict[Any, _CallPlan] = {}


def _call_plan(fn: Any) -> _CallPlan:
    """How to call a DSL function: (the signature to check the call against, what a `dsl_entry` wrapper
    wraps, whether it wants the parser as `ctx`). Worked out on first use and kept in _CALL_PLANS, keyed
    by the function object itself (looking signatures up dominated parse time)."""
    plan = _CALL_PLANS[fn] = (_strict_signature(fn), getattr(fn, "dsl_target", None),
                              bool(getattr(fn, "wants_dsl_context", False)))
    return plan


def _strict_signature(fn: Any) -> inspect.Signature | None:
    """The signature to check a DSL call against, or None when the function takes anything (it then
    checks its own arguments)."""
    try:
        sig: inspect.Signature | None = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    if sig is not None:
        kinds = {p.kind for p in sig.parameters.values()}
        if inspect.Parameter.VAR_POSITIONAL in kinds and inspect.Parameter.VAR_KEYWORD in kinds:
            sig = None
    return sig


def call_return_type(callee: Any, args: list[E.Expr]) -> T.Type:
    """The callee's return type(s) in the caller's terms (pypto_core.ir.calls)."""
    from pypto_core.ir.calls import call_return_type as in_caller_terms

    return in_caller_terms(callee.params, callee.return_types, args)


def fold_dim_of_param(call: E.Expr, params: list[E.Var], dynamic_ids: set[int]) -> E.Expr:
    """`tensor.dim(p, k)` -> the dynamic symbol p's type declares at axis k, when there is one."""
    from pypto_core.ops.registry import opdef_of

    opdef = opdef_of(call)
    if opdef is None or not opdef.traits.extent_query or len(call.args) != 2:  # type: ignore[union-attr]
        return call
    tensor, axis = call.args
    if not any(tensor is p for p in params) or not isinstance(axis, E.ConstInt):
        return call
    shape = getattr(tensor.type, "shape", ())
    k = axis.value if axis.value >= 0 else axis.value + len(shape)
    if 0 <= k < len(shape) and isinstance(shape[k], E.Var) and id(shape[k]) in dynamic_ids:
        return shape[k]
    return call
