"""The ways `pypto reduce` makes a program smaller. Each strategy maps a program to candidate programs,
each one step simpler; the reducer (reducer.py) keeps a candidate when it prints, parses back and still
fails. Candidates may be invalid (a removed statement defined a variable used later): printing or
parsing them fails and the reducer drops them, so strategies can stay simple.

* `remove_functions`: drop one function;
* `remove_statements`: drop chunks of a statement list, halves first, then smaller (as ddmin);
* `forward_assignments`: drop `v = e` and use, instead of `v`, an operand of `e` (or a parameter) of the
  same type, so a chain `a = f(x); b = g(a)` can lose its middle;
* `inline_regions`: replace a scope by its body, an `if` by one branch, a loop by one iteration of its
  body (loop variable = start, loop-carried values = their initial values);
* `reduce_loop_trips`: fewer iterations of loops with constant bounds (one, then half);
* `simplify_shapes`: smaller integers for the dimensions written in tensor / tile types (on the
  printed text, every occurrence of the number at once, so shapes stay consistent).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.node import IRNode
from pypto_core.ir.utils import flatten_to_stmts, substitute
from pypto_core.ir.visitor import IRMutator, IRVisitor


@dataclass
class Candidate:
    """A simpler program (or the pl text of one) and what was done to get it."""

    description: str
    program: F.Program | None = None
    text: str | None = None


Strategy = Callable[[F.Program], Iterator[Candidate]]


# -- walking and rebuilding ------------------------------------------------------------------------
class _Collect(IRVisitor):
    def __init__(self, kinds: tuple[type, ...]) -> None:
        self.kinds = kinds
        self.found: list[tuple[IRNode, F.Function]] = []
        self.function: F.Function | None = None

    def visit_function(self, func: F.Function) -> None:
        self.function = func
        super().visit_function(func)

    def _dispatch(self, node: IRNode) -> Any:
        if isinstance(node, self.kinds) and self.function is not None:
            self.found.append((node, self.function))
        return super()._dispatch(node)


def collect(program: F.Program, *kinds: type) -> list[tuple[Any, F.Function]]:
    """Every node of the given classes, in program order, with the function it is in."""
    walker = _Collect(kinds)
    walker.visit_program(program)
    return walker.found


class _Replace(IRMutator):
    """Replaces nodes by identity; nested statement lists are flattened."""

    def __init__(self, mapping: dict[int, Any]) -> None:
        self.mapping = mapping

    def _dispatch(self, node: IRNode) -> Any:
        hit = self.mapping.get(id(node))
        if hit is not None:
            return hit
        out = super()._dispatch(node)
        if isinstance(out, S.SeqStmts) and any(isinstance(s, S.SeqStmts) for s in out.stmts):
            out = S.SeqStmts(flatten_to_stmts(out), out.span)
        return out


def replace(program: F.Program, old: IRNode, new: Any) -> F.Program:
    return _Replace({id(old): new}).visit_program(program)


def count_statements(program: F.Program) -> int:
    """Statements other than statement lists, plus one per function: the size the reducer minimises."""
    return len(collect(program, S.Stmt)) - len(collect(program, S.SeqStmts)) + len(program.function_list())


def _type_text(t: Any) -> str:
    from pypto_core.language.printer import python_print_type

    try:
        return python_print_type(t)
    except Exception:  # noqa: BLE001 - a type the printer cannot show matches nothing
        return f"<{id(t)}>"


# -- strategies ------------------------------------------------------------------------------------
def remove_functions(program: F.Program) -> Iterator[Candidate]:
    funcs = program.function_list()
    if len(funcs) < 2:
        return
    for f in funcs:
        yield Candidate(f"remove function '{f.name}'", program.with_functions([g for g in funcs if g is not f]))


def remove_statements(program: F.Program) -> Iterator[Candidate]:
    for seq, func in collect(program, S.SeqStmts):
        stmts = list(seq.stmts)
        n = len(stmts)
        size = n
        while size >= 1:
            for start in range(0, n, size):
                kept = stmts[:start] + stmts[start + size:]
                if len(kept) == n:
                    continue
                what = (f"statement {start + 1}" if size == 1 else f"statements {start + 1}-{min(n, start + size)}")
                yield Candidate(f"remove {what} of {n} in '{func.name}'", replace(program, seq, S.SeqStmts(kept, seq.span)))
            size //= 2


def _same_typed_operands(value: Any, var: E.Var, func: F.Function) -> list[E.Var]:
    wanted = _type_text(var.type)
    pool: list[Any] = []
    if isinstance(value, E.Var):
        pool.append(value)
    pool.extend(a for a in getattr(value, "args", ()) if isinstance(a, E.Var))
    pool.extend(func.params)
    out: list[E.Var] = []
    for v in pool:
        if v is not var and all(v is not o for o in out) and _type_text(v.type) == wanted:
            out.append(v)
    return out


def forward_assignments(program: F.Program) -> Iterator[Candidate]:
    for seq, func in collect(program, S.SeqStmts):
        for i, stmt in enumerate(seq.stmts):
            if not isinstance(stmt, S.AssignStmt):
                continue
            for operand in _same_typed_operands(stmt.value, stmt.var, func):
                kept = S.SeqStmts([s for j, s in enumerate(seq.stmts) if j != i], seq.span)
                smaller = replace(program, seq, kept)
                yield Candidate(f"forward '{stmt.var.name_hint}' to '{operand.name_hint}' in '{func.name}'",
                                substitute(smaller, {stmt.var: operand}))


def _inline_body(body: S.Stmt, results: tuple[Any, ...], mapping: dict[Any, Any]) -> S.Stmt | None:
    """`body` as straight-line code: its trailing yield becomes assignments to `results`."""
    stmts = flatten_to_stmts(body)
    if stmts and isinstance(stmts[-1], S.YieldStmt):
        values = list(stmts[-1].value)
        if len(values) != len(results):
            return None
        stmts = stmts[:-1] + [S.AssignStmt(r, v) for r, v in zip(results, values)]
    elif results:
        return None
    if any(isinstance(s, (S.BreakStmt, S.ContinueStmt)) for s in stmts):
        return None
    out: S.Stmt = S.SeqStmts(stmts, body.span)
    return substitute(out, mapping) if mapping else out


def inline_regions(program: F.Program) -> Iterator[Candidate]:
    for node, func in collect(program, S.ScopeStmt, S.IfStmt, S.ForStmt):
        where = f"in '{func.name}'"
        if isinstance(node, S.ScopeStmt):
            yield Candidate(f"replace a {node.scope_kind.name} scope by its body {where}",
                            replace(program, node, S.SeqStmts(flatten_to_stmts(node.body), node.span)))
        elif isinstance(node, S.IfStmt):
            for label, branch in (("then", node.then_body), ("else", node.else_body)):
                if branch is None:
                    continue
                inlined = _inline_body(branch, tuple(node.return_vars), {})
                if inlined is not None:
                    yield Candidate(f"replace an if by its {label} branch {where}", replace(program, node, inlined))
        else:
            mapping: dict[Any, Any] = {node.loop_var: node.start}
            mapping.update({a: a.initValue for a in node.iter_args})
            inlined = _inline_body(node.body, tuple(node.return_vars), mapping)
            if inlined is not None:
                yield Candidate(f"replace a loop by one iteration of its body {where}", replace(program, node, inlined))


def _const(e: Any) -> int | None:
    return e.value if isinstance(e, E.ConstInt) else None


def reduce_loop_trips(program: F.Program) -> Iterator[Candidate]:
    for node, func in collect(program, S.ForStmt):
        start, stop, step = _const(node.start), _const(node.stop), _const(node.step)
        if start is None or stop is None or not step or step < 0:
            continue
        trips = max(0, -(-(stop - start) // step))
        for k in dict.fromkeys((1, trips // 2)):
            if 1 <= k < trips:
                new_stop = node.stop.with_fields(value=start + k * step)
                yield Candidate(f"loop of {trips} trips -> {k} in '{func.name}'",
                                replace(program, node, node.with_fields(stop=new_stop)))


_SHAPE = re.compile(r"pl\.(?:Tensor|Tile)\[\[([^\]]*)\]")
_INT = r"(?<![\w.]){}(?![\w.])"


def simplify_shapes(program: F.Program) -> Iterator[Candidate]:
    """Each dimension size N written in a type, replaced everywhere in the text by 1, 2, 4, ... below N
    and by N // 2 (smallest first)."""
    from pypto_core.language.printer import python_print

    text = python_print(program)
    sizes: list[int] = []
    for match in _SHAPE.finditer(text):
        for part in match.group(1).split(","):
            part = part.strip()
            if part.isdigit() and int(part) > 1 and int(part) not in sizes:
                sizes.append(int(part))
    for n in sorted(sizes, reverse=True):
        pattern = re.compile(_INT.format(n))
        smaller = [m for m in (1, 2, 4, 8, 16, 32) if m < n] + ([n // 2] if n // 2 > 32 else [])
        for m in smaller:
            yield Candidate(f"shape size {n} -> {m}", text=pattern.sub(str(m), text))


STRATEGIES: tuple[tuple[str, Strategy], ...] = (
    ("remove functions", remove_functions),
    ("remove statements", remove_statements),
    ("forward assignments", forward_assignments),
    ("inline regions", inline_regions),
    ("reduce loop trips", reduce_loop_trips),
    ("simplify shapes", simplify_shapes),
)
