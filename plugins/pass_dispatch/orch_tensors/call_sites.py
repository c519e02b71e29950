"""Where each InCore function is called, and what an argument may be clobbered with there
(docs/passes/optimize_orch_tensors.md, Pattern 1: when an input buffer may become an output)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pypto_core.analysis.walk import statements, vars_read
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.visitor import IRVisitor
from pypto_plugins.pass_dispatch.orch_tensors.facts import is_fresh_buffer


@dataclass
class CallSite:
    caller: F.Function
    call: E.Call
    # Variables defined in the same iteration as the call: the enclosing loop's iter_args and what its body
    # (or the function, outside every loop: its parameters and body) defines before the call.
    same_iteration: set[int] = field(default_factory=set)


class _Collector(IRVisitor):
    def __init__(self, caller: F.Function, into: dict[str, list[CallSite]]) -> None:
        self.caller, self.into = caller, into
        self.frames: list[set[int]] = [{id(p) for p in caller.params}]

    def visit_assign_stmt(self, stmt: S.AssignStmt) -> None:
        super().visit_assign_stmt(stmt)
        self.frames[-1].add(id(stmt.var))

    def _loop(self, loop: S.ForStmt | S.WhileStmt) -> None:
        self.frames.append({id(a) for a in loop.iter_args})
        self.visit_stmt(loop.body)  # the header's expressions hold no call of a program function
        self.frames.pop()
        self.frames[-1].update(id(v) for v in loop.return_vars)

    def visit_for_stmt(self, stmt: S.ForStmt) -> None:
        self._loop(stmt)

    def visit_while_stmt(self, stmt: S.WhileStmt) -> None:
        self._loop(stmt)

    def visit_call(self, call: E.Call) -> None:
        super().visit_call(call)
        if isinstance(call.op, E.GlobalVar):
            self.into.setdefault(call.op.name, []).append(CallSite(self.caller, call, set(self.frames[-1])))


def call_sites(program: F.Program) -> dict[str, list[CallSite]]:
    """Each called function's call sites, over the whole program."""
    out: dict[str, list[CallSite]] = {}
    for func in program.functions.values():
        _Collector(func, out).visit_stmt(func.body)
    return out


class Uses:
    """How often each variable of a function is read (an iter_arg's init counts at its loop's header), and
    which statement defines each assigned variable."""

    def __init__(self, func: F.Function) -> None:
        self.reads = Counter(id(v) for v in vars_read(func.body))
        self.defs = {id(s.var): s for s in statements(func.body) if isinstance(s, S.AssignStmt)}

    def is_fresh_buffer(self, var: E.Expr) -> bool:
        """`var` holds a new buffer with undefined contents that only one call reads."""
        stmt = self.defs.get(id(var))
        return stmt is not None and is_fresh_buffer(stmt.value) and self.reads[id(var)] == 1

    def may_clobber(self, var: E.Expr, site: CallSite) -> bool:
        """Whether the call at `site` may write into `var`'s buffer without anyone seeing it: `var` is read only
        there, is defined in the call's own iteration (a buffer from outside a loop would be clobbered for
        the next iteration), and, for an iter_arg, the buffer it starts as may be clobbered too."""
        if not isinstance(var, E.Var) or self.reads[id(var)] != 1 or id(var) not in site.same_iteration:
            return False
        while isinstance(var, E.IterArg):
            var = var.initValue
            if not isinstance(var, E.Var) or self.reads[id(var)] != 1:
                return False
        return True
