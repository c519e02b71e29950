"""`ir.IRBuilder`: PyPTO's programmatic IR builder (docs/ir_builder.md).

A stack of contexts (program, function, loops, ifs, scopes); statements go to the innermost one, a closed
loop / if / scope goes to the one around it. Nothing is normalized or verified beyond the checks the
methods name: the IR is what the calls say, as the parser builds it for the same program.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir.builder.frame import BuilderFrame
from pypto_core.ir.builder.if_scope import IfStmtBuilder, ScopeBuilder
from pypto_core.ir.builder.loops import ForLoopBuilder, LoopBuilder, WhileLoopBuilder
from pypto_core.ir.builder.program_function import FunctionBuilder, ProgramBuilder
from pypto_core.ir.builder.values import caller_span, expr_list, expr_of
from pypto_core.ir.calls import call_return_type
from pypto_core.ir.enums import (
    CompactMode,
    ForKind,
    FunctionType,
    Level,
    PadValue,
    Role,
    ScopeKind,
    TileLayout,
)
from pypto_core.ir.expr import Call, Expr, GlobalVar, MakeTuple, Var
from pypto_core.ir.span import Span
from pypto_core.ir.stmt import AssignStmt, BreakStmt, ContinueStmt, EvalStmt, ReturnStmt, Stmt
from pypto_core.ir.types import MemRef, TensorType, TensorView, TileType, TileView, Type, UnknownType


class IRBuilder:
    """Builds programs, functions and statements with context managers (docs/ir_builder.md)."""

    def __init__(self) -> None:
        self._stack: list[BuilderFrame] = []

    # -- the context stack ------------------------------------------------------------------------------------
    def _push(self, frame: BuilderFrame) -> None:
        self._stack.append(frame)

    def _pop(self, frame: BuilderFrame) -> None:
        if not self._stack or self._stack[-1] is not frame:
            inner = self._stack[-1].describe() if self._stack else "nothing"
            raise RuntimeError(f"Cannot close the {frame.describe()}: the innermost open context is {inner}; "
                               f"contexts close in the reverse order they opened (use `with`)")
        self._stack.pop()

    def _innermost(self, kind: type[BuilderFrame]) -> Any:
        for frame in reversed(self._stack):
            if isinstance(frame, kind):
                return frame
        return None

    def _require_statement_context(self, action: str) -> None:
        if self._innermost(FunctionBuilder) is None:
            raise RuntimeError(f"Cannot {action}: not inside a function; open `with ib.function(...)` first")

    # -- contexts ---------------------------------------------------------------------------------------------
    def program(self, name: str, span: Span | None = None) -> ProgramBuilder:
        """`with ib.program(name) as prog:`; on exit `prog.get_result()` is the Program of the added functions."""
        return ProgramBuilder(self, name, span or caller_span())

    def function(self, name: str, span: Span | None = None, type: FunctionType = FunctionType.Opaque,  # noqa: A002
                 level: Level | None = None, role: Role | None = None, attrs: Mapping[str, Any] | None = None,
                 requires_runtime_binding: bool = False) -> FunctionBuilder:
        """`with ib.function(name, type=...) as f:`; level and role follow the type as for ir.Function."""
        return FunctionBuilder(self, name, span or caller_span(), FunctionType(type), level, role, attrs,
                               requires_runtime_binding)

    def for_loop(self, loop_var: Var, start: Any, stop: Any, step: Any, span: Span | None = None,
                 kind: ForKind = ForKind.Sequential, attrs: Mapping[str, Any] | None = None) -> ForLoopBuilder:
        """`with ib.for_loop(i, 0, n, 1) as loop:`; iter_args and return vars are declared on `loop`."""
        return ForLoopBuilder(self, loop_var, start, stop, step, span or caller_span(), kind, attrs)

    def while_loop(self, condition: Any, span: Span | None = None) -> WhileLoopBuilder:
        """`with ib.while_loop(cond) as loop:`; `loop.set_condition(...)` once the iter_args exist."""
        return WhileLoopBuilder(self, condition, span or caller_span())

    def if_stmt(self, condition: Any, span: Span | None = None) -> IfStmtBuilder:
        """`with ib.if_stmt(cond) as branch:` ... `branch.else_()` ..."""
        return IfStmtBuilder(self, condition, span or caller_span())

    def scope(self, scope_kind: ScopeKind, span: Span | None = None, level: Level | None = None,
              role: Role | None = None, split: Any = None, name_hint: str = "", core_num: Any = None,
              sync_start: bool | None = None, manual: bool | None = None,
              attrs: Mapping[str, Any] | None = None) -> ScopeBuilder:
        """`with ib.scope(ir.ScopeKind.InCore, name_hint="k"):` (Hierarchy needs level=, SplitAiv split=)."""
        keywords = {"level": level, "role": role, "split": split, "core_num": core_num, "sync_start": sync_start,
                    "manual": manual}
        return ScopeBuilder(self, scope_kind, span or caller_span(), name_hint, attrs, keywords)

    # -- variables and statements -----------------------------------------------------------------------------
    def var(self, name: str, type: Type, span: Span | None = None) -> Var:  # noqa: A002 - PyPTO's keyword
        """A new Var (nothing is emitted)."""
        return Var(name, type, span or caller_span())

    def emit(self, stmt: Stmt) -> None:
        """Append a statement (e.g. an `ir.YieldStmt`) to the innermost context."""
        if not isinstance(stmt, Stmt):
            raise TypeError(f"emit() takes an ir statement, got {type(stmt).__name__}")
        if not self._stack:
            raise RuntimeError("Cannot emit statement: not inside any context")
        frame = self._stack[-1]
        if not frame.holds_statements:
            raise RuntimeError(f"Cannot emit statement: the innermost context is {frame.describe()}, which holds "
                               f"functions, not statements; open `with ib.function(...)` first")
        frame.add_stmt(stmt)

    def let(self, name: str, value: Any, type: Type | None = None,  # noqa: A002 - PyPTO's keyword
            span: Span | None = None) -> Var:
        """Emit `name = value` with a new Var typed like the value and return the Var.

        `type` may only refine a type of the same kind (or give one to an untyped value). A call of a
        program function (`ir.Call(gvar, args, span)`, untyped) is typed from the function when it was
        already added to the program.
        """
        span = span or caller_span()
        value = self._typed_function_call(name, expr_of(value, span), type)
        inferred = value.type
        var_type = inferred
        if type is not None:
            if not isinstance(type, Type):
                raise TypeError(f"let '{name}': type= must be an ir type, got {type!r}")
            if not isinstance(inferred, UnknownType) and inferred.__class__ is not type.__class__:
                raise TypeError(f"Type override for '{name}' is incompatible: inferred "
                                f"{inferred.__class__.__name__} but override is {type.__class__.__name__}")
            var_type = type
        var = Var(name, var_type, span)
        self.emit(AssignStmt(var, value, span))
        return var

    def _typed_function_call(self, name: str, value: Expr, override: Type | None) -> Expr:
        """An untyped call of a program function, typed as the parser types `self.f(...)`."""
        if not (isinstance(value, Call) and isinstance(value.op, GlobalVar) and isinstance(value.type, UnknownType)):
            return value
        program: ProgramBuilder | None = self._innermost(ProgramBuilder)
        callee = program.added_function(value.op.name) if program is not None else None
        if callee is not None and len(callee.return_types) > 1 and override is None:
            raise ValueError(f"Cannot type '{name}': function '{callee.name}' returns {len(callee.return_types)} "
                             f"values and let binds one; give type=ir.TupleType([...]) for the tuple")
        if callee is not None and len(callee.return_types) == 1:
            typed = call_return_type(callee.params, callee.return_types, value.args)
        elif override is not None:
            typed = override
        else:
            return value
        return Call(value.op, value.args, kwargs=value.kwargs, attrs=value.attrs, type=typed, span=value.span)

    def assign(self, var: Var, value: Any, span: Span | None = None) -> AssignStmt:
        """Emit an assignment to an existing Var."""
        span = span or caller_span()
        stmt = AssignStmt(var, expr_of(value, span), span)
        self.emit(stmt)
        return stmt

    def return_stmt(self, values: Any = None, span: Span | None = None) -> ReturnStmt:
        """Emit `return`: no value (None or []), one value, or a list of values."""
        span = span or caller_span()
        stmt = ReturnStmt(expr_list(values, span), span)
        self.emit(stmt)
        return stmt

    def eval_stmt(self, expr: Any, span: Span | None = None) -> EvalStmt:
        """Emit an expression evaluated for its effect."""
        span = span or caller_span()
        stmt = EvalStmt(expr_of(expr, span), span)
        self.emit(stmt)
        return stmt

    def break_stmt(self, span: Span | None = None) -> BreakStmt:
        stmt = BreakStmt(span or caller_span())
        self.emit(stmt)
        return stmt

    def continue_stmt(self, span: Span | None = None) -> ContinueStmt:
        stmt = ContinueStmt(span or caller_span())
        self.emit(stmt)
        return stmt

    def inline_stmt(self, body: str, language: Any = None, span: Span | None = None) -> Stmt:
        """PyPTO's embedded-source statement: pypto's IR has no such node (docs/ir_builder.md)."""
        raise ValueError("inline_stmt: pypto's IR has no inline-source statement (no InlineStmt node); write "
                         "the computation with ops instead")

    def make_tuple(self, elements: Sequence[Any], span: Span | None = None) -> MakeTuple:
        """A MakeTuple of the elements (not emitted)."""
        span = span or caller_span()
        return MakeTuple(expr_list(list(elements), span), span)

    def add_function_attrs(self, attrs: Mapping[str, Any]) -> None:
        """Merge attrs into the enclosing function's (a key set twice is an error)."""
        function: FunctionBuilder | None = self._innermost(FunctionBuilder)
        if function is None:
            raise RuntimeError("add_function_attrs: not inside a function; call it inside `with ib.function(...)`")
        function.add_attrs(attrs)

    # -- queries ----------------------------------------------------------------------------------------------
    def in_function(self) -> bool:
        return self._innermost(FunctionBuilder) is not None

    def in_loop(self) -> bool:
        return self._innermost(LoopBuilder) is not None

    def in_if(self) -> bool:
        return self._innermost(IfStmtBuilder) is not None

    # -- type helpers (int dims and strides become INDEX constants) --------------------------------------------
    def memref(self, *args: Any, span: Span | None = None, **kwargs: Any) -> MemRef:
        return MemRef(*args, **kwargs)

    def tile_view(self, valid_shape: Sequence[Any] | None = None, stride: Sequence[Any] | None = None,
                  start_offset: Any = None, blayout: TileLayout = TileLayout.row_major,
                  slayout: TileLayout = TileLayout.none_box, fractal: int = 512, pad: PadValue = PadValue.null,
                  span: Span | None = None, compact: CompactMode = CompactMode.null) -> TileView:
        return TileView(valid_shape, stride, start_offset, blayout, slayout, fractal, pad, compact)

    def tensor_view(self, stride: Sequence[Any] | None, layout: Any, span: Span | None = None) -> TensorView:
        return TensorView(stride, layout)

    def tensor_type(self, shape: Sequence[Any], dtype: Any, memref: MemRef | None = None,
                    tensor_view: TensorView | None = None, span: Span | None = None) -> TensorType:
        return TensorType(shape, dtype, memref, tensor_view)

    def tile_type(self, shape: Sequence[Any], dtype: Any, memref: MemRef | None = None,
                  tile_view: TileView | None = None, memory_space: Any = None,
                  span: Span | None = None) -> TileType:
        return TileType(shape, dtype, memref, tile_view, memory_space)
