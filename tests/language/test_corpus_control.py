"""Loops, while, if/else, break/continue (docs/dsl.md, loops and carries; if and yield)."""

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import ForKind
from pypto_core.language.roundtrip import assert_roundtrip

T = "pl.Tensor[[64], pl.FP32]"

CASES = {
    "range_forms": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            for i in pl.range(4):
                x = pl.add(x, 1.0)
            for j in pl.range(1, n):
                x = pl.mul(x, 2.0)
            for k in pl.range(0, n, 2):
                x = pl.exp(x)
            for m in pl.range(n - 1, -1, -1):
                x = pl.add(x, x)
            return x
    """,
    "loop_kinds_and_attrs": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            for i in pl.parallel(n):
                y = pl.add(x, 1.0)
            for i in pl.unroll(4):
                z = pl.add(x, 1.0)
            for i in pl.pipeline(16, stage=2):
                w = pl.add(x, 1.0)
            for i in pl.range(n, attrs={{"unroll_hint": 2, "tag": "hot", "pinned": True, "ratio": 0.5}}):
                w = pl.add(x, 1.0)
            for i in pl.pipeline(0, 8, 2, stage=4, attrs={{"k": 1}}):
                w = pl.add(x, 1.0)
            return x
    """,
    "typed_bounds": """
        @pl.function
        def f(n: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INDEX]:
            for i in pl.range(pl.const(0, pl.INT64), pl.const(8, pl.INT64), pl.const(1, pl.INT64)):
                a = i + 1
            for j in pl.range(n):
                b = j + 1
            for k in pl.range(pl.const(0, pl.INT64), pl.const(8, pl.INT64)):
                c = k + 1
            return 0
    """,
    "carried_one": f"""
        @pl.function
        def f(x: {T}) -> {T}:
            for i, (acc,) in pl.range(4, init_values=(x,)):
                nxt = pl.add(acc, x)
                out = pl.yield_(nxt)
            return out
    """,
    "carried_two_annotated": f"""
        @pl.function
        def f(x: {T}, y: {T}) -> {T}:
            for i, (a, b) in pl.range(5, init_values=(x, y)):
                na = pl.add(a, b)
                nb = pl.mul(b, 2.0)
                a2, b2 = pl.yield_(na, nb)
            for i, (c,) in pl.parallel(2, init_values=(a2,)):
                out: {T} = pl.yield_(c)
            return out
    """,
    "carried_scalar_and_pipeline": """
        @pl.function
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            for i, (s,) in pl.range(n, init_values=(0,)):
                t = s + i
                r = pl.yield_(t)
            for i, (u,) in pl.pipeline(4, stage=3, init_values=(r,)):
                q = pl.yield_(u * 2)
            return q
    """,
    "carried_without_yield": f"""
        @pl.function
        def f(x: {T}) -> {T}:
            for i, (acc,) in pl.range(4, init_values=(x,)):
                nxt = pl.add(acc, x)
            return x
    """,
    "static_directives": """
        import pypto.language as pl

        K = 4

        @pl.function
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            pl.static_assert(K > 2 and not K > 8, "K out of range")
            pl.static_assert(0 < K <= 4)
            pl.static_print("K is", K, n + 1)
            return n + K
    """,
    "nested_loops": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            for i, (acc,) in pl.range(n, init_values=(x,)):
                for j, (inner,) in pl.range(i, init_values=(acc,)):
                    nxt = pl.add(inner, 1.0)
                    r1 = pl.yield_(nxt)
                r2 = pl.yield_(r1)
            return r2
    """,
    "while_natural": """
        @pl.function
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            x = 0
            while x < n:
                x = x + 1
                if x == 5:
                    break
            return x
    """,
    "while_ssa": """
        @pl.function
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            for (x_it,) in pl.while_(init_values=(0,)):
                pl.cond(x_it < n)
                x_nx = x_it + 1
                x_out = pl.yield_(x_nx)
            for a, c in pl.while_(init_values=(x_out, 0)):
                pl.cond(a < n and c < 3)
                a2 = a + 1
                ra, rc = pl.yield_(a2, c + 1)
            for (z,) in pl.while_(init_values=(ra,)):
                pl.cond(z > 0)
                w = z - 1
            return ra
    """,
    "if_without_yield": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            if n > 0:
                x = pl.add(x, 1.0)
            if n > 1:
                y = pl.add(x, 1.0)
            else:
                y = pl.mul(x, 2.0)
            return y
    """,
    "elif_chain": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            if n == 0:
                z = pl.exp(x)
            elif n == 1:
                z = pl.add(x, 2.0)
            elif n == 2:
                z = pl.add(x, 3.0)
            else:
                z = pl.mul(x, 3.0)
            return z
    """,
    "if_with_yields": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            if n > 0:
                a = pl.add(x, 1.0)
                r = pl.yield_(a)
            else:
                r = pl.yield_(pl.mul(x, 2.0))
            if n > 1:
                p, q = pl.yield_(r, x)
            else:
                p, q = pl.yield_(x, r)
            if n > 2:
                s: {T} = pl.yield_(p)
            else:
                s: {T} = pl.yield_(q)
            return s
    """,
    "if_inside_carried_loop": """
        @pl.function
        def f(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
            for i, (acc,) in pl.range(n, init_values=(0,)):
                if i % 2 == 0:
                    v = pl.yield_(acc + i)
                else:
                    v = pl.yield_(acc)
                out = pl.yield_(v)
            return out
    """,
    "return_in_branches": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            if n > 0:
                return x
            else:
                y = pl.add(x, 1.0)
                return y
    """,
    "break_and_continue": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            for i in pl.range(n):
                if i > 3:
                    break
                if i == 1:
                    continue
                x = pl.add(x, 1.0)
            for j in pl.pipeline(n, stage=2):
                if j > 1:
                    continue
            while n > 0:
                break
            return x
    """,
    "empty_bodies": f"""
        @pl.function
        def f(x: {T}, n: pl.Scalar[pl.INDEX]) -> {T}:
            for i in pl.range(n):
                pass
            if n > 0:
                pass
            else:
                pass
            while n > 0:
                pass
            return x
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_roundtrip(name):
    assert_roundtrip(textwrap.dedent(CASES[name]))


def body_of(name: str) -> list[S.Stmt]:
    return ir.flatten_to_stmts(pl.parse(textwrap.dedent(CASES[name])).body)


def test_range_bounds_default_to_index_constants():
    loops = body_of("range_forms")[:4]
    first = loops[0]
    assert isinstance(first, S.ForStmt) and first.kind is ForKind.Sequential
    assert (first.start.value, first.stop.value, first.step.value) == (0, 4, 1)
    assert first.start.type.dtype is DataType.INDEX and first.loop_var.type.dtype is DataType.INDEX
    assert loops[3].stop.value == -1 and loops[3].step.value == -1
    assert first.iter_args == () and first.return_vars == ()


def test_loop_kinds_and_attrs():
    loops = body_of("loop_kinds_and_attrs")[:5]
    assert [s.kind for s in loops] == [ForKind.Parallel, ForKind.Unroll, ForKind.Pipeline, ForKind.Sequential,
                                       ForKind.Pipeline]
    assert loops[2].attrs == {"pipeline_stages": 2}
    assert loops[3].attrs == {"unroll_hint": 2, "tag": "hot", "pinned": True, "ratio": 0.5}
    assert loops[4].attrs == {"pipeline_stages": 4, "k": 1}
    # Two loops with the same variable name are two variables; the printer keeps them apart.
    assert loops[0].loop_var is not loops[1].loop_var
    text = ir.python_print(pl.parse(textwrap.dedent(CASES["loop_kinds_and_attrs"])))
    assert "for i in pl.parallel(n):" in text and "for i_1 in pl.unroll(4):" in text
    assert "for i_3 in pl.range(n, attrs={\"unroll_hint\": 2, \"tag\": \"hot\", \"pinned\": True, \"ratio\": 0.5}):" in text
    assert "for i_4 in pl.pipeline(0, 8, 2, stage=4, attrs={\"k\": 1}):" in text


def test_int64_constant_bounds_give_an_int64_loop_var():
    first, second, third, _ = body_of("typed_bounds")
    assert first.loop_var.type.dtype is DataType.INT64
    assert second.loop_var.type.dtype is DataType.INT32  # a non-INDEX bound variable sets the dtype
    assert third.loop_var.type.dtype is DataType.INDEX  # the implicit step is an INDEX constant
    text = ir.python_print(pl.parse(textwrap.dedent(CASES["typed_bounds"])))
    assert "for i in pl.range(pl.const(0, pl.INT64), pl.const(8, pl.INT64), pl.const(1, pl.INT64)):" in text
    assert "for k in pl.range(pl.const(0, pl.INT64), pl.const(8, pl.INT64)):" in text


def test_carried_loop_structure():
    loop, ret = body_of("carried_one")
    (acc,) = loop.iter_args
    assert isinstance(acc, E.IterArg) and acc.name_hint == "acc"
    assert isinstance(acc.initValue, E.Var) and acc.initValue.name_hint == "x"
    last = ir.flatten_to_stmts(loop.body)[-1]
    assert isinstance(last, S.YieldStmt) and last.value[0].name_hint == "nxt"
    (out,) = loop.return_vars
    assert out.name_hint == "out" and ret.value[0] is out  # the yield target names the result after the loop


def test_carried_loop_without_yield_names_results_after_iter_args():
    loop, _ = body_of("carried_without_yield")
    assert [v.name_hint for v in loop.return_vars] == ["acc_out"]


def test_while_forms():
    natural = body_of("while_natural")[1]
    assert isinstance(natural, S.WhileStmt) and natural.iter_args == () and natural.return_vars == ()
    first, second, third, _ = body_of("while_ssa")
    assert [a.name_hint for a in first.iter_args] == ["x_it"] and [v.name_hint for v in first.return_vars] == ["x_out"]
    assert isinstance(first.condition, E.Lt) and first.condition.left is first.iter_args[0]
    assert [a.name_hint for a in second.iter_args] == ["a", "c"]
    assert [v.name_hint for v in third.return_vars] == ["z_out"]
    text = ir.python_print(pl.parse(textwrap.dedent(CASES["while_ssa"])))
    assert "for (x_it,) in pl.while_(init_values=(0,)):\n        pl.cond(x_it < n)" in text
    assert "for (a, c) in pl.while_(init_values=(x_out, 0)):" in text


def test_if_forms():
    plain, full, _ = body_of("if_without_yield")
    assert plain.else_body is None and plain.return_vars == ()
    assert full.else_body is not None
    chain = body_of("elif_chain")[0]
    nested = chain.else_body
    assert isinstance(nested, S.IfStmt) and isinstance(nested.else_body, S.IfStmt)
    text = ir.python_print(pl.parse(textwrap.dedent(CASES["elif_chain"])))
    assert "elif" not in text and "    else:\n        if n == 1:" in text
    first, second, third, _ = body_of("if_with_yields")
    assert [v.name_hint for v in first.return_vars] == ["r"]
    assert [v.name_hint for v in second.return_vars] == ["p", "q"]
    assert isinstance(ir.flatten_to_stmts(first.else_body)[-1], S.YieldStmt)


def test_static_directives_emit_no_ir(capsys):
    (ret,) = body_of("static_directives")
    assert isinstance(ret, S.ReturnStmt) and ret.value[0].right.value == 4
    assert "K is 4 n + 1" in capsys.readouterr().out


def test_break_continue_nodes():
    loop = body_of("break_and_continue")[0]
    kinds = [type(s) for s in ir.flatten_to_stmts(loop.body)]
    assert kinds[:2] == [S.IfStmt, S.IfStmt]
    first_if = ir.flatten_to_stmts(loop.body)[0]
    assert isinstance(first_if.then_body, S.BreakStmt)
