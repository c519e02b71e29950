"""Loops (for and while) compiled into one Python function (pypto_core/interp/loop_code.py): the same results, signals
and errors as the statement closures, with the op calls, operand reads and yield inline."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.interp import Machine, MachineError, loop_code, stmts

HEADER = "import pypto.language as pl\n\n"


def spy_on(monkeypatch, name: str) -> list[object]:
    """What `stmts` gets from loop_code's `name` while the test runs: a generated function, or None (the loop is
    left to the closures)."""
    made: list[object] = []

    def spy(*args, **kwargs):
        run = getattr(loop_code, name)(*args, **kwargs)
        made.append(run)
        return run

    monkeypatch.setattr(stmts, name, spy)
    return made


@pytest.fixture
def generated(monkeypatch):
    return spy_on(monkeypatch, "compile_counted_loop")


@pytest.fixture
def generated_whiles(monkeypatch):
    return spy_on(monkeypatch, "compile_while_loop")


def run(text: str, **inputs):
    return Machine(pl.parse(HEADER + text)).run(inputs=inputs)


def test_an_element_wise_loop_is_one_generated_function_with_the_closures_results(generated, monkeypatch):
    text = '''
@pl.function(type=pl.FunctionType.InCore)
def main(a: pl.Tensor[[16, 16], pl.FP32], b: pl.Tensor[[16, 16], pl.FP32],
         out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
    x0 = pl.load(a, [0, 0], [16, 16])
    y = pl.load(b, [0, 0], [16, 16])
    for i, (x,) in pl.range(5, init_values=(x0,)):
        nxt = pl.muls(pl.exp(pl.add(x, y)), 0.01)
        res = pl.yield_(nxt)
    out = pl.store(res, [0, 0], out)
    return out
'''
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 16, 16), dtype=np.float32)
    got = run(text, a=a, b=b, out=np.zeros((16, 16), np.float32))
    assert len(generated) == 1 and generated[0].__code__.co_filename == "<pypto loop>"
    want = a.copy()
    for _ in range(5):
        want = np.exp(want + b) * np.float32(0.01)
    np.testing.assert_array_equal(got, want)
    monkeypatch.setattr(loop_code, "compile_counted_loop", lambda *args, **kwargs: None)  # the closures alone
    np.testing.assert_array_equal(run(text, a=a, b=b, out=np.zeros((16, 16), np.float32)), got)


def test_a_yield_that_swaps_its_carries_reads_every_value_first(generated):
    got = run('''
@pl.function
def main(x: pl.Tensor[[4], pl.FP32], y: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    for i, (a, b) in pl.range(3, init_values=(x, y)):
        c = pl.add(a, 1.0)
        ra, rb = pl.yield_(b, c)
    out = pl.sub(ra, rb)
    return out
''', x=np.zeros(4, np.float32), y=np.full(4, 10, np.float32))
    # (0, 10) -> (10, 1) -> (1, 11) -> (11, 2)
    assert generated[0] is not None
    np.testing.assert_array_equal(got, np.full(4, 9, np.float32))


@pytest.mark.parametrize(("word", "want"), [("break", 2), ("continue", 4)])
def test_break_and_continue_from_an_if_among_inlined_ops(generated, word, want):
    got = run(f'''
@pl.function
def main(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    for i, (acc,) in pl.range(5, init_values=(x,)):
        if i == 2:
            {word}
        nxt = pl.add(acc, 1.0)
        out = pl.yield_(nxt)
    return out
''', x=np.zeros(4, np.float32))
    assert generated[0] is not None
    np.testing.assert_array_equal(got, np.full(4, want, np.float32))


def test_nested_loops_are_each_generated(generated):
    got = run('''
@pl.function
def main(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    for i, (acc,) in pl.range(3, init_values=(x,)):
        for j, (inner,) in pl.range(i, init_values=(acc,)):
            deeper = pl.yield_(pl.add(inner, 1.0))
        out = pl.yield_(pl.mul(deeper, 2.0))
    return out
''', x=np.zeros(4, np.float32))
    assert len(generated) == 2 and all(g is not None for g in generated)
    np.testing.assert_array_equal(got, np.full(4, ((0 * 2 + 1) * 2 + 2) * 2, np.float32))


def test_a_failing_op_inside_a_generated_loop_is_located_as_before(generated, monkeypatch):
    original = loop_code.plain_site

    def failing(code, call):
        site = original(code, call)
        if site is None or call.op.name != "tensor.adds":
            return site

        def evaluate(ctx, call, args, kwargs):
            raise ZeroDivisionError("boom")

        return dataclasses.replace(site, evaluate=evaluate)

    monkeypatch.setattr(loop_code, "plain_site", failing)
    with pytest.raises(MachineError, match=r"tensor.adds: ZeroDivisionError: boom") as caught:
        run('''
@pl.function
def main(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    for i, (acc,) in pl.range(3, init_values=(x,)):
        out = pl.yield_(pl.add(acc, 1.0))
    return out
''', x=np.zeros(4, np.float32))
    assert generated[0] is not None
    assert caught.value.span is not None and caught.value.span.begin_line == 7


def test_a_scalar_carry_and_an_accumulating_call_are_inlined_by_their_closures(generated):
    """A yield of a scalar expression and a value that is no plain op call (matmul_acc writes through its
    accumulator) run by their closures inside the generated loop."""
    got = run('''
@pl.function(type=pl.FunctionType.InCore)
def main(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]], n: pl.Scalar[pl.INDEX]
         ) -> pl.Tensor[[16, 16], pl.FP32]:
    l = pl.move(pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
    r = pl.move(pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
    acc0 = pl.matmul(l, r)
    for i, (acc, s) in pl.range(n, init_values=(acc0, pl.const(0, pl.INDEX))):
        nxt = pl.matmul_acc(acc, l, r)
        res, total = pl.yield_(nxt, s + i)
    out = pl.store(res, [0, 0], out)
    return out
''', a=np.eye(16, dtype=np.float32), out=np.zeros((16, 16), np.float32), n=3)
    assert generated[0] is not None
    np.testing.assert_array_equal(got, 4 * np.eye(16, dtype=np.float32))


def test_a_loop_that_neither_assigns_nor_yields_stays_with_the_closures(generated):
    got = run('''
@pl.function(type=pl.FunctionType.InCore)
def main(a: pl.Tensor[[4, 16], pl.FP32], out: pl.Out[pl.Tensor[[4, 16], pl.FP32]]) -> pl.Tensor[[4, 16], pl.FP32]:
    t = pl.load(a, [0, 0], [1, 16])
    for i in pl.range(4):
        pl.store(t, [i, 0], out)
    return out
''', a=np.arange(64, dtype=np.float32).reshape(4, 16), out=np.zeros((4, 16), np.float32))
    assert generated == [None]
    np.testing.assert_array_equal(got, np.tile(np.arange(16, dtype=np.float32), (4, 1)))


def test_the_generated_text_is_compiled_once_per_process():
    text = '''
@pl.function
def main(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    for i, (acc,) in pl.range(3, init_values=(x,)):
        out = pl.yield_(pl.add(acc, 1.0))
    return out
'''
    run(text, x=np.zeros(4, np.float32))
    before = len(loop_code._COMPILED)
    np.testing.assert_array_equal(run(text, x=np.zeros(4, np.float32)), np.full(4, 3, np.float32))
    assert len(loop_code._COMPILED) == before


def test_a_while_loop_is_generated_and_spends_the_loop_budget(generated_whiles, monkeypatch):
    text = '''
@pl.function
def main(x: pl.Tensor[[4], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[4], pl.FP32]:
    for k, acc in pl.while_(init_values=(0, x)):
        pl.cond(k < n)
        nxt = pl.add(acc, 1.0)
        kk, out = pl.yield_(k + 1, nxt)
    return out
'''
    np.testing.assert_array_equal(run(text, x=np.zeros(4, np.float32), n=5), np.full(4, 5, np.float32))
    assert generated_whiles and generated_whiles[0].__code__.co_filename == "<pypto loop>"
    monkeypatch.setenv("PYPTO_MACHINE_MAX_ITERATIONS", "3")  # a loop past the budget stops, as with the closures
    with pytest.raises(MachineError, match="past 3 loop iterations") as caught:
        run(text, x=np.zeros(4, np.float32), n=10)
    assert "for k, acc in pl.while_(init_values=(0, x)):\n" in str(caught.value)  # located at the while


def test_a_break_out_of_a_generated_while_loop(generated_whiles):
    got = run('''
@pl.function
def main(x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[4], pl.FP32]:
    for k, acc in pl.while_(init_values=(0, x)):
        pl.cond(k < 10)
        if k == 3:
            break
        nxt = pl.mul(acc, 2.0)
        kk, out = pl.yield_(k + 1, nxt)
    return out
''', x=np.ones(4, np.float32))
    assert generated_whiles[0] is not None
    np.testing.assert_array_equal(got, np.full(4, 8, np.float32))
