"""CtrlFlowTransform: each rule structurally (Before / Expected) and by execution, the verifier, the errors."""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry
from pypto_core.testing import same_results
from pypto_plugins.pass_canonicalize.tests.helpers import expect, program


def transformed(src: str, seeds: tuple[int, ...] = (0, 1, 2, 3)) -> ir.Program:
    """The pass's output; it computes what the input computes (several scalar inputs: 1..8)."""
    before = program(src)
    after = passes.ctrl_flow_transform()(before)
    for seed in seeds:
        same_results(before, after, seed=seed)
    assert not PropertyVerifierRegistry.verify(["StructuredCtrlFlow"], after)
    return after


KERNEL = "@pl.function(type=pl.FunctionType.InCore)\n"


def test_api_names_and_properties():
    p = passes.ctrl_flow_transform()
    assert p.get_name() == "CtrlFlowTransform"
    assert p.get_required_properties().empty()
    assert p.get_produced_properties().contains(passes.IRProperty.StructuredCtrlFlow)
    assert p.get_invalidated_properties().empty()


def test_continue_then_break_without_carries_page_e1():
    after = transformed(KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(0, n, 2):
        if i == 3:
            continue
        x = pl.add(x, 1.0)
        if i > 10:
            break
        x = pl.mul(x, 2.0)
    return x
''')
    expect(after, KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    i__idx_v1: pl.Scalar[pl.INDEX] = 0
    break__tmp_v0: pl.Scalar[pl.BOOL] = False
    while i__idx_v1 < n and not break__tmp_v0:
        if i__idx_v1 == 3:
            pass
        else:
            x: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)
            if i__idx_v1 > 10:
                break__tmp_v0: pl.Scalar[pl.BOOL] = True
                pl.yield_()
            else:
                x: pl.Tensor[[64], pl.FP32] = pl.tensor.muls(x, 2.0)
                pl.yield_()
        if not break__tmp_v0:
            i__idx_v1: pl.Scalar[pl.INDEX] = i__idx_v1 + 2
    return x
''')


def test_break_with_a_carry_and_a_negative_step_counts_down_page_e2():
    after = transformed('''
@pl.function(type=pl.FunctionType.AIV)
def k(x0: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i, (acc,) in pl.range(8, 0, -1, init_values=(x0,)):
        if i < n:
            break
        nxt = pl.add(acc, 1.0)
        res = pl.yield_(nxt)
    return res
''')
    expect(after, '''
@pl.function(type=pl.FunctionType.AIV)
def k(x0: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    i__idx_v1: pl.Scalar[pl.INDEX] = 8
    break__tmp_v0: pl.Scalar[pl.BOOL] = False
    for (acc,) in pl.while_(init_values=(x0,)):
        pl.cond(i__idx_v1 > 0 and not break__tmp_v0)
        if i__idx_v1 < n:
            break__tmp_v0: pl.Scalar[pl.BOOL] = True
            acc__phi_v2: pl.Tensor[[64], pl.FP32] = pl.yield_(acc)
        else:
            nxt: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(acc, 1.0)
            acc__phi_v2: pl.Tensor[[64], pl.FP32] = pl.yield_(nxt)
        if not break__tmp_v0:
            i__idx_v1: pl.Scalar[pl.INDEX] = i__idx_v1 + -1
        res: pl.Tensor[[64], pl.FP32] = pl.yield_(acc__phi_v2)
    return res
''')


def test_continue_in_a_while_keeps_the_while():
    after = transformed(KERNEL + '''
def w(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    j = 0
    while j < n:
        j = j + 1
        if j == 2:
            continue
        x = pl.add(x, 1.0)
    return x
''')
    expect(after, KERNEL + '''
def w(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    j: pl.Scalar[pl.INDEX] = 0
    while j < n:
        j: pl.Scalar[pl.INDEX] = j + 1
        if j == 2:
            pass
        else:
            x: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)
    return x
''')


