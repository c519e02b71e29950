"""`ib.program(...)` and `ib.function(...)` (docs/ir_builder.md): ProgramBuilder and FunctionBuilder."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pypto_core.ir.builder.frame import BuilderFrame
from pypto_core.ir.builder.values import body_of
from pypto_core.ir.enums import FunctionType, Level, ParamDirection, Role
from pypto_core.ir.expr import GlobalVar, Var
from pypto_core.ir.function import Function, Program, normalize_function_attrs
from pypto_core.ir.span import Span
from pypto_core.ir.stmt import SeqStmts, Stmt
from pypto_core.ir.types import Type

if TYPE_CHECKING:
    from pypto_core.ir.builder.ir_builder import IRBuilder


class ProgramBuilder(BuilderFrame):
    """A program: functions are declared (for calls made before they exist) and added; on close the
    Program holds the added functions (sorted by name, as every Program is)."""

    kind = "program"
    holds_statements = False

    def __init__(self, builder: IRBuilder, name: str, span: Span) -> None:
        super().__init__(builder, span)
        self.name = name
        self._global_vars: dict[str, GlobalVar] = {}
        self._functions: list[Function] = []

    def describe(self) -> str:
        return f"program '{self.name}' at {self.span.to_string()}"

    def _begin(self) -> None:
        for frame in self._builder._stack:
            raise RuntimeError(f"Cannot begin program '{self.name}': already inside {frame.describe()}; "
                               f"a program is the outermost context")

    def declare_function(self, name: str) -> GlobalVar:
        """The GlobalVar naming function `name` (the same one for every call with that name): the callee of
        `ir.Call(gvar, args, span)` before the function itself is built."""
        gv = self._global_vars.get(name)
        if gv is None:
            gv = self._global_vars[name] = GlobalVar(name)
        return gv

    def get_global_var(self, name: str) -> GlobalVar:
        gv = self._global_vars.get(name)
        if gv is None:
            raise RuntimeError(f"Function '{name}' not declared in current program: call "
                               f"declare_function('{name}') or add_function(...) first")
        return gv

    def add_function(self, func: Function) -> None:
        """Add a built function (declaring its name if needed); `ib.let` then types calls of it."""
        if not isinstance(func, Function):
            raise TypeError(f"add_function() takes an ir.Function (a FunctionBuilder's get_result()), "
                            f"got {type(func).__name__}")
        if self.added_function(func.name) is not None:
            raise ValueError(f"Function '{func.name}' was already added to program '{self.name}': a program "
                             f"holds one function per name")
        self.declare_function(func.name)
        self._functions.append(func)

    def added_function(self, name: str) -> Function | None:
        for f in self._functions:
            if f.name == name:
                return f
        return None

    def _finish(self) -> Program:
        return Program(self._functions, self.name, self.span)


class FunctionBuilder(BuilderFrame):
    """A function: parameters (with directions) and return types are declared on it, statements emitted
    through the IRBuilder. The Function is not added anywhere on close: `prog.add_function(f.get_result())`."""

    kind = "function"

    def __init__(self, builder: IRBuilder, name: str, span: Span, func_type: FunctionType, level: Level | None,
                 role: Role | None, attrs: Mapping[str, Any] | None, requires_runtime_binding: bool) -> None:
        super().__init__(builder, span)
        # Level and role follow the type as for ir.Function; a contradiction is reported at the call.
        probe = Function(name, [], [], SeqStmts([]), span, func_type, level, role, attrs, requires_runtime_binding)
        self.name = name
        self.func_type = probe.func_type
        self.level = probe.level
        self.role = probe.role
        self.attrs: dict[str, Any] = dict(probe.attrs)
        self.requires_runtime_binding = probe.requires_runtime_binding
        self._params: list[tuple[Var, ParamDirection]] = []
        self._return_types: list[Type] = []
        self._stmts: list[Stmt] = []

    def describe(self) -> str:
        return f"function '{self.name}' at {self.span.to_string()}"

    def _begin(self) -> None:
        for frame in self._builder._stack:
            if isinstance(frame, FunctionBuilder):
                raise RuntimeError(f"Cannot begin function '{self.name}': already inside function '{frame.name}' "
                                   f"at {frame.span.to_string()}")

    def param(self, name: str, type: Type, span: Span | None = None,  # noqa: A002 - PyPTO's keyword
              direction: ParamDirection = ParamDirection.In) -> Var:
        """Append a parameter and return its Var."""
        from pypto_core.ir.builder.values import caller_span

        self._require_open("param")
        if self._builder._stack[-1] is not self:
            raise ValueError("FuncArg must be called directly in function context, not nested: declare "
                             f"parameter '{name}' before opening loops, ifs or scopes")
        if not isinstance(type, Type):
            raise TypeError(f"param '{name}': the type must be an ir type (e.g. ir.TensorType(...)), "
                            f"got {type!r}")
        var = Var(name, type, span or caller_span())
        self._params.append((var, ParamDirection(direction)))
        return var

    def return_type(self, type: Type) -> None:  # noqa: A002 - PyPTO's name
        """Append one return type (once per returned value); may come after statements."""
        self._require_open("return_type")
        if not isinstance(type, Type):
            raise TypeError(f"return_type() of function '{self.name}' takes an ir type, got {type!r}")
        self._return_types.append(type)

    def add_attrs(self, attrs: Mapping[str, Any]) -> None:
        for key, value in normalize_function_attrs(attrs).items():
            if key in self.attrs:
                raise ValueError(f"Duplicate function attribute '{key}' in function '{self.name}'. Each attribute "
                                 f"is set once: drop the second '{key}' or give every attr in one place")
            self.attrs[key] = value

    def add_stmt(self, stmt: Stmt) -> None:
        self._stmts.append(stmt)

    def _finish(self) -> Function:
        return Function(self.name, self._params, self._return_types, body_of(self._stmts, self.span), self.span,
                        self.func_type, self.level, self.role, self.attrs, self.requires_runtime_binding)
