"""`@pl.program` and `@pl.function`: fetch the source, parse its AST, never run the body (docs/dsl.md, functions)."""

from __future__ import annotations

import ast
import inspect
import sys
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any

from pypto_core.ir import function as F
from pypto_core.language.parser.env import Env
from pypto_core.language.parser.errors import ParserSyntaxError
from pypto_core.language.parser.limits import check_nesting, too_deep_for_python
from pypto_core.language.parser.source import SourceInfo, dedent_lines


def _source_of(obj: Any) -> SourceInfo:
    try:
        lines, start = inspect.getsourcelines(obj)
        filename = inspect.getsourcefile(obj) or inspect.getfile(obj)
    except (OSError, TypeError) as exc:
        raise ParserSyntaxError(f"cannot read the source of '{getattr(obj, '__name__', obj)}' ({exc}); "
                                f"define it in a file, or use pl.parse(text)") from None
    text, indent = dedent_lines(lines)
    import linecache

    file_lines = [line.rstrip("\n") for line in linecache.getlines(filename)] or None
    info = SourceInfo.from_text(text, filename, start - 1, indent, file_lines)
    if file_lines is None:
        # No file to quote from: index the snippet by file line numbers instead.
        info.source_lines = [""] * (start - 1) + [line.rstrip("\n") for line in lines]
    return info


def _env_for(obj: Any, frame: FrameType | None) -> Env:
    """Where the body's outside names are found (docs/dsl.md): the decorating frame's locals, the closure
    cells (of the function, or of every method of a program class), the function's globals, then the
    decorating frame's globals. The values are read, never called (pyvalues.py says which are usable)."""
    scopes: list[Mapping[str, Any]] = []
    if frame is not None:
        scopes.append(frame.f_locals)
    cells = _closure_values(obj)
    for method in vars(obj).values() if isinstance(obj, type) else ():
        cells = {**_closure_values(method), **cells}
    if cells:
        scopes.append(cells)
    globals_ = getattr(obj, "__globals__", None)
    if globals_ is not None:
        scopes.append(globals_)
    module = sys.modules.get(getattr(obj, "__module__", ""), None)
    if module is not None:
        scopes.append(vars(module))
    if frame is not None:
        scopes.append(frame.f_globals)
    return Env(scopes)


def _closure_values(fn: Any) -> dict[str, Any]:
    """The filled closure cells of a function, by name."""
    closure = getattr(fn, "__closure__", None)
    code = getattr(fn, "__code__", None)
    if not closure or code is None:
        return {}
    return {n: c.cell_contents for n, c in zip(code.co_freevars, closure) if _has_contents(c)}


def _has_contents(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - probing an empty cell
    except ValueError:
        return False
    return True


def _first_node(info: SourceInfo, kind: type) -> Any:
    try:
        tree = ast.parse(info.text)
    except (RecursionError, MemoryError):
        raise too_deep_for_python(info.filename, info.text_lines) from None
    check_nesting(tree, info)  # the visitors and the printer recurse on expressions (parser/limits.py)
    for node in tree.body:
        if isinstance(node, kind):
            return node
    raise ParserSyntaxError(f"could not find the {kind.__name__} in the decorated source")


def _in_class_body(frame: FrameType | None) -> bool:
    return frame is not None and "__module__" in frame.f_locals and "__qualname__" in frame.f_locals


def program(cls: type | None = None, *, strict_ssa: bool = False) -> Any:
    """Parse a class of `@pl.function` methods into an `ir.Program` (its name is the class name)."""

    def build(target: type, frame: FrameType | None) -> F.Program:
        from pypto_core.language.parser.program_parser import parse_program_class

        info = _source_of(target)
        node = _first_node(info, ast.ClassDef)
        return parse_program_class(node, info, _env_for(target, frame), strict_ssa)

    caller = sys._getframe(1)
    if cls is not None:
        return build(cls, caller)
    return lambda target: build(target, caller)


def function(func: Callable[..., Any] | None = None, *, type: Any = None, level: Any = None, role: Any = None,
             attrs: Any = None, auto_scope: bool = True, strict_ssa: bool = False,
             external_source: Any = None) -> Any:
    """Parse a function into an `ir.Function`. On a method of a `@pl.program` class this only marks it:
    the program decorator parses every method (so strict_ssa= here has no effect there)."""
    caller = sys._getframe(1)

    def build(target: Callable[..., Any]) -> Any:
        if _in_class_body(caller):
            target.__pypto_function__ = True  # type: ignore[attr-defined]
            return target
        from pypto_core.language.parser.program_parser import function_decorator, parse_function_def

        info = _source_of(target)
        node = _first_node(info, ast.FunctionDef)
        env = _env_for(target, caller)
        _, call = function_decorator(node, env)
        return parse_function_def(node, call, info, env)

    if func is not None:
        return build(func)
    return build