def test_break_nested_in_an_if_guards_the_rest_page_e3():
    after = transformed(KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(n):
        if i > 1:
            if i > 5:
                break
            x = pl.add(x, 1.0)
        x = pl.mul(x, 2.0)
    return x
''', seeds=(0, 1, 2, 3, 4, 5))
    expect(after, KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    i__idx_v1: pl.Scalar[pl.INDEX] = 0
    break__tmp_v0: pl.Scalar[pl.BOOL] = False
    while i__idx_v1 < n and not break__tmp_v0:
        if i__idx_v1 > 1:
            if i__idx_v1 > 5:
                break__tmp_v0: pl.Scalar[pl.BOOL] = True
                pl.yield_()
            else:
                x: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)
                pl.yield_()
        else:
            pass
        if not break__tmp_v0:
            x: pl.Tensor[[64], pl.FP32] = pl.tensor.muls(x, 2.0)
            pl.yield_()
        else:
            pl.yield_()
        if not break__tmp_v0:
            i__idx_v1: pl.Scalar[pl.INDEX] = i__idx_v1 + 1
    return x
''')


def test_an_exit_carries_the_iter_args_on_page_e4():
    """Decision (docs/passes/ctrl_flow_transform.md): the path that breaks yields the iter_args, as the machine
    runs the program (the yield of a broken iteration never runs); PyPTO yields `t`, defined before the break."""
    after = transformed(KERNEL + '''
def k(x0: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    for i, (acc, s) in pl.range(n, init_values=(x0, 0)):
        t = pl.add(acc, 1.0)
        if i > 5:
            break
        acc2, s2 = pl.yield_(t, s + i)
    r = pl.tensor.write(out, [0], pl.cast(s2, pl.FP32))
    return acc2
''', seeds=tuple(range(8)))
    expect(after, KERNEL + '''
def k(x0: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    i__idx_v1: pl.Scalar[pl.INDEX] = 0
    break__tmp_v0: pl.Scalar[pl.BOOL] = False
    for (acc, s) in pl.while_(init_values=(x0, 0)):
        pl.cond(i__idx_v1 < n and not break__tmp_v0)
        t: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(acc, 1.0)
        if i__idx_v1 > 5:
            break__tmp_v0: pl.Scalar[pl.BOOL] = True
            acc__phi_v2, s__phi_v3 = pl.yield_(acc, s)
        else:
            acc__phi_v2, s__phi_v3 = pl.yield_(t, s + i__idx_v1)
        if not break__tmp_v0:
            i__idx_v1: pl.Scalar[pl.INDEX] = i__idx_v1 + 1
        acc2, s2 = pl.yield_(acc__phi_v2, s__phi_v3)
    r: pl.Tensor[[64], pl.FP32] = pl.tensor.write(out, [0], pl.cast(s2, pl.FP32))
    return acc2
''')


def test_a_yielded_expression_is_bound_before_the_counter_steps():
    after = transformed(KERNEL + '''
def k(n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[4], pl.INDEX]]) -> pl.Tensor[[4], pl.INDEX]:
    for i, (s,) in pl.range(n, init_values=(0,)):
        if i == 6:
            break
        s2 = pl.yield_(s + i)
    r = pl.tensor.write(out, [0], s2)
    return r
''', seeds=tuple(range(8)))
    expect(after, KERNEL + '''
def k(n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[4], pl.INDEX]]) -> pl.Tensor[[4], pl.INDEX]:
    i__idx_v1: pl.Scalar[pl.INDEX] = 0
    break__tmp_v0: pl.Scalar[pl.BOOL] = False
    for (s,) in pl.while_(init_values=(0,)):
        pl.cond(i__idx_v1 < n and not break__tmp_v0)
        if i__idx_v1 == 6:
            break__tmp_v0: pl.Scalar[pl.BOOL] = True
            s__phi_v2: pl.Scalar[pl.INDEX] = pl.yield_(s)
        else:
            s__phi_v2: pl.Scalar[pl.INDEX] = pl.yield_(s + i__idx_v1)
        if not break__tmp_v0:
            i__idx_v1: pl.Scalar[pl.INDEX] = i__idx_v1 + 1
        s2: pl.Scalar[pl.INDEX] = pl.yield_(s__phi_v2)
    r: pl.Tensor[[4], pl.INDEX] = pl.tensor.write(out, [0], s2)
    return r
''')


