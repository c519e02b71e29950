"""A loop compiled into one Python function (docs/architecture.md, performance).

The machine compiles every statement into a closure; a loop iteration of n op calls then pays, per op, the
closures of its statement, its call site, its operand list and each operand read, and a dispatch over the body's
statements. A `for` or `while` loop whose body assigns or yields is instead generated as Python source: the
iteration, its assignments and yield inline, a plain op call with its operand reads inline too, exactly as
`calls._op_call` runs it (the same evaluate, kwargs, result check and error); any other value (a call writing
through an aliased accumulator, a cube op run once for a fork's lanes) by its closure, and every other statement
(an if, an inner loop, a placed tile's assignment) by its own closure, its signal (break, continue, return)
acted on in place.

Only what runs per iteration is generated; the code of a source text is compiled once per process (the texts
repeat across loops and programs: every constant and closure is a bound name, not part of the text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import CodeType
from typing import TYPE_CHECKING, Any

import numpy as np

from pypto_core.interp.calls import plain_site
from pypto_core.interp.errors import MachineError
from pypto_core.interp.exprs import compile_expr, compile_handle, compile_var, constant
from pypto_core.interp.frame import BREAK, CONTINUE
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S

if TYPE_CHECKING:
    from pypto_core.interp.code import FunctionCode

Runner = Callable[[list[Any]], Any]
_CONSTANTS = (E.ConstInt, E.ConstFloat, E.ConstBool)
_NO_SIGNAL = (S.AssignStmt, S.EvalStmt)  # statements whose runner always returns None
_COMPILED: dict[str, CodeType] = {}
_COMPILED_LIMIT = 4096  # distinct loop texts kept; a long process with more starts over (the texts are small)


class _Source:
    """The generated function's text and the objects its names are bound to."""

    def __init__(self, code: FunctionCode) -> None:
        self.code = code
        self.lines: list[str] = []
        self.names: dict[str, Any] = {"ndarray": np.ndarray, "MachineError": MachineError, "BREAK": BREAK,
                                      "CONTINUE": CONTINUE}
        self.temps = 0
        self.inlined = 0

    def bind(self, value: Any, prefix: str) -> str:
        name = f"{prefix}{len(self.names)}"
        self.names[name] = value
        return name

    def temp(self) -> str:
        self.temps += 1
        return f"v{self.temps}"

    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)

    # -- operands ---------------------------------------------------------------------------------
    def value(self, e: E.Expr, depth: int, handle: bool = False) -> str:
        """Emit the evaluation of `e` (in the order the closures would evaluate it); its value's name."""
        if isinstance(e, _CONSTANTS):
            return self.bind(constant(e), "K")
        if isinstance(e, E.MakeTuple) and all(isinstance(x, _CONSTANTS) for x in e.elements):
            return self.bind(tuple(constant(x) for x in e.elements), "K")
        if isinstance(e, E.Var) and not isinstance(e, E.GlobalVar):
            return self.var(e, depth, handle)
        if isinstance(e, E.Call):
            site = plain_site(self.code, e)
            if site is not None:
                return self.call(site, depth)
        read = self.bind(compile_expr(self.code, e), "A")
        out = self.temp()
        self.emit(depth, f"{out} = {read}(fr)")
        return out

    def var(self, var: E.Var, depth: int, handle: bool) -> str:
        """A variable's read: the slot's array as it is in the usual case, else the read closure (its checks:
        unset, released, placed bytes)."""
        read = compile_var(self.code, var, handle=handle)
        out = self.temp()
        if self.code.placement(var) is not None:
            self.emit(depth, f"{out} = {self.bind(read, 'R')}(fr)")
            return out
        slot = self.code.slots(var)
        self.emit(depth, f"{out} = fr[{slot}]")
        self.emit(depth, f"if {out}.__class__ is not ndarray:")
        self.emit(depth + 1, f"{out} = {self.bind(read, 'R')}(fr)")
        return out

    def call(self, site: Any, depth: int) -> str:
        """An op call as `calls._op_call`'s run_plain runs it."""
        operands = [self.value(a, depth) for a in site.call.args]
        args, out = self.temp(), self.temp()
        evaluate, call, kwargs = self.bind(site.evaluate, "EV"), self.bind(site.call, "C"), self.bind(site.kwargs, "KW")
        failed, finish = self.bind(site.failed, "FAIL"), self.bind(site.finish, "FIN")
        shape, dtype = self.bind(site.shape, "SH"), self.bind(site.dtype, "DT")
        self.emit(depth, f"{args} = [{', '.join(operands)}]")
        self.emit(depth, "try:")
        self.emit(depth + 1, f"{out} = {evaluate}(fr[0], {call}, {args}, {kwargs})")
        self.emit(depth, "except MachineError:")
        self.emit(depth + 1, "raise")
        self.emit(depth, "except Exception as exc:")
        self.emit(depth + 1, f"raise {failed}(exc) from exc")
        self.emit(depth, f"if {out}.__class__ is not ndarray or {out}.shape != {shape} or {out}.dtype != {dtype}:")
        self.emit(depth + 1, f"{out} = {finish}(fr, {out}, {args})")
        self.inlined += 1
        return out

    # -- statements -------------------------------------------------------------------------------
    def statement(self, item: Any, depth: int, target: tuple[int, ...] | None,
                  other: Callable[[Any], Runner]) -> None:
        if isinstance(item, S.AssignStmt) and self.inline_assign(item, depth):
            return
        if isinstance(item, S.YieldStmt) and self.inline_yield(item, depth, target):
            return
        run = self.bind(other(item), "RUN")
        if isinstance(item, _NO_SIGNAL):
            self.emit(depth, f"{run}(fr)")
            return
        self.emit(depth, f"sig = {run}(fr)")
        self.emit(depth, "if sig is not None:")
        self.emit(depth + 1, "if sig is BREAK:")
        self.emit(depth + 2, "break")
        self.emit(depth + 1, "if sig is CONTINUE:")
        self.emit(depth + 2, "continue")
        self.emit(depth + 1, "return sig")

    def inline_assign(self, stmt: S.AssignStmt, depth: int) -> bool:
        """`x = <value>` of an unplaced x: a plain op call site inline, any other value by its closure (as
        `stmts._assign` evaluates it)."""
        if self.code.placement(stmt.var) is not None:
            return False
        site = plain_site(self.code, stmt.value) if isinstance(stmt.value, E.Call) else None
        if site is not None:
            out = self.call(site, depth)
        else:
            out = self.temp()
            self.emit(depth, f"{out} = {self.bind(compile_handle(self.code, stmt.value), 'A')}(fr)")
            self.inlined += 1
        self.emit(depth, f"fr[{self.code.slots(stmt.var)}] = {out}")
        return True

    def inline_yield(self, stmt: S.YieldStmt, depth: int, target: tuple[int, ...] | None) -> bool:
        """The loop's yield into unplaced iter_args: every value first (a yield may permute them), then the
        slots."""
        if target is None or len(stmt.value) != len(target) or any(self.code.placement(self.code.slots.vars[s]) is not None
                                                 for s in target):
            return False
        values = [self.value(v, depth, handle=True) if isinstance(v, E.Var) else self.value(v, depth)
                  for v in stmt.value]
        for slot, value in zip(target, values):
            self.emit(depth, f"fr[{slot}] = {value}")
        self.inlined += 1
        return True


