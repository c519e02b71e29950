"""`ib.for_loop(...)` and `ib.while_loop(...)` (docs/ir_builder.md): iter_args, return vars, outputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pypto_core.ir.builder.frame import BuilderFrame
from pypto_core.ir.builder.values import body_of, caller_span, expr_of
from pypto_core.ir.enums import ForKind
from pypto_core.ir.expr import Expr, IterArg, Var
from pypto_core.ir.span import Span
from pypto_core.ir.stmt import ForStmt, Stmt, WhileStmt
from pypto_core.ir.types import Type

if TYPE_CHECKING:
    from pypto_core.ir.builder.ir_builder import IRBuilder


class LoopBuilder(BuilderFrame):
    """What for and while loops share: the carried values (iter_args), the values after the loop
    (return vars, one per iter_arg, typed like it) and the body. The trailing `YieldStmt` is emitted by hand."""

    def __init__(self, builder: IRBuilder, span: Span) -> None:
        super().__init__(builder, span)
        self._iter_args: list[IterArg] = []
        self._return_vars: list[Var] = []
        self._stmts: list[Stmt] = []

    def _begin(self) -> None:
        self._builder._require_statement_context(f"begin {self.kind}")

    def iter_arg(self, name: str, init_value: Any, type: Type | None = None,  # noqa: A002 - PyPTO's keyword
                 span: Span | None = None) -> IterArg:
        """A carried value, typed like its initial value."""
        self._require_open("iter_arg")
        span = span or caller_span()
        init = expr_of(init_value, span)
        if type is not None and type != init.type:
            raise ValueError(f"Type mismatch in iter_arg '{name}': the initial value has type {init.type} but "
                             f"type={type} was given; drop type= or make the initial value of that type")
        arg = IterArg(name, init.type, init, span)
        self._iter_args.append(arg)
        return arg

    def return_var(self, name: str, type: Type | None = None,  # noqa: A002 - PyPTO's keyword
                   span: Span | None = None) -> Var:
        """The value after the loop of the iter_arg at the same position, typed like it."""
        self._require_open("return_var")
        position = len(self._return_vars)
        if position < len(self._iter_args):
            carried = self._iter_args[position]
            if type is not None and type != carried.type:
                raise ValueError(f"Type mismatch in return_var '{name}': iter_arg '{carried.name_hint}' at "
                                 f"position {position} has type {carried.type} but type={type} was given")
            type = carried.type  # noqa: A001
        elif type is None:
            raise ValueError(f"return_var '{name}' has no iter_arg at position {position} to take its type from: "
                             f"declare the iter_arg first or give type=")
        var = Var(name, type, span or caller_span())
        self._return_vars.append(var)
        return var

    def add_stmt(self, stmt: Stmt) -> None:
        self._stmts.append(stmt)

    def _check_counts(self, what: str) -> None:
        if len(self._iter_args) != len(self._return_vars):
            raise RuntimeError(f"{what} has {len(self._iter_args)} iteration arguments but "
                               f"{len(self._return_vars)} return variables. They must match.")

    def output(self, index: int = 0) -> Var:
        """The return var at `index` (after the block)."""
        self._require_done("output")
        if not -len(self._return_vars) <= index < len(self._return_vars):
            raise IndexError(f"output index {index} out of range: the {self.kind} has "
                             f"{len(self._return_vars)} return variable(s)")
        return self._return_vars[index]

    def outputs(self) -> list[Var]:
        """Every return var (after the block)."""
        self._require_done("outputs")
        return list(self._return_vars)


class ForLoopBuilder(LoopBuilder):
    kind = "for loop"

    def __init__(self, builder: IRBuilder, loop_var: Var, start: Any, stop: Any, step: Any, span: Span,
                 kind: ForKind, attrs: Mapping[str, Any] | None) -> None:
        super().__init__(builder, span)
        if not isinstance(loop_var, Var) or isinstance(loop_var, IterArg):
            raise TypeError(f"for_loop() needs a loop variable made with ib.var(name, type), got {loop_var!r}")
        self.loop_var = loop_var
        self.start: Expr = expr_of(start, span)
        self.stop: Expr = expr_of(stop, span)
        self.step: Expr = expr_of(step, span)
        self.loop_kind = ForKind(kind)
        self.attrs = dict(attrs or {})

    def _finish(self) -> ForStmt:
        self._check_counts("For loop")
        node = ForStmt(self.loop_var, self.start, self.stop, self.step, self._iter_args,
                       body_of(self._stmts, self.span), self._return_vars, self.span, self.loop_kind, self.attrs)
        self._builder.emit(node)
        return node


class WhileLoopBuilder(LoopBuilder):
    kind = "while loop"

    def __init__(self, builder: IRBuilder, condition: Any, span: Span) -> None:
        super().__init__(builder, span)
        self.condition: Expr = expr_of(condition, span)

    def set_condition(self, condition: Any) -> None:
        """Replace the condition (it usually reads the iter_args, made after the loop opened)."""
        self._require_open("set_condition")
        self.condition = expr_of(condition, self.span)

    def _finish(self) -> WhileStmt:
        self._check_counts("While loop")
        node = WhileStmt(self.condition, self._iter_args, body_of(self._stmts, self.span), self._return_vars,
                         self.span)
        self._builder.emit(node)
        return node
