"""Common machinery of the function parser: errors with spans, the symbol table, statement emission."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.span import Span
from pypto_core.ir.utils import free_vars_in_order
from pypto_core.language.dsl_modules import dsl_mark
from pypto_core.language.parser.context import Frame, ProgramContext
from pypto_core.language.parser.env import MISSING, Env
from pypto_core.language.parser.errors import (
    ParserError,
    ParserSyntaxError,
)
from pypto_core.language.parser.source import SourceInfo

_UNSET = object()


class _FramePush:
    __slots__ = ("frames", "frame")

    def __init__(self, frames: list[Frame], frame: Frame) -> None:
        self.frames = frames
        self.frame = frame

    def __enter__(self) -> Frame:
        self.frames.append(self.frame)
        return self.frame

    def __exit__(self, *exc: object) -> None:
        self.frames.pop()


class ParserBase:
    def __init__(self, src: SourceInfo, env: Env, program: ProgramContext, func_name: str,
                 func_type: FunctionType, strict_ssa: bool) -> None:
        self.src = src
        # Parse-time constants the body binds (`dt = pl.FP16`) are searched before the outside names.
        self.constants: dict[str, Any] = {}
        self.env = env.overlay(self.constants)
        self.program = program
        self.func_name = func_name
        self.func_type = func_type
        self.strict_ssa = strict_ssa
        self.symbols: dict[str, E.Var] = {}
        self.def_nodes: dict[str, ast.AST] = {}
        self.loop_var_ids: set[int] = set()  # for-loop variables: read-only in their body
        # Tensors `pl.dump_tag(t)` marked: every later scope / dispatch consuming one lists it in dump_vars.
        self.dump_tagged: list[E.Var] = []
        self.params: list[E.Var] = []
        self.declared_returns: list[Any] | None = None  # the return annotation's types, when written
        self.frames: list[Frame] = [Frame("function")]
        self.blocks: list[list[S.Stmt]] = []
        self.last_line = 0
        self.pending_comments: list[str] = []
        self.current_stmt: ast.stmt | None = None
        self._pl_paths: dict[ast.AST, str | None] = {}
        self._spans: dict[ast.AST, Span] = {}
        self._module_names: dict[str, Any] = {}
        self._pl_values: dict[str, Any] = {}
        # Handlers by AST node class: `_stmt_<Class>` / `_value_<Class>` as plain functions (no bound
        # methods kept, so the parser holds no reference cycle through them).
        self._stmt_handlers: dict[type, Any] = {}
        self._value_handlers: dict[type, Any] = {}
        self.dim_aliases: set[str] = set()  # names bound to a folded pl.tensor.dim (no statement)
        self.other_branch_names: list[set[str]] = []  # per enclosing else: names only the then-branch defines
        from pypto_core.ops.registry import op_registry

        self.dsl_names = op_registry().dsl  # loads the plugins once per parse, not once per call

    def tagged_in(self, body: Any) -> list[E.Var]:
        """The dump-tagged tensors `body` (statements or expressions) uses, in tag order."""
        if not self.dump_tagged:
            return []
        used = {id(v) for v in free_vars_in_order(body if isinstance(body, list) else [body])}
        return [v for v in self.dump_tagged if id(v) in used]

    # -- errors ------------------------------------------------------------------------------
    def span(self, node: ast.AST | None) -> Span:
        if node is None:
            return Span(self.src.filename)
        span = self._spans.get(node)
        if span is None:  # a statement's span is asked for by its Var, its statement and its value
            span = self._spans[node] = self.src.span(node)
        return span

    def fail(self, cls: type[ParserError], message: str, node: ast.AST | None, hint: str | None = None,
             **extra: Any) -> NoReturn:
        raise cls(message, self.span(node), hint=hint, source_lines=self._source_lines(), **extra)

    def syntax_error(self, message: str, node: ast.AST | None, hint: str | None = None) -> NoReturn:
        self.fail(ParserSyntaxError, message, node, hint)

    def _source_lines(self) -> list[str] | None:
        return self.src.source_lines

    # -- frames ------------------------------------------------------------------------------
    def frame(self, frame: Frame) -> _FramePush:
        """`with self.frame(Frame(...)) as f:` (a plain class: cheaper than a generator context manager)."""
        return _FramePush(self.frames, frame)

    def innermost(self, *kinds: str) -> Frame | None:
        for f in reversed(self.frames):
            if f.kind in kinds:
                return f
        return None

    def in_incore(self) -> bool:
        """Inside an InCore scope (directly or through loops/ifs) or an InCore function."""
        return self.func_type is FunctionType.InCore or any(f.kind == "incore" for f in self.frames)

    def region(self) -> Frame | None:
        return self.innermost("split_aiv")

    # -- statements ------------------------------------------------------------------------------
    @contextmanager
    def block(self) -> Iterator[list[S.Stmt]]:
        stmts: list[S.Stmt] = []
        self.blocks.append(stmts)
        try:
            yield stmts
        finally:
            self.blocks.pop()

    def emit(self, stmt: S.Stmt) -> None:
        self.blocks[-1].append(stmt)

    def note_statement_start(self, node: ast.stmt) -> None:
        """Collect the full-line comments above a statement for the next emitted IR statement."""
        start = node.lineno
        if getattr(node, "decorator_list", None):
            start = min([start] + [d.lineno for d in node.decorator_list])  # type: ignore[attr-defined]
        if start > self.last_line + 1:  # there are lines in between (usually there are none)
            self.pending_comments.extend(self.src.comments_between(self.last_line, start))
        self.last_line = start

    def note_statement_end(self, node: ast.stmt) -> None:
        end = getattr(node, "end_lineno", None) or node.lineno
        if end > self.last_line:
            self.last_line = end

    # -- symbols -------------------------------------------------------------------------------
    def lookup_var(self, name: str) -> E.Var | None:
        return self.symbols.get(name)

    @contextmanager
    def loop_local(self, names: dict[str, E.Var]) -> Iterator[None]:
        """Bind names for the duration of a loop body, then restore what they meant before."""
        saved = {n: self.symbols.get(n) for n in names}
        self.symbols.update(names)
        try:
            yield
        finally:
            for n, v in saved.items():
                if v is None:
                    self.symbols.pop(n, None)
                else:
                    self.symbols[n] = v

    # -- the `pl` module ---------------------------------------------------------------------------
    def pl_path(self, node: ast.AST) -> str | None:
        """`pl.tile.load` -> "tile.load" when the chain starts at the pypto.language module, else None.

        Asked several times per statement, so the answer is cached per AST node."""
        cached = self._pl_paths.get(node, _UNSET)
        if cached is not _UNSET:
            return cached  # type: ignore[return-value]
        path = self._pl_path(node)
        if not (isinstance(node, ast.Name) and node.id in self.symbols):
            self._pl_paths[node] = path  # a local variable may shadow `pl` later: only cache module paths
        return path

    def pl_value(self, path: str) -> Any:
        """`pl.<path>` in the pypto.language module, `pld.<path>` in pypto.language.distributed (MISSING when
        it has no such name), looked up once per path and parse: the modules do not change while parsing."""
        value = self._pl_values.get(path, _UNSET)
        if value is _UNSET:
            from pypto_core.language import pl, pld  # here: the pl namespace imports the parser

            # `pld.NotifyOp.Set` (a path _pl_path gives "pld."): walked from the distributed module
            value, parts = (pld, path.split(".")[1:]) if path.startswith("pld.") else (pl, path.split("."))
            for part in parts:
                value = getattr(value, part, MISSING)
                if value is MISSING:
                    break
            self._pl_values[path] = value
        return value

    def _pl_path(self, node: ast.AST) -> str | None:
        parts: list[str] = []
        cur = node
        while isinstance(cur, ast.Attribute):
            parts.append(cur.attr)
            cur = cur.value
        if not isinstance(cur, ast.Name) or cur.id in self.symbols:
            return None
        base = self._module_names.get(cur.id, _UNSET)
        if base is _UNSET:  # names outside the body do not change while parsing: look each up once
            base = self._module_names[cur.id] = self.env.lookup(cur.id)
        mark = dsl_mark(base)
        if mark == "pl":
            # `pl.add` (one attribute) is by far the most common spelling: no join needed.
            return parts[0] if len(parts) == 1 else ".".join(reversed(parts))
        parts.reverse()
        if mark == "root" and parts[:2] == ["language", "distributed"] and len(parts) > 2:
            return "pld." + ".".join(parts[2:])
        if mark == "root" and parts[:1] == ["language"] and len(parts) > 1:
            return ".".join(parts[1:])
        # `pld.system.notify` names the DSL entry "pld.system.notify"; so does its printed spelling
        # `system.notify`, which drops the prefix (docs/dsl.md, the printed form) and starts at a name bound to nothing.
        if mark == "pld" and parts:
            return "pld." + ".".join(parts)
        if base is MISSING and parts and f"pld.{cur.id}.{'.'.join(parts)}" in self.dsl_names:
            return f"pld.{cur.id}.{'.'.join(parts)}"
        return None