def test_continue_deeper_in_an_if_runs_the_rest_only_on_the_other_paths():
    """PyPTO runs the statements after such an if on every path (docs/passes/ctrl_flow_transform.md); the rest
    goes into both branches instead, and the continuing path drops it."""
    after = transformed(KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(6):
        if i > 1:
            if i < n:
                continue
            x = pl.add(x, 1.0)
        x = pl.mul(x, 2.0)
    return x
''', seeds=tuple(range(6)))
    expect(after, KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(6):
        if i > 1:
            if i < n:
                pass
            else:
                x: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)
                x: pl.Tensor[[64], pl.FP32] = pl.tensor.muls(x, 2.0)
        else:
            x: pl.Tensor[[64], pl.FP32] = pl.tensor.muls(x, 2.0)
    return x
''')


def test_continue_with_a_carry_merges_into_phis():
    after = transformed(KERNEL + '''
def k(x0: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i, (acc,) in pl.range(5, init_values=(x0,)):
        if i == n:
            continue
        nxt = pl.add(acc, 1.0)
        res = pl.yield_(nxt)
    return res
''')
    expect(after, KERNEL + '''
def k(x0: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i, (acc,) in pl.range(5, init_values=(x0,)):
        if i == n:
            acc__phi_v0: pl.Tensor[[64], pl.FP32] = pl.yield_(acc)
        else:
            nxt: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(acc, 1.0)
            acc__phi_v0: pl.Tensor[[64], pl.FP32] = pl.yield_(nxt)
        res: pl.Tensor[[64], pl.FP32] = pl.yield_(acc__phi_v0)
    return res
''')


def test_a_bare_break_drops_the_rest_and_inner_loops_go_first():
    after = transformed(KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(3):
        for j in pl.range(n):
            x = pl.add(x, 1.0)
            break
        x = pl.mul(x, 2.0)
    return x
''')
    expect(after, KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(3):
        j__idx_v1: pl.Scalar[pl.INDEX] = 0
        break__tmp_v0: pl.Scalar[pl.BOOL] = False
        while j__idx_v1 < n and not break__tmp_v0:
            x: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x, 1.0)
            break__tmp_v0: pl.Scalar[pl.BOOL] = True
            if not break__tmp_v0:
                j__idx_v1: pl.Scalar[pl.INDEX] = j__idx_v1 + 1
        x: pl.Tensor[[64], pl.FP32] = pl.tensor.muls(x, 2.0)
    return x
''')


def test_functions_other_than_kernels_and_loops_without_exits_are_unchanged():
    before = program('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for i in pl.range(4):
                if i > n:
                    break
                x = pl.add(x, 1.0)
        return x

    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        for i in pl.range(4):
            x = pl.add(x, 1.0)
        return x
''')
    assert passes.ctrl_flow_transform()(before) is before


def test_the_verifier_names_each_break_and_continue_of_a_kernel():
    before = program(KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(4):
        if i == n:
            continue
        if i > n:
            break
        x = pl.add(x, 1.0)
    return x
''')
    found = PropertyVerifierRegistry.verify(["StructuredCtrlFlow"], before)
    assert [(d.rule_name, d.error_code) for d in found] == [("StructuredCtrlFlow", 1), ("StructuredCtrlFlow", 0)]
    assert found[1].message.startswith("BreakStmt found — IR is not in structured control flow form")
    assert found[0].message.startswith("ContinueStmt found — IR is not in structured control flow form")
    assert found[1].span.begin_line == 10


@pytest.mark.unverified
def test_an_if_with_results_holding_a_break_is_refused():
    before = program(KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i, (acc,) in pl.range(4, init_values=(x,)):
        if i < n:
            if i == 2:
                break
            y = pl.yield_(acc)
        else:
            y = pl.yield_(acc)
        r = pl.yield_(y)
    return r
''')
    with pytest.raises(ValueError, match="this if names results with pl.yield_ and holds a 'break'"):
        passes.ctrl_flow_transform()(before)


@pytest.mark.unverified
def test_break_in_a_pipeline_loop_is_refused():
    before = program(KERNEL + '''
def k(x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.pipeline(4, stage=2):
        if i > n:
            break
        x = pl.add(x, 1.0)
    return x
''')
    with pytest.raises(ValueError, match="'break' in a pl.pipeline loop"):
        passes.ctrl_flow_transform()(before)
