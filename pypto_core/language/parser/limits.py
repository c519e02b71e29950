"""Resource limits of the text path (docs/limits.md, the text path): each bound gives a located ParserError, never a crash.

* text size: MAX_TEXT_BYTES (16 MiB) of UTF-8;
* characters: no NUL byte, no lone surrogate (neither can be written to a file as UTF-8);
* nesting: MAX_NESTING (100) levels of expressions (operators, calls, subscripts, literals) inside one
  statement; Python's own parser gives up earlier on some shapes (a 50,000-term sum), reported the same way;
* integer literals: int64 (|v| < 2**63), checked where the parser builds constants (exprs.py);
* dimensions written in a type: 0 .. MAX_DIM (2**31 - 1), checked in annotations.py.
"""

from __future__ import annotations

import ast
import re

from pypto_core.ir.span import Span
from pypto_core.language.parser.errors import ParserSyntaxError

MAX_TEXT_BYTES = 16 * 1024 * 1024
MAX_NESTING = 100
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
MAX_DIM = 2**31 - 1

_SURROGATE = re.compile("[\ud800-\udfff]")


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def check_text(text: str, filename: str, lines: list[str]) -> None:
    """Characters and size, before ast.parse sees the text."""
    # UTF-8 takes at most 4 bytes a character: short texts skip the encoding.
    if len(text) > MAX_TEXT_BYTES or (len(text) * 4 > MAX_TEXT_BYTES
                                      and len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES):
        raise ParserSyntaxError(f"the program text is larger than {MAX_TEXT_BYTES // (1024 * 1024)} MiB",
                                Span(filename, 1, 1), hint="split the program into smaller files",
                                source_lines=lines)
    nul = text.find("\x00")
    if nul >= 0:
        raise ParserSyntaxError("the program text contains a NUL byte", Span(filename, *_position(text, nul)),
                                hint="remove it: a program is a UTF-8 text file", source_lines=lines)
    lone = _SURROGATE.search(text)  # the first one, as a scan of the characters would find
    if lone is not None:
        raise ParserSyntaxError(f"the program text contains a lone surrogate character (U+{ord(lone.group()):04X})",
                                Span(filename, *_position(text, lone.start())),
                                hint="remove it: it cannot be encoded as UTF-8", source_lines=lines)


def too_deep_for_python(filename: str, lines: list[str]) -> ParserSyntaxError:
    """Python's parser ran out of recursion: point at the longest line, the likely culprit."""
    longest = max(range(len(lines)), key=lambda i: len(lines[i])) if lines else 0
    return ParserSyntaxError(f"an expression is nested too deeply or too long for Python's parser (the DSL "
                             f"allows {MAX_NESTING} levels of nesting)", Span(filename, longest + 1, 1),
                             hint="bind parts of the expression to names on separate lines", source_lines=lines)


# Fields that hold only operator or context nodes (`ast.Load`, `ast.Add`, `ast.Eq`, ...): neither statements nor
# expressions, and without children, so the nesting walk need not visit them.
_OPERATOR_FIELDS = frozenset({"ctx", "op", "ops"})
_LEAVES = frozenset({ast.Name, ast.Constant})  # the leaves of nearly every expression
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {leaf: () for leaf in _LEAVES}


def _child_fields(cls: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = _CHILD_FIELDS[cls] = tuple(f for f in cls._fields if f not in _OPERATOR_FIELDS)  # type: ignore[attr-defined]
    return fields


def check_nesting(tree: ast.AST, src: object) -> None:
    """No statement nests expressions deeper than MAX_NESTING (the printer and visitors recurse on them).

    One pass over the tree in the order of a stack fed by `ast.iter_child_nodes` (so the same node is
    reported first), without its per-node generators. Each nesting level of an expression adds at least one
    character to its source, so a statement written on one line in fewer than MAX_NESTING bytes cannot nest
    deeper and is not walked: most statements of a program are skipped whole.
    """
    stmt_cls, expr_cls, node_cls = ast.stmt, ast.expr, ast.AST
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    pop, push = stack.pop, stack.append
    child_fields, get = _CHILD_FIELDS.get, getattr
    while stack:
        node, depth = pop()
        if isinstance(node, stmt_cls):
            if node.lineno == node.end_lineno and node.end_col_offset - node.col_offset < MAX_NESTING:  # type: ignore[operator]
                continue
            depth = 0
        elif isinstance(node, expr_cls):
            depth += 1
            if depth > MAX_NESTING:
                raise ParserSyntaxError(f"this expression nests more than {MAX_NESTING} levels deep",
                                        src.span(node),  # type: ignore[attr-defined]
                                        hint="bind inner parts of the expression to names on separate lines",
                                        source_lines=src.source_lines)  # type: ignore[attr-defined]
        cls = type(node)
        fields = child_fields(cls)
        if fields is None:
            fields = _child_fields(cls)
        # A Name or Constant has no children: one at depth <= MAX_NESTING needs no visit.
        skip = _LEAVES if depth < MAX_NESTING else ()
        for name in fields:
            value = get(node, name, None)
            if isinstance(value, node_cls):
                if type(value) not in skip:
                    push((value, depth))
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, node_cls) and type(item) not in skip:
                        push((item, depth))


def describe_int(value: int) -> str:
    """An integer for a message: in full when short, else its sign and digit count (str() of a huge int is
    refused by Python past 4,300 digits)."""
    if -(10**30) < value < 10**30:
        return str(value)
    digits = abs(value).bit_length() * 30103 // 100000 + 1  # about log10(2) per bit
    return f"{'-' if value < 0 else ''}<an integer of about {digits} digits>"
