"""Property-based round trips: random scalar expression trees and random statement nestings, written as DSL
text, must parse, and print -> parse must give back the same IR and the same text."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import pypto.language as pl
from pypto import ir
from pypto.language.parser.diagnostics import ParserSyntaxError, ParserTypeError
from pypto_core.language.roundtrip import assert_roundtrip

# PYPTO_HYPOTHESIS_EXAMPLES=5000 for a longer hunt.
SETTINGS = settings(max_examples=int(os.environ.get("PYPTO_HYPOTHESIS_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.too_slow])

INT_VARS = ["a", "b"]  # Scalar[INDEX] parameters
FLOAT_VARS = ["d", "e"]  # Scalar[FP32] parameters
BOOL_VARS = ["p"]  # Scalar[BOOL] parameter
SCALAR_HEADER = ("@pl.function\ndef f(a: pl.Scalar[pl.INDEX], b: pl.Scalar[pl.INDEX], c: pl.Scalar[pl.INT32], "
                 "d: pl.Scalar[pl.FP32], e: pl.Scalar[pl.FP32], h: pl.Scalar[pl.FP16], p: pl.Scalar[pl.BOOL]):\n")


# -- scalar expressions ------------------------------------------------------------------------------
def int_leaf() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(INT_VARS),
        st.integers(-50, 200).map(str),
        st.integers(0, 9).map(lambda v: f"pl.const({v}, pl.INDEX)"),
        st.just("c"),  # INT32: promoted with a Cast
        st.just("pl.cast(d, pl.INDEX)"),
    )


def float_leaf() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(FLOAT_VARS),
        st.sampled_from(["0.5", "2.0", "1e-07", "3.25", "1e+16", "-1.5"]),
        st.just("h"),  # FP16: promoted with a Cast
        st.just("pl.const(0.25, pl.FP16)"),
        st.just("pl.cast(a, pl.FP32)"),
    )


def int_expr(depth: int = 3) -> st.SearchStrategy[str]:
    if depth == 0:
        return int_leaf()
    sub = int_expr(depth - 1)
    binary = st.tuples(sub, st.sampled_from(["+", "-", "*", "//", "%", "<<", ">>", "&", "|", "^"]), sub).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})")
    return st.one_of(
        int_leaf(),
        binary,
        st.tuples(sub, sub).map(lambda t: f"pl.min({t[0]}, {t[1]})"),
        st.tuples(sub, sub).map(lambda t: f"pl.max({t[0]}, {t[1]})"),
        sub.map(lambda x: f"abs({x})"),
        sub.map(lambda x: f"(-{x})"),
        sub.map(lambda x: f"(~{x})"),
        st.tuples(st.sampled_from(INT_VARS), st.integers(0, 3)).map(lambda t: f"({t[0]} ** {t[1]})"),
        st.tuples(sub, st.sampled_from(["INT32", "INT64", "INDEX", "INT16"])).map(
            lambda t: f"pl.cast({t[0]}, pl.{t[1]})"),
    )


def float_expr(depth: int = 3) -> st.SearchStrategy[str]:
    if depth == 0:
        return float_leaf()
    sub = float_expr(depth - 1)
    return st.one_of(
        float_leaf(),
        st.tuples(sub, st.sampled_from(["+", "-", "*", "/", "**"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(sub, sub).map(lambda t: f"pl.max({t[0]}, {t[1]})"),
        sub.map(lambda x: f"(-{x})"),
        sub.map(lambda x: f"abs({x})"),
    )


def bool_expr(depth: int = 2) -> st.SearchStrategy[str]:
    compare = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])
    leaf = st.one_of(
        st.sampled_from(BOOL_VARS + ["True", "False"]),
        st.tuples(int_expr(1), compare, int_expr(1)).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(float_expr(1), compare, float_expr(1)).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    )
    if depth == 0:
        return leaf
    sub = bool_expr(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(sub, st.sampled_from(["and", "or", "^"]), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        sub.map(lambda x: f"(not {x})"),
        st.tuples(sub, compare, sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
    )


def parse_generated(source: str):
    """Literal arithmetic is folded while parsing; `0 // 0`, `1 << -1` or a folded integer past 64 bits
    (`-(~(1 << 63))`) are user errors, not round-trip bugs."""
    try:
        return pl.parse(source)
    except (ParserSyntaxError, ParserTypeError) as err:
        assume("cannot fold" not in err.message and "does not fit in 64 bits" not in err.message)
        raise


@SETTINGS
@given(st.lists(st.one_of(int_expr(), float_expr(), bool_expr()), min_size=1, max_size=4))
def test_scalar_expressions_roundtrip(exprs):
    body = "".join(f"    v{i} = {e}\n" for i, e in enumerate(exprs))
    result = assert_roundtrip(parse_generated(SCALAR_HEADER + body))
    assert len(ir.flatten_to_stmts(result.ir.body)) == len(exprs)


@SETTINGS
@given(int_expr(4))
def test_printed_scalar_expression_reparses_as_an_expression(text):
    # The printed form of a single expression is itself valid DSL (precedence and constant folding).
    func = parse_generated(SCALAR_HEADER + f"    v = {text}\n")
    (stmt,) = ir.flatten_to_stmts(func.body)
    printed = ir.python_print(stmt.value)
    again = pl.parse(SCALAR_HEADER + f"    v = {printed}\n")
    ir.assert_structural_equal(func, again)


# -- statement nestings ----------------------------------------------------------------------------------
TENSOR = "pl.Tensor[[64], pl.FP32]"
PROGRAM_HEADER = (f"@pl.function\ndef f(x: {TENSOR}, y: {TENSOR}, n: pl.Scalar[pl.INDEX], "
                  f"m: pl.Scalar[pl.INDEX]) -> {TENSOR}:\n")


@dataclass
class Gen:
    """Writes a random function body; every name it uses is defined and keeps one type."""

    draw: st.DrawFn
    lines: list[str] = field(default_factory=list)
    scalars: list[str] = field(default_factory=lambda: ["n", "m"])
    tensors: list[str] = field(default_factory=lambda: ["x", "y"])
    counter: int = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def scalar(self) -> str:
        a, b = self.draw(st.sampled_from(self.scalars)), self.draw(st.sampled_from(self.scalars))
        op = self.draw(st.sampled_from(["+", "-", "*", "//"]))
        k = self.draw(st.integers(1, 9))
        return self.draw(st.sampled_from([f"{a} {op} {b}", f"{a} {op} {k}", f"pl.min({a}, {b} + {k})", a]))

    def cond(self) -> str:
        a, b = self.draw(st.sampled_from(self.scalars)), self.draw(st.sampled_from(self.scalars))
        op = self.draw(st.sampled_from(["<", "<=", ">", "==", "!="]))
        return self.draw(st.sampled_from([f"{a} {op} {b}", f"{a} {op} {b} and {b} > 0", f"not {a} > {b}"]))

    def tensor(self) -> str:
        a, b = self.draw(st.sampled_from(self.tensors)), self.draw(st.sampled_from(self.tensors))
        return self.draw(st.sampled_from([f"pl.add({a}, {b})", f"pl.mul({a}, 2.0)", f"pl.exp({a})",
                                          f"pl.sub({a}, {b})", f"pl.add({a}, 1.5)"]))

    def block(self, indent: int, depth: int, in_loop: bool, in_scope: bool) -> None:
        for _ in range(self.draw(st.integers(1, 3))):
            self.stmt(indent, depth, in_loop, in_scope)

    def stmt(self, indent: int, depth: int, in_loop: bool, in_scope: bool) -> None:
        kinds = ["scalar", "tensor", "comment"]
        if depth > 0:
            kinds += ["for", "carried_for", "if", "if_yield", "while", "while_ssa"]
            if not in_scope:
                kinds.append("scope")
        if in_loop:
            kinds += ["break", "continue"]
        kind = self.draw(st.sampled_from(kinds))
        if kind == "scalar":
            name = self.draw(st.sampled_from([self.fresh("s"), *self.scalars[2:]])) if len(self.scalars) > 2 \
                else self.fresh("s")
            self.emit(indent, f"{name} = {self.scalar()}")
            self.scalars.append(name)
        elif kind == "tensor":
            name = self.draw(st.sampled_from([self.fresh("t"), *self.tensors]))
            self.emit(indent, f"{name} = {self.tensor()}")
            self.tensors.append(name)
        elif kind == "comment":
            self.emit(indent, f"# note {self.counter}")
            self.stmt(indent, 0, in_loop, in_scope)
        elif kind == "break":
            self.emit(indent, self.draw(st.sampled_from(["break", "continue"])))
        elif kind == "continue":
            self.emit(indent, f"if {self.cond()}:")
            self.emit(indent + 1, "continue")
        elif kind == "for":
            loop = self.draw(st.sampled_from(["pl.range({})", "pl.range(1, {})", "pl.range(0, {}, 2)",
                                              "pl.pipeline({}, stage=2)"]))
            var = self.draw(st.sampled_from(["i", "j"]))
            self.emit(indent, f"for {var} in {loop.format(self.draw(st.sampled_from(self.scalars)))}:")
            saved = list(self.scalars)
            self.scalars.append(var)
            self.block(indent + 1, depth - 1, True, in_scope)
            self.scalars = saved + [s for s in self.scalars if s not in saved and s != var]
        elif kind == "carried_for":
            acc, out = self.fresh("acc"), self.fresh("r")
            init = self.draw(st.sampled_from(self.tensors))
            self.emit(indent, f"for i, ({acc},) in pl.range({self.draw(st.sampled_from(self.scalars))}, "
                              f"init_values=({init},)):")
            outer_t, outer_s = list(self.tensors), list(self.scalars)
            self.tensors.append(acc)
            self.scalars.append("i")
            self.block(indent + 1, depth - 1, True, in_scope)
            self.emit(indent + 1, f"{out} = pl.yield_(pl.add({acc}, {self.draw(st.sampled_from(self.tensors))}))")
            self.tensors = [t for t in self.tensors if t != acc] + [out]
            self.scalars = outer_s + [s for s in self.scalars if s not in outer_s and s != "i"]
            del outer_t
        elif kind == "if":
            self.emit(indent, f"if {self.cond()}:")
            self.block(indent + 1, depth - 1, in_loop, in_scope)
            if self.draw(st.booleans()):
                self.emit(indent, "else:")
                self.block(indent + 1, depth - 1, in_loop, in_scope)
        elif kind == "if_yield":
            out = self.fresh("r")
            self.emit(indent, f"if {self.cond()}:")
            self.block(indent + 1, depth - 1, in_loop, in_scope)
            self.emit(indent + 1, f"{out} = pl.yield_({self.draw(st.sampled_from(self.tensors))})")
            self.emit(indent, "else:")
            self.block(indent + 1, depth - 1, in_loop, in_scope)
            self.emit(indent + 1, f"{out} = pl.yield_({self.draw(st.sampled_from(self.tensors))})")
            self.tensors.append(out)
        elif kind == "while":
            self.emit(indent, f"while {self.cond()}:")
            self.block(indent + 1, depth - 1, True, in_scope)
        elif kind == "while_ssa":
            w, out = self.fresh("w"), self.fresh("q")
            self.emit(indent, f"for ({w},) in pl.while_(init_values=({self.draw(st.sampled_from(self.scalars))},)):")
            self.emit(indent + 1, f"pl.cond({w} < n)")
            outer = list(self.scalars)
            self.scalars.append(w)
            self.block(indent + 1, depth - 1, True, in_scope)
            self.emit(indent + 1, f"{out} = pl.yield_({w} + 1)")
            self.scalars = outer + [s for s in self.scalars if s not in outer and s != w] + [out]
        elif kind == "scope":
            name = self.draw(st.sampled_from(["", ', name_hint="k"', ", optimizations=[pl.cross_core_slot(slot_num=2)]"]))
            self.emit(indent, f"with pl.at(level=pl.Level.CORE_GROUP{name}):")
            self.block(indent + 1, depth - 1, False, True)


@st.composite
def programs(draw: st.DrawFn) -> str:
    gen = Gen(draw)
    gen.block(1, 3, False, False)
    gen.emit(1, f"return {draw(st.sampled_from(gen.tensors))}")
    return PROGRAM_HEADER + "\n".join(gen.lines) + "\n"


@SETTINGS
@given(programs())
def test_statement_nestings_roundtrip(source):
    assert_roundtrip(source)


@SETTINGS
@given(programs())
def test_statement_nestings_roundtrip_inside_a_program(source):
    indented = "\n".join("    " + line if line else line for line in source.splitlines())
    text = "import pypto.language as pl\n\n@pl.program\nclass P:\n" + indented.replace("def f(", "def f(self, ")
    result = assert_roundtrip(text)
    assert result.text.startswith("# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n")


def test_fractional_power_of_a_negative_constant_is_a_located_error():
    import pytest

    from pypto_core.language.parser.errors import ParserSyntaxError

    with pytest.raises(ParserSyntaxError, match=r"cannot fold '\(-0.5\) \*\* 0.5': the result is not a real number"):
        pl.parse(SCALAR_HEADER + "    v = (-0.5) ** 0.5\n")
