"""Mutators that corrupt valid program texts, for the fuzz oracle.

Each mutator is `f(text, rng) -> str | None` (None: it found nothing to change). Text-level mutators edit
lines and tokens; tree-level ones edit the `ast` of the text and unparse it, so the result is still Python
but no longer a valid (or the same) `pl` program. `mutate(text, rng, rounds)` applies random mutators.

Text level: delete / duplicate / swap / re-indent a line, swap two tokens, change a number (small, zero,
negative, past int64), a dtype, a shape dim, a memory space or split mode, a kwarg name, an op name,
insert junk characters (brackets, NUL, form feed, non-ASCII, a lone surrogate), truncate the text.
Tree level: wrong arity (drop / add an argument), wrong argument types (a tensor for a list, a literal for
a tensor, a list for a scalar), misplaced `pl.yield_` (moved up its body, into an if, duplicated, bare),
out-of-range offsets and shapes, swapped call arguments, functions reordered (a call to a later function),
dropped / renamed / wrong keyword values, annotations changed, a variable renamed with `__` or a
trailing `_`, statements wrapped in a loop / scope / if, a `return` moved into a scope.
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Callable

Mutator = Callable[[str, random.Random], "str | None"]

DTYPES = ("FP32", "FP16", "BF16", "INT32", "INT16", "INT8", "INT64", "UINT8", "BOOL", "INDEX", "FP8E4M3FN", "INT4",
          "HF8", "TASK_ID")
MEMS = ("Vec", "Mat", "Left", "Right", "Acc", "DDR", "Bias")
MODES = ("NONE", "UP_DOWN", "LEFT_RIGHT")
NUMBERS = ("0", "1", "-1", "3", "7", "15", "17", "100", "4096", "-16", "2147483648", "18446744073709551616",
           "1.5", "0.0", "1e30")
OPS = ("add", "sub", "mul", "div", "maximum", "exp", "neg", "abs", "sqrt", "row_sum", "row_max", "matmul",
       "cast", "reshape", "slice", "assemble", "load", "store", "move", "full", "matmul_acc", "yield_",
       "aiv_shard", "aic_gather", "range", "unroll", "while_", "split_aiv", "at", "cond", "adds", "muls")
KWARGS = ("target_memory", "mode", "init_values", "level", "optimizations", "name_hint", "dtype", "value",
          "type", "slot_num")
JUNK = ("(", ")", "[", "]", ":", ",", "\x00", "\x0c", "é", "\ud800", "\t", "#", "'", '"', "\\", "@", "pl.",
        "    ", "\n", "λ", "0x", "..", "=", "**")


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _body_lines(lines: list[str]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.strip() and not line.startswith("import")]


# -- text level --------------------------------------------------------------------------------------

def delete_line(text: str, rng: random.Random) -> str | None:
    lines = _lines(text)
    idx = _body_lines(lines)
    if not idx:
        return None
    del lines[rng.choice(idx)]
    return "\n".join(lines)


def duplicate_line(text: str, rng: random.Random) -> str | None:
    lines = _lines(text)
    idx = _body_lines(lines)
    if not idx:
        return None
    i = rng.choice(idx)
    lines.insert(i + rng.choice((0, 1, 2)), lines[i])
    return "\n".join(lines)


def swap_lines(text: str, rng: random.Random) -> str | None:
    lines = _lines(text)
    idx = _body_lines(lines)
    if len(idx) < 2:
        return None
    i = rng.choice(idx[:-1])
    j = min(len(lines) - 1, i + rng.choice((1, 1, 2, 3)))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def reindent_line(text: str, rng: random.Random) -> str | None:
    lines = _lines(text)
    idx = _body_lines(lines)
    if not idx:
        return None
    i = rng.choice(idx)
    stripped = lines[i].lstrip(" ")
    indent = len(lines[i]) - len(stripped)
    lines[i] = " " * max(0, indent + rng.choice((-4, 4, -8, 1))) + stripped
    return "\n".join(lines)


_TOKEN = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d+(?:\.\d+)?|[\[\](),:=+\-*/%<>]")


def swap_tokens(text: str, rng: random.Random) -> str | None:
    toks = list(_TOKEN.finditer(text))
    if len(toks) < 2:
        return None
    i = rng.randrange(len(toks) - 1)
    j = min(len(toks) - 1, i + rng.choice((1, 1, 2, 5)))
    a, b = toks[i], toks[j]
    return text[:a.start()] + b.group() + text[a.end():b.start()] + a.group() + text[b.end():]


def _replace_match(text: str, pattern: str, rng: random.Random, repl: Callable[[re.Match[str]], str]) -> str | None:
    found = list(re.finditer(pattern, text))
    if not found:
        return None
    m = rng.choice(found)
    return text[:m.start()] + repl(m) + text[m.end():]


def change_number(text: str, rng: random.Random) -> str | None:
    return _replace_match(text, r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", rng, lambda m: rng.choice(NUMBERS))


def change_dtype(text: str, rng: random.Random) -> str | None:
    return _replace_match(text, r"pl\.(FP32|FP16|BF16|INT32|INT16|INDEX)\b", rng, lambda m: f"pl.{rng.choice(DTYPES)}")


def change_shape(text: str, rng: random.Random) -> str | None:
    def repl(m: re.Match[str]) -> str:
        dims = [d.strip() for d in m.group(1).split(",")]
        k = rng.randrange(len(dims))
        choice = rng.choice(("num", "drop", "add", "dyn"))
        if choice == "num":
            dims[k] = rng.choice(("0", "1", "8", "48", "-1", "2147483648", "128"))
        elif choice == "drop" and len(dims) > 1:
            del dims[k]
        elif choice == "add":
            dims.insert(k, rng.choice(("2", "16", "M")))
        else:
            dims[k] = rng.choice(("M", "N", "M + 1", "M * 2"))
        return f"[[{', '.join(dims)}]"
    return _replace_match(text, r"\[\[([^\[\]]+)\]", rng, repl)


def change_enum(text: str, rng: random.Random) -> str | None:
    if rng.random() < 0.5:
        return _replace_match(text, r"pl\.Mem\.\w+", rng, lambda m: f"pl.Mem.{rng.choice(MEMS)}")
    return _replace_match(text, r"pl\.SplitMode\.\w+", rng, lambda m: f"pl.SplitMode.{rng.choice(MODES)}")


def change_kwarg(text: str, rng: random.Random) -> str | None:
    def repl(m: re.Match[str]) -> str:
        name = m.group(1)
        return rng.choice((name + "s", name[:-1], rng.choice(KWARGS), "bogus")) + "="
    return _replace_match(text, r"\b([a-z_]+)=(?!=)", rng, repl)


def change_op(text: str, rng: random.Random) -> str | None:
    return _replace_match(text, r"(?<=pl\.)(?:tile\.)?([a-z_]+)(?=\()", rng, lambda m: rng.choice(OPS))


def insert_junk(text: str, rng: random.Random) -> str | None:
    if not text:
        return rng.choice(JUNK)
    pos = rng.randrange(len(text))
    return text[:pos] + rng.choice(JUNK) + text[pos:]


def truncate(text: str, rng: random.Random) -> str | None:
    if len(text) < 2:
        return None
    return text[:rng.randrange(len(text))]


# -- tree level --------------------------------------------------------------------------------------

def _tree(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return None


def _unparse(tree: ast.AST) -> str | None:
    try:
        return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    except (ValueError, RecursionError, AttributeError, TypeError):
        return None


def _pl_calls(tree: ast.AST) -> list[ast.Call]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            while isinstance(f, ast.Attribute):
                f = f.value
            if isinstance(f, ast.Name) and f.id in ("pl", "self"):
                out.append(node)
    return out


def _bodies(tree: ast.AST) -> list[list[ast.stmt]]:
    out: list[list[ast.stmt]] = []
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt) \
                    and not isinstance(node, (ast.Module, ast.ClassDef)):
                out.append(body)
    return out


def _tree_mutator(fn: Callable[[ast.Module, random.Random], bool]) -> Mutator:
    def run(text: str, rng: random.Random) -> str | None:
        tree = _tree(text)
        if tree is None or not fn(tree, rng):
            return None
        return _unparse(tree)
    run.__name__ = fn.__name__
    run.__doc__ = fn.__doc__
    return run


def _value_for(rng: random.Random, names: list[str]) -> ast.expr:
    kind = rng.choice(("name", "int", "float", "list", "str", "none", "tensor-ann", "nested"))
    if kind == "name" and names:
        return ast.Name(rng.choice(names), ast.Load())
    if kind == "int":
        return ast.Constant(rng.choice((0, 1, -1, 7, 10**20)))
    if kind == "float":
        return ast.Constant(rng.choice((1.5, -0.0, 1e300)))
    if kind == "list":
        return ast.List([ast.Constant(rng.choice((0, 16, 3))) for _ in range(rng.choice((0, 1, 2, 3)))], ast.Load())
    if kind == "str":
        return ast.Constant("x")
    if kind == "none":
        return ast.Constant(None)
    if kind == "tensor-ann":
        return ast.parse("pl.FP32", mode="eval").body
    return ast.parse("pl.add(1, 2)", mode="eval").body


def _names(tree: ast.AST) -> list[str]:
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in ("pl", "self")})


@_tree_mutator
def wrong_arity(tree: ast.Module, rng: random.Random) -> bool:
    """Drop or add a positional argument of a pl / self call."""
    calls = _pl_calls(tree)
    if not calls:
        return False
    call = rng.choice(calls)
    if call.args and rng.random() < 0.5:
        del call.args[rng.randrange(len(call.args))]
    else:
        call.args.insert(rng.randrange(len(call.args) + 1), _value_for(rng, _names(tree)))
    return True


@_tree_mutator
def wrong_type(tree: ast.Module, rng: random.Random) -> bool:
    """Replace an argument (or kwarg value) of a call with a value of another kind."""
    calls = [c for c in _pl_calls(tree) if c.args or c.keywords]
    if not calls:
        return False
    call = rng.choice(calls)
    if call.keywords and (not call.args or rng.random() < 0.3):
        kw = rng.choice(call.keywords)
        kw.value = _value_for(rng, _names(tree))
    else:
        call.args[rng.randrange(len(call.args))] = _value_for(rng, _names(tree))
    return True


@_tree_mutator
def swap_args(tree: ast.Module, rng: random.Random) -> bool:
    calls = [c for c in _pl_calls(tree) if len(c.args) >= 2]
    if not calls:
        return False
    call = rng.choice(calls)
    i, j = rng.sample(range(len(call.args)), 2)
    call.args[i], call.args[j] = call.args[j], call.args[i]
    return True


def _is_yield(stmt: ast.stmt) -> bool:
    value = getattr(stmt, "value", None)
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "yield_"


@_tree_mutator
def misplace_yield(tree: ast.Module, rng: random.Random) -> bool:
    """Move a `pl.yield_` up its body, into the function body, into an if, duplicate it, or make it bare."""
    spots = [(body, i) for body in _bodies(tree) for i, s in enumerate(body) if _is_yield(s)]
    if not spots:
        return False
    body, i = rng.choice(spots)
    stmt = body[i]
    how = rng.choice(("up", "dup", "bare", "if", "out"))
    if how == "up" and i > 0:
        body.insert(rng.randrange(i), body.pop(i))
    elif how == "dup":
        body.insert(i, ast.Expr(stmt.value))  # type: ignore[attr-defined]
    elif how == "bare":
        body[i] = ast.Expr(stmt.value)  # type: ignore[attr-defined]
    elif how == "if":
        body[i] = ast.If(ast.parse("1 < 2", mode="eval").body, [stmt], [])
    else:
        funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        if not funcs:
            return False
        f = rng.choice(funcs)
        f.body.insert(rng.randrange(len(f.body) + 1), stmt)
    return True


@_tree_mutator
def out_of_range(tree: ast.Module, rng: random.Random) -> bool:
    """Push a number inside an offsets / shapes list (or a range bound) out of range."""
    lists = [n for n in ast.walk(tree) if isinstance(n, ast.List) and n.elts]
    if not lists:
        return False
    lst = rng.choice(lists)
    k = rng.randrange(len(lst.elts))
    lst.elts[k] = ast.Constant(rng.choice((1000, -16, 2**31, 2**63, 2**64, 65, 15, 0)))
    return True


@_tree_mutator
def reorder_functions(tree: ast.Module, rng: random.Random) -> bool:
    """Reverse / shuffle the methods of the program class (a call to a function defined later)."""
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    if not classes or len(classes[0].body) < 2:
        return False
    body = classes[0].body
    if rng.random() < 0.5:
        body.reverse()
    else:
        rng.shuffle(body)
    return True


@_tree_mutator
def break_keyword(tree: ast.Module, rng: random.Random) -> bool:
    """Drop a keyword argument, duplicate it, or give it a value of the wrong enum."""
    calls = [c for c in _pl_calls(tree) if c.keywords]
    if not calls:
        return False
    call = rng.choice(calls)
    k = rng.randrange(len(call.keywords))
    how = rng.choice(("drop", "dup", "enum"))
    if how == "drop":
        del call.keywords[k]
    elif how == "dup":
        call.keywords.append(call.keywords[k])
    else:
        call.keywords[k].value = ast.parse(rng.choice(("pl.Mem.Acc", "pl.SplitMode.NONE", "pl.Level.AIC",
                                                       "pl.FP16", "pl.FunctionType.AIV", "[]", "(1,)")),
                                           mode="eval").body
    return True


@_tree_mutator
def change_annotation(tree: ast.Module, rng: random.Random) -> bool:
    """Replace a parameter or assignment annotation with another type."""
    anns: list[ast.arg | ast.AnnAssign] = [a for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                                           for a in n.args.args if a.annotation is not None]
    anns += [n for n in ast.walk(tree) if isinstance(n, ast.AnnAssign)]
    if not anns:
        return False
    target = rng.choice(anns)
    target.annotation = ast.parse(rng.choice((
        "pl.Tensor[[7, 64], pl.FP32]", "pl.Scalar[pl.INT64]", "pl.Tile[[16, 16], pl.FP32]", "pl.Tensor[[16], pl.FP16]",
        "pl.Out[pl.Tensor[[16, 64], pl.FP32]]", "pl.InOut[pl.Tensor[[32, 32], pl.BF16]]", "pl.Tensor[[M, 64], pl.FP32]",
        "int", "pl.Tensor[[0, 64], pl.FP32]", "pl.Tensor[[16, 64], pl.INT8]")), mode="eval").body
    return True


@_tree_mutator
def rename_variable(tree: ast.Module, rng: random.Random) -> bool:
    """Rename one variable everywhere: a reserved `__`, a trailing `_`, a keyword-like or a pl name."""
    names = [n for n in _names(tree) if n not in ("M",)]
    if not names:
        return False
    old = rng.choice(names)
    new = old + rng.choice(("__ssa_v0", "_", "__x", "_tile", "")) if rng.random() < 0.8 else rng.choice(
        ("pl", "self", "range", "i", "out"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id == old:
            node.id = new
        elif isinstance(node, ast.arg) and node.arg == old:
            node.arg = new
    return True


@_tree_mutator
def wrap_statement(tree: ast.Module, rng: random.Random) -> bool:
    """Wrap a statement in a `pl.range` loop, a CORE_GROUP scope, a split_aiv region or an if."""
    spots = [(body, i) for body in _bodies(tree) for i in range(len(body))]
    if not spots:
        return False
    body, i = rng.choice(spots)
    header = rng.choice(("for _w in pl.range(2):", "with pl.at(level=pl.Level.CORE_GROUP):",
                         "for _a in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):", "if 1 < 2:",
                         "for (_k,) in pl.while_(init_values=(0,)):"))
    wrapper = ast.parse(header + "\n    pass").body[0]
    wrapper.body = [body[i]]  # type: ignore[attr-defined]
    body[i] = wrapper
    return True


@_tree_mutator
def move_return(tree: ast.Module, rng: random.Random) -> bool:
    """Move a function's `return` into the last compound statement before it (a scope, loop or if)."""
    funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
             and n.body and isinstance(n.body[-1], ast.Return)]
    rng.shuffle(funcs)
    for f in funcs:
        compound = [s for s in f.body[:-1] if isinstance(s, (ast.With, ast.For, ast.If, ast.While))]
        if compound:
            ret = f.body.pop()
            rng.choice(compound).body.append(ret)
            return True
    return False


TEXT_MUTATORS: tuple[Mutator, ...] = (delete_line, duplicate_line, swap_lines, reindent_line, swap_tokens,
                                      change_number, change_dtype, change_shape, change_enum, change_kwarg,
                                      change_op, insert_junk, truncate)
TREE_MUTATORS: tuple[Mutator, ...] = (wrong_arity, wrong_type, swap_args, misplace_yield, out_of_range,
                                      reorder_functions, break_keyword, change_annotation, rename_variable,
                                      wrap_statement, move_return)
MUTATORS: tuple[Mutator, ...] = TEXT_MUTATORS + TREE_MUTATORS


def mutate(text: str, rng: random.Random, rounds: int = 1) -> tuple[str, list[str]]:
    """`text` after `rounds` random mutations, and the names of the mutators applied."""
    applied: list[str] = []
    for _ in range(rounds):
        for _attempt in range(8):
            m = rng.choice(MUTATORS)
            new = m(text, rng)
            if new is not None and new != text:
                text = new
                applied.append(m.__name__)
                break
    return text, applied
