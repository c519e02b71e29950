"""FlattenCallExpr (docs/passes/flatten_call_expr.md): PyPTO's worked examples, the NoNestedCalls verifier, the
while-condition rule, and the machine giving the same results before and after."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.interp import compare_outputs, make_inputs, run_program
from pypto_core.passes.properties import IRProperty, IRPropertySet
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry
from pypto_core.testing import same_results

HEADER = "import pypto.language as pl\n\n"

E1 = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], idx: pl.Tensor[[4], pl.INT32]) -> pl.Tensor[[64], pl.FP32]:
        c = pl.add(pl.mul(a, b), pl.exp(a))
        n = pl.tensor.read(idx, [0]) + pl.tensor.read(idx, [1])
        if pl.tensor.read(idx, [2]) > 0:
            c = pl.sub(c, pl.neg(b))
        for i, (acc,) in pl.range(n, init_values=(c,)):
            out = pl.yield_(pl.add(acc, pl.abs(acc)))
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(out, [0], [64])
            r = pl.store(pl.mul(t, t), [0], a)
        return pl.add(r, pl.mul(a, a))
'''

# PyPTO's output but for the condition, which Simplify (not in this pipeline) rewrites to `0 < ...` there.
E1_BODY = '''
t__tmp_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(a__ssa_v0, b__ssa_v0)
t__tmp_v1: pl.Tensor[[64], pl.FP32] = pl.tensor.exp(a__ssa_v0)
c__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.add(t__tmp_v0, t__tmp_v1)
t__tmp_v2: pl.Scalar[pl.INT32] = pl.tensor.read(idx__ssa_v0, [0])
t__tmp_v3: pl.Scalar[pl.INT32] = pl.tensor.read(idx__ssa_v0, [1])
n__ssa_v0: pl.Scalar[pl.INT32] = t__tmp_v2 + t__tmp_v3
t__tmp_v4: pl.Scalar[pl.INT32] = pl.tensor.read(idx__ssa_v0, [2])
if pl.cast(t__tmp_v4, pl.INDEX) > 0:
    t__tmp_v5: pl.Tensor[[64], pl.FP32] = pl.tensor.neg(b__ssa_v0)
    c__ssa_v1: pl.Tensor[[64], pl.FP32] = pl.tensor.sub(c__ssa_v0, t__tmp_v5)
    c__phi_v2: pl.Tensor[[64], pl.FP32] = pl.yield_(c__ssa_v1)
else:
    c__phi_v2: pl.Tensor[[64], pl.FP32] = pl.yield_(c__ssa_v0)
for i__idx_v0, (acc,) in pl.range(n__ssa_v0, init_values=(c__phi_v2,)):
    t__tmp_v6: pl.Tensor[[64], pl.FP32] = pl.tensor.abs(acc)
    t__tmp_v7: pl.Tensor[[64], pl.FP32] = pl.tensor.add(acc, t__tmp_v6)
    out: pl.Tensor[[64], pl.FP32] = pl.yield_(t__tmp_v7)
with pl.at(level=pl.Level.CORE_GROUP):
    t__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(out, [0], [64], [64], target_memory=pl.Mem.Vec)
    t__tmp_v8: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(t__ssa_v0, t__ssa_v0)
    r__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tile.store(t__tmp_v8, [0], a__ssa_v0)
t__tmp_v9: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(a__ssa_v0, a__ssa_v0)
t__tmp_v10: pl.Tensor[[64], pl.FP32] = pl.tensor.add(r__ssa_v0, t__tmp_v9)
return t__tmp_v10'''

E2 = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], idx: pl.Tensor[[4], pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        s = pl.tensor.slice(a, [8], [pl.tensor.read(idx, [0])])
        b = pl.tensor.assemble(a, s, [pl.tensor.read(idx, [1]) * 2])
        for (j,) in pl.while_(init_values=(0,)):
            pl.cond(j < pl.tensor.read(idx, [3]))
            j2 = pl.yield_(j + 1)
        return b
'''

E2_BODY = '''
s__ssa_v0: pl.Tensor[[8], pl.FP32] = pl.tensor.slice(a__ssa_v0, [8], [pl.tensor.read(idx__ssa_v0, [0])])
t__tmp_v0: pl.Scalar[pl.INDEX] = pl.tensor.read(idx__ssa_v0, [1])
b__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.assemble(a__ssa_v0, s__ssa_v0, [t__tmp_v0 * 2])
t__tmp_v1: pl.Scalar[pl.INDEX] = pl.tensor.read(idx__ssa_v0, [3])
for (j,) in pl.while_(init_values=(0,)):
    pl.cond(j < t__tmp_v1)
    j2: pl.Scalar[pl.INDEX] = pl.yield_(j + 1)
return b__ssa_v0'''


def same_results_on(before: ir.Program, after: ir.Program, **given: object) -> None:
    """Both programs give the same outputs from the generated inputs with `given` ones (indices in range)."""
    entry = before.get_function("main")
    inputs = {**make_inputs(entry, seed=0), **{k: np.asarray(v, dtype=np.int64 if k == "idx" else None)
                                              for k, v in given.items()}}
    checks = compare_outputs(run_program(before, inputs, "main"), run_program(after, inputs, "main"))
    assert checks and all(c.comparison.ok for c in checks), [c.comparison.describe() for c in checks]


def body_text(program: ir.Program, name: str = "main") -> str:
    lines = ir.python_print(program).splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"def {name}(")) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].strip().startswith("@pl.function")), len(lines))
    return textwrap.dedent("\n".join(lines[start:end])).strip("\n")


def nested_call_findings(program: ir.Program) -> list:
    return PropertyVerifierRegistry.verify(IRPropertySet([IRProperty.NoNestedCalls]), program)


def prepared(src: str) -> ir.Program:
    """The input of PyPTO's tests: convert_to_ssa then normalize_stmt_structure."""
    return passes.normalize_stmt_structure()(passes.convert_to_ssa()(pl.parse(src)))