def compile_counted_loop(code: FunctionCode, items: Sequence[Any], target: tuple[int, ...],
                         other: Callable[[Any], Runner], setup: Runner, bounds: Runner, loop_slot: int,
                         to: type, end: Runner) -> Runner | None:
    """A `for` loop as one generated function, or None when its body inlines no statement (the closures then
    run it).

    `items`: the body's statements (core-group batches as lists); `other(item)` compiles one the generated code
    does not inline; `setup(fr)` binds the carries' inits; `bounds(fr)` gives the checked trip range (budget
    spent); `end(fr)` hands the carries to the loop's results.
    """
    src = _Source(code)
    head = [f"for i in {src.bind(bounds, 'BOUNDS')}(fr):", f"    fr[{loop_slot}] = {src.bind(to, 'TO')}(i)"]
    return _loop(src, items, target, other, setup, [], head, end)


def compile_while_loop(code: FunctionCode, items: Sequence[Any], target: tuple[int, ...] | None,
                       other: Callable[[Any], Runner], setup: Runner, cond: Runner, span: Any,
                       end: Runner) -> Runner | None:
    """A `while` loop as one generated function, or None (as `compile_counted_loop`): `cond(fr)` is its
    condition, one unit of the machine's loop budget is spent per iteration, `target` is where its yields write
    (its iter_args, or the enclosing construct's slots when it has none)."""
    src = _Source(code)
    before = [f"budget = {src.bind(code.machine, 'MACHINE')}.budget"]
    head = [f"while {src.bind(cond, 'COND')}(fr):", f"    budget.spend(1, {src.bind(span, 'SPAN')})"]
    return _loop(src, items, target, other, setup, before, head, end)


def _loop(src: _Source, items: Sequence[Any], target: tuple[int, ...] | None, other: Callable[[Any], Runner],
          setup: Runner, before: list[str], head: list[str], end: Runner) -> Runner | None:
    for item in items:
        src.statement(item, 2, target, other)
    if not src.inlined:
        return None
    body = src.lines
    src.lines = []
    src.emit(0, "def run(fr):")
    src.emit(1, f"{src.bind(setup, 'SETUP')}(fr)")
    for line in (*before, *head):
        src.emit(1, line)
    src.lines += body
    src.emit(1, f"return {src.bind(end, 'END')}(fr)")
    text = "\n".join(src.lines) + "\n"
    compiled = _COMPILED.get(text)
    if compiled is None:
        if len(_COMPILED) >= _COMPILED_LIMIT:
            _COMPILED.clear()
        compiled = _COMPILED[text] = compile(text, "<pypto loop>", "exec")
    namespace = dict(src.names)
    exec(compiled, namespace)  # noqa: S102 - the text is generated here, from names bound above
    return namespace["run"]
