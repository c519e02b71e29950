"""Declared allocations `X = pl.MemRef(slots=N)` and `X[k]` in tile annotations: naming and the parser's
errors (docs/memory_planning.md, declared allocations)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.language.parser.errors import ParserTypeError


def program(decls: str, body: str) -> str:
    return f'''\
import pypto.language as pl

{decls}


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        for i in pl.range(4):
{body}
            out = pl.store(u, [i * 32, 0], out)
        return out
'''


LOAD = "pl.load(a, [i * 32, 0], [32, 64])"


def two_tiles(first: str, second: str) -> str:
    return (f"            t: pl.Tile[[32, 64], pl.FP32, {first}, pl.Mem.Vec] = {LOAD}\n"
            f"            u: pl.Tile[[32, 64], pl.FP32, {second}, pl.Mem.Vec] = pl.exp(t)")


def memrefs(p: ir.Program) -> list[str]:
    return [line.split("pl.FP32, ")[1].split(", pl.Mem.Vec")[0] for line in ir.python_print(p).splitlines()
            if "pl.Tile[" in line and "MemRef" in line]


def test_the_explicit_string_names_the_allocation_else_the_variable():
    p = pl.parse(program('ring = pl.MemRef("R", slots=2)\nping = pl.MemRef()', two_tiles("ring[i % 2]", "ping")))
    assert memrefs(p) == ['pl.MemRef("R", slots=2)[i % 2]', 'pl.MemRef("ping")']


def test_a_variable_declaration_and_an_inline_one_of_its_name_are_one_allocation():
    p = pl.parse(program("buf = pl.MemRef(slots=2)", two_tiles("buf[0]", 'pl.MemRef("buf", slots=2)[1]')))
    body = p.get_function("k").body
    loop = body.stmts[0] if hasattr(body, "stmts") else body
    tiles = [s.var for s in loop.body.stmts[:2]]
    assert tiles[0].type.memref.base is tiles[1].type.memref.base


@pytest.mark.parametrize(("decls", "first", "second", "message"), [
    ("buf = pl.MemRef()", "buf[0]", "buf", "'buf' is declared with a single slot and cannot be subscripted"),
    ("buf = pl.MemRef()", "buf[i % 2]", "buf", "'buf' is declared with a single slot"),
    ("buf = pl.MemRef(slots=2)", "buf[2]", "buf[0]", "Slot index 2 is out of range for a declaration with 2"),
    ("buf = pl.MemRef(slots=2)", "buf[-1]", "buf[0]", "Slot index -1 is out of range"),
    ("buf = pl.MemRef(slots=2)\nalias = buf", "buf[0]", "alias[1]",
     "Declared allocation 'buf' is also referenced as 'alias'"),
    ('x = pl.MemRef("S")\ny = pl.MemRef("S")', "x", "y",
     "Two separate pl.MemRef\\(\\) declarations both resolve to the name 'S'"),
    ("buf = pl.MemRef(slots=2)", 'pl.MemRef("x", slots=0)[0]', "buf[0]", "slots= must be a positive integer"),
])
def test_wrong_declarations_are_located_parser_type_errors(decls, first, second, message):
    with pytest.raises(ParserTypeError, match=message) as err:
        pl.parse(program(decls, two_tiles(first, second)), "decl.py")
    assert err.value.span is not None and err.value.span["filename"] == "decl.py"


def test_a_declaration_needs_a_memory_space():
    src = program("buf = pl.MemRef(slots=2)", two_tiles("buf[0]", "buf[1]")).replace(
        "buf[0], pl.Mem.Vec]", "buf[0]]")
    with pytest.raises(ParserTypeError, match="explicit memory space"):
        pl.parse(src)


def test_a_declaration_without_a_slot_is_refused_where_it_is_written():
    # Python running the module raises at the declaration, as PyPTO does ...
    with pytest.raises(ValueError, match="at least one slot"):
        pl.MemRef(slots=0)
    # ... and the text path, which never runs the file, says why where the name is used
    with pytest.raises(ValueError, match="which fails: a declared allocation needs at least one slot"):
        pl.parse(program("buf = pl.MemRef(slots=0)", two_tiles("buf[0]", "buf[0]")))


def test_an_unsubscripted_multi_slot_declaration_is_slot_zero():
    p = pl.parse(program("buf = pl.MemRef(slots=2)", two_tiles("buf", "buf[1]")))
    assert memrefs(p) == ['pl.MemRef("buf", slots=2)', 'pl.MemRef("buf", slots=2)[1]']