def test_the_pass_surface():
    p = passes.flatten_call_expr()
    assert p.get_name() == "FlattenCallExpr"
    assert str(p.get_required_properties()) == "{SSAForm, NormalizedStmtStructure}"
    assert str(p.get_produced_properties()) == "{SSAForm, NoNestedCalls, NormalizedStmtStructure}"
    assert p.get_invalidated_properties().empty()
    assert IRProperty.NoNestedCalls in passes.get_default_verify_properties()


def test_e1_arguments_operands_conditions_bounds_yields_scopes_and_returns():
    before = pl.parse(E1)
    program = passes.normalize_stmt_structure()(passes.convert_to_ssa()(
        passes.unroll_loops()(passes.inline_functions()(before))))
    after = passes.flatten_call_expr()(program)
    assert body_text(after) == E1_BODY.strip("\n")
    assert nested_call_findings(after) == []
    same_results(before, after)


def test_e2_tuple_elements_stay_and_a_while_condition_call_is_hoisted():
    program = prepared(E2)
    findings = nested_call_findings(program)
    assert sorted((d.rule_name, d.error_code) for d in findings) == [("NoNestedCall", 204), ("NoNestedCall", 204)]
    after = passes.flatten_call_expr()(program)
    assert body_text(after) == E2_BODY.strip("\n")
    assert nested_call_findings(after) == []  # the slice offset's nested read is a tuple element
    same_results_on(pl.parse(E2), after, idx=[0, 4, 0, 3])


def test_e3_a_single_statement_body_and_a_range_bound():
    src = HEADER + '''
@pl.program
class P:
    @pl.function
    def one(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return pl.add(pl.exp(a), a)
'''
    after = passes.flatten_call_expr()(prepared(src))
    assert body_text(after, "one") == textwrap.dedent('''
        t__tmp_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.exp(a__ssa_v0)
        t__tmp_v1: pl.Tensor[[64], pl.FP32] = pl.tensor.add(t__tmp_v0, a__ssa_v0)
        return t__tmp_v1''').strip("\n")
    body = after.get_function("one").body
    assert isinstance(body, ir.SeqStmts) and len(body.stmts) == 3

    ranged = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], idx: pl.Tensor[[4], pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        for i, (acc,) in pl.range(pl.tensor.read(idx, [0]), init_values=(a,)):
            r = pl.yield_(pl.add(acc, 1.0))
        return r
'''
    before = pl.parse(ranged)
    after = passes.flatten_call_expr()(prepared(ranged))
    lines = body_text(after).splitlines()
    assert lines[0] == "t__tmp_v0: pl.Scalar[pl.INDEX] = pl.tensor.read(idx__ssa_v0, [0])"
    assert lines[1].startswith("for i__idx_v0, (acc,) in pl.range(t__tmp_v0, init_values=")
    same_results_on(before, after, idx=[3, 0, 0, 0])


def test_findings_of_each_kind():
    src = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], idx: pl.Tensor[[4], pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        c = pl.add(pl.exp(a), a)
        k = -pl.tensor.read(idx, [1])
        for i, (acc,) in pl.range(pl.tensor.read(idx, [0]), init_values=(c,)):
            r = pl.yield_(pl.add(acc, 1.0))
        return r
'''
    findings = nested_call_findings(prepared(src))
    assert sorted(d.error_code for d in findings) == [201, 203, 205]
    messages = {d.error_code: d.message for d in findings}
    assert messages[201] == "Call expression has nested call in arguments"
    assert messages[203] == "For loop stop expression cannot be a call expression"
    assert messages[205] == "Unary expression operand cannot be a call expression"


def test_a_while_condition_call_on_a_carried_value_is_rejected():
    src = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[4], pl.INDEX]) -> pl.Tensor[[4], pl.INDEX]:
        for (t,) in pl.while_(init_values=(a,)):
            pl.cond(pl.tensor.read(t, [0]) < 10)
            t2 = pl.yield_(pl.add(t, 1))
        return t2
'''
    with pytest.raises(ValueError, match="calls tensor.read on the loop-carried value 't'"):
        passes.flatten_call_expr()(prepared(src))


def test_temporaries_continue_after_those_a_function_already_has():
    program = passes.flatten_call_expr()(prepared(E2))
    again = pl.parse(ir.python_print(program))
    src_with_new_nesting = ir.python_print(again).replace("[t__tmp_v0 * 2]", "[pl.tensor.read(idx__ssa_v0, [2]) * 2]")
    after = passes.flatten_call_expr()(pl.parse(src_with_new_nesting))
    assert "t__tmp_v2: pl.Scalar[pl.INDEX] = pl.tensor.read(idx__ssa_v0, [2])" in ir.python_print(after)


def test_an_already_flat_function_is_kept():
    program = prepared(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b = pl.exp(a)
        return b
''')
    after = passes.flatten_call_expr()(program)
    assert after.get_function("main") is program.get_function("main")
