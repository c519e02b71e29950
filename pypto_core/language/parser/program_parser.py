"""Programs (a `@pl.program` class) and text parsing without execution (docs/dsl.md)."""

from __future__ import annotations

import ast
from typing import Any

from pypto_core.analysis.walk import walk
from pypto_core.collector import pauses_collector
from pypto_core.diagnostics import remember_source
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.span import Span
from pypto_core.ir.visitor import IRMutator
from pypto_core.language.parser.call_checks import argument_mismatch
from pypto_core.language.parser.context import ProgramContext
from pypto_core.language.parser.env import Env, static_value
from pypto_core.language.parser.errors import ParserSyntaxError, ParserTypeError
from pypto_core.language.parser.exprs import call_return_type
from pypto_core.language.parser.function_parser import decorator_options, run_function_parser
from pypto_core.language.parser.limits import check_nesting, check_text, too_deep_for_python
from pypto_core.language.parser.module_constants import text_module_env
from pypto_core.language.parser.source import SourceInfo
from pypto_core.language.parser.stmts import types_match


def _decorator_target(dec: ast.AST, env: Env) -> tuple[Any, ast.AST | None]:
    """(the decorator function, its Call node if called with arguments)."""
    if isinstance(dec, ast.Call):
        return static_value(dec.func, env), dec
    return static_value(dec, env), None


def is_pl_decorator(dec: ast.AST, env: Env, name: str) -> tuple[bool, ast.AST | None]:
    from pypto_core.language import decorators

    fn, call = _decorator_target(dec, env)
    return fn is getattr(decorators, name), call


def function_decorator(node: ast.FunctionDef, env: Env) -> tuple[bool, ast.AST | None]:
    for dec in node.decorator_list:
        hit, call = is_pl_decorator(dec, env, "function")
        if hit:
            return True, call
    return False, None


def program_decorator(node: ast.ClassDef, env: Env) -> tuple[bool, ast.AST | None]:
    for dec in node.decorator_list:
        hit, call = is_pl_decorator(dec, env, "program")
        if hit:
            return True, call
    return False, None


def strict_flag(call: ast.AST | None, env: Env) -> bool:
    if isinstance(call, ast.Call):
        for kw in call.keywords:
            if kw.arg == "strict_ssa":
                return bool(static_value(kw.value, env))
    return False


def parse_program_class(cls: ast.ClassDef, src: SourceInfo, env: Env, strict_ssa: bool,
                        warn: bool = True) -> F.Program:
    methods: list[tuple[ast.FunctionDef, ast.AST | None]] = []
    for item in cls.body:
        if isinstance(item, ast.FunctionDef):
            hit, call = function_decorator(item, env)
            if not hit:
                raise ParserSyntaxError(f"method '{item.name}' of program '{cls.name}' is not a @pl.function",
                                        src.span(item), hint="decorate it with @pl.function",
                                        source_lines=src.source_lines)
            methods.append((item, call))
        elif isinstance(item, ast.Expr) and isinstance(item.value, ast.Constant):
            continue  # docstring
        elif isinstance(item, ast.Pass):
            continue
        else:
            raise ParserSyntaxError(f"a @pl.program class may only contain @pl.function methods, found "
                                    f"'{type(item).__name__}'", src.span(item), source_lines=src.source_lines)
    program = ProgramContext(name=cls.name, in_program=True)
    seen: set[str] = set()
    for fdef, _ in methods:
        if fdef.name in seen:
            raise ParserSyntaxError(f"program '{cls.name}' defines '{fdef.name}' twice", src.span(fdef),
                                    source_lines=src.source_lines)
        seen.add(fdef.name)
        program.global_vars[fdef.name] = E.GlobalVar(fdef.name)
    forward: list[F.Function] = []
    for fdef, call in methods:
        options = decorator_options(call, env, src, warn)
        program.forward_call = False
        func = run_function_parser(fdef, options, src, env, program, strict_ssa)
        program.parsed[fdef.name] = func
        if program.forward_call:
            forward.append(func)
    # A call of a method defined below keeps UnknownType (docs/dsl.md) but its arity is checked once every
    # callee is known.
    for func in forward:
        check_call_arity(func, program.parsed, src)
        program.parsed[func.name] = type_statement_calls(func, program.parsed)
    check_returns_of_called_methods(program, src)
    return F.Program(list(program.parsed.values()), cls.name, src.span(cls))


def check_returns_of_called_methods(program: ProgramContext, src: SourceInfo) -> None:
    """A method whose `return` gives a tensor of another dtype or shape than its annotation (accepted on its
    own, as PyPTO does: docs/dsl.md, functions) may not be called by another method: the caller computes on
    the declared type, and the passes would compile another result than the program as written gives."""
    if not program.return_mismatches:
        return
    for func in program.parsed.values():
        for node in walk(func.body):
            if isinstance(node, E.Call) and isinstance(node.op, E.GlobalVar) and \
                    node.op.name in program.return_mismatches:
                span, message = program.return_mismatches[node.op.name]
                raise ParserTypeError(f"{message}, and '{func.name}' calls it (at {node.span.to_string()}), "
                                      f"reading the result as the declared type", span,
                                      hint="return a value of the declared type (pl.cast converts a dtype), or fix "
                                           "the annotation", source_lines=src.source_lines)


class _StatementCalls(IRMutator):
    """A call of a later method written as a statement (`self.k_aiv(x, out)`) takes its callee's return type
    once every method is parsed: nothing binds it, so no annotation could carry its type, and the printed
    program, callees first, parses it typed (a call whose value is bound keeps UnknownType: docs/dsl.md)."""

    def __init__(self, functions: dict[str, F.Function]) -> None:
        self.functions = functions

    def visit_eval_stmt(self, s: S.EvalStmt) -> S.Stmt:
        call = s.expr
        if not (isinstance(call, E.Call) and isinstance(call.op, E.GlobalVar) and isinstance(call.type, T.UnknownType)):
            return s
        callee = self.functions.get(call.op.name)
        if callee is None:
            return s
        returned = call_return_type(callee, list(call.args))
        return s if isinstance(returned, T.UnknownType) else s.with_fields(expr=call.with_fields(type=returned))


def type_statement_calls(func: F.Function, functions: dict[str, F.Function]) -> F.Function:
    return _StatementCalls(functions).visit_function(func)


def check_call_arity(func: F.Function, functions: dict[str, F.Function], src: SourceInfo) -> None:
    from pypto_core.ir.visitor import IRVisitor

    class Calls(IRVisitor):
        def visit_call(self, call: E.Call) -> None:
            callee = functions.get(call.op.name) if isinstance(call.op, E.GlobalVar) else None
            if callee is not None and len(call.args) != len(callee.params):
                raise ParserSyntaxError(f"function '{callee.name}' takes {len(callee.params)} argument(s), got "
                                        f"{len(call.args)}", call.span, source_lines=src.source_lines)
            bad = argument_mismatch(callee.params, list(call.args)) if callee is not None else None
            if bad is not None:
                raise ParserTypeError(f"argument {bad[0] + 1} of '{callee.name}' {bad[1]}",  # type: ignore[union-attr]
                                      call.span, source_lines=src.source_lines)
            if callee is not None and not isinstance(call.type, T.UnknownType):
                # The type a rebound name or an annotation gave the call must be what the callee returns.
                returned = call_return_type(callee, list(call.args))
                if not isinstance(returned, T.UnknownType) and not types_match(returned, call.type):
                    raise ParserTypeError(f"'{callee.name}' returns {returned}, but its result is used as "
                                          f"{call.type}", call.span, source_lines=src.source_lines)
            super().visit_call(call)

    Calls().visit_stmt(func.body)


def parse_function_def(fdef: ast.FunctionDef, call: ast.AST | None, src: SourceInfo, env: Env,
                       warn: bool = True) -> F.Function:
    options = decorator_options(call, env, src, warn)
    return run_function_parser(fdef, options, src, env, ProgramContext(), options.strict_ssa)


@pauses_collector
def parse_text(code: str, filename: str = "<string>") -> F.Function | F.Program:
    """Build IR from DSL source text by walking its AST; the text is never executed."""
    src = SourceInfo.from_text(code, filename)
    check_text(code, filename, src.text_lines)
    remember_source(filename, code)
    try:
        tree = ast.parse(code, filename=filename)
    except SyntaxError as exc:
        raise ParserSyntaxError(f"invalid Python syntax: {exc.msg}",
                                Span(filename, exc.lineno or 1, exc.offset or 1),
                                source_lines=src.source_lines) from None
    except (RecursionError, MemoryError):
        raise too_deep_for_python(filename, src.text_lines) from None
    check_nesting(tree, src)
    env = text_module_env(tree)
    found: list[tuple[ast.AST, ast.AST | None]] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            hit, call = program_decorator(node, env)
            if hit:
                found.append((node, call))
        elif isinstance(node, ast.FunctionDef):
            hit, call = function_decorator(node, env)
            if hit:
                found.append((node, call))
    programs = [(n, c) for n, c in found if isinstance(n, ast.ClassDef)]
    if len(programs) == 1 and len(found) > 1:
        helpers = _program_with_helpers(programs[0], [f for f in found if isinstance(f[0], ast.FunctionDef)], src, env)
        if helpers is not None:
            return helpers
    if len(found) != 1:
        what = "no @pl.program class or @pl.function" if not found else f"{len(found)} programs/functions"
        where = src.span(found[1][0]) if len(found) > 1 else Span(filename, 1, 1)
        raise ParserSyntaxError(f"expected exactly one @pl.program class or @pl.function, found {what}", where,
                                hint="a file holds one program: put the functions into one @pl.program class"
                                if found else "decorate a class with @pl.program (or a function with @pl.function)",
                                source_lines=src.source_lines)
    node, call = found[0]
    if isinstance(node, ast.ClassDef):
        return parse_program_class(node, src, env, strict_flag(call, env), warn=False)
    return parse_function_def(node, call, src, env, warn=False)  # type: ignore[arg-type]


def _program_with_helpers(program: tuple[ast.AST, ast.AST | None], functions: list[tuple[ast.AST, ast.AST | None]],
                          src: SourceInfo, env: Env) -> F.Program | None:
    """One `@pl.program` beside module-level `@pl.function`s that its methods call by bare name: the program,
    holding them (docs/dsl.md, calls between functions); None when one of them is not called (then the file
    holds more than one program or function)."""
    helpers = {node.name: parse_function_def(node, call, src, env, warn=False)  # type: ignore[attr-defined]
               for node, call in functions}
    node, call = program
    parsed = parse_program_class(node, src, env.overlay(helpers), strict_flag(call, env), warn=False)  # type: ignore[arg-type]
    held = {f.name for f in parsed.functions.values()}
    return parsed if all(helpers[name].name in held for name in helpers) else None
