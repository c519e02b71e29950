"""InlineFunctions (docs/passes/inline_functions.md): PyPTO's worked examples, errors, verifier, and the machine
giving the same results before and after."""

from __future__ import annotations

import re
import textwrap

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto_core.errors import InternalError
from pypto_core.passes.properties import IRProperty, IRPropertySet
from pypto_core.passes.verifier_registry import DiagnosticSeverity, PropertyVerifierRegistry
from pypto_core.testing import same_results

HEADER = "import pypto.language as pl\n\n"

E1 = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def scale(self, x: pl.Tensor[[32], pl.FP32], k: pl.Scalar[pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        t = pl.mul(x, k)
        u = pl.add(t, 1.0)
        return u

    @pl.function
    def main(self, a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        r1 = self.scale(a, 2.0)
        r2 = self.scale(b, 3.0)
        s = pl.add(r1, r2)
        return s
'''

E1_EXPECTED = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32], pl.FP32], b: pl.Tensor[[32], pl.FP32]) -> pl.Tensor[[32], pl.FP32]:
        t_inline: pl.Tensor[[32], pl.FP32] = pl.tensor.muls(a, 2.0)
        u_inline: pl.Tensor[[32], pl.FP32] = pl.tensor.adds(t_inline, 1.0)
        r1: pl.Tensor[[32], pl.FP32] = u_inline
        t0_inline: pl.Tensor[[32], pl.FP32] = pl.tensor.muls(b, 3.0)
        u0_inline: pl.Tensor[[32], pl.FP32] = pl.tensor.adds(t0_inline, 1.0)
        r2: pl.Tensor[[32], pl.FP32] = u0_inline
        s: pl.Tensor[[32], pl.FP32] = pl.tensor.add(r1, r2)
        return s
'''

E2 = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def pair(self, x: pl.Tensor[[16], pl.FP32]) -> tuple[pl.Tensor[[16], pl.FP32], pl.Tensor[[16], pl.FP32]]:
        p = pl.add(x, 1.0)
        q = pl.mul(x, 2.0)
        return p, q

    @pl.function(type=pl.FunctionType.Inline)
    def sink(self, x: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        for i in pl.range(2):
            o = pl.tensor.assemble(o, x, [0])
        return o

    @pl.function
    def main(self, a: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        u, v = self.pair(a)
        w = pl.add(u, v)
        self.sink(w, o)
        return self.sink(v, o)
'''

E2_EXPECTED = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[16], pl.FP32], o: pl.Out[pl.Tensor[[16], pl.FP32]]) -> pl.Tensor[[16], pl.FP32]:
        p_inline: pl.Tensor[[16], pl.FP32] = pl.tensor.adds(a, 1.0)
        q_inline: pl.Tensor[[16], pl.FP32] = pl.tensor.muls(a, 2.0)
        u: pl.Tensor[[16], pl.FP32] = p_inline
        v: pl.Tensor[[16], pl.FP32] = q_inline
        w: pl.Tensor[[16], pl.FP32] = pl.tensor.add(u, v)
        for i_inline in pl.range(2):
            o: pl.Tensor[[16], pl.FP32] = pl.tensor.assemble(o, w, [0])
        for i0_inline in pl.range(2):
            o: pl.Tensor[[16], pl.FP32] = pl.tensor.assemble(o, v, [0])
        return o
'''

E3 = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def sq(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        y = pl.mul(x, x)
        return y

    @pl.function(type=pl.FunctionType.Inline)
    def quad(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = self.sq(x)
        return self.sq(s)

    @pl.function
    def main(self, a: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
        r = a
        if n > 0:
            r = self.quad(a)
        z = pl.add(NESTED, r)
        return z
'''

E3_BODY = '''
        r: pl.Tensor[[8], pl.FP32] = a
        if n > 0:
            with pl.at(level=pl.Level.CORE_GROUP):
                y_inline3: pl.Tensor[[8], pl.FP32] = pl.tensor.mul(a, a)
                s_inline2: pl.Tensor[[8], pl.FP32] = y_inline3
            y_inline4: pl.Tensor[[8], pl.FP32] = pl.tensor.mul(s_inline2, s_inline2)
            r: pl.Tensor[[8], pl.FP32] = y_inline4
        z: pl.Tensor[[8], pl.FP32] = pl.tensor.add(self.sq(a), r)
        return z'''

E4 = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def helper(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(x, x)
        return y

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        pl.dump_tag(a)
        r = self.helper(a)
        return r
'''


def body_text(program: ir.Program, name: str = "main") -> str:
    """The printed body of a function of the program (as the program prints it: `self.f(...)`), dedented."""
    lines = ir.python_print(program).splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"def {name}(")) + 1
    end = next((i for i in range(start, len(lines)) if lines[i].strip().startswith("@pl.function")), len(lines))
    return textwrap.dedent("\n".join(lines[start:end])).strip("\n")


def body(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def renumbered(text: str) -> str:
    """The text with every `_inline<N>` numbered from 0 in order of first appearance."""
    seen: dict[str, int] = {}
    return re.sub(r"_inline(\d+)", lambda m: f"_inline{seen.setdefault(m.group(1), len(seen))}", text)


def inline_errors(program: ir.Program) -> list:
    ps = IRPropertySet([IRProperty.InlineFunctionsEliminated])
    return [d for d in PropertyVerifierRegistry.verify(ps, program) if d.severity == DiagnosticSeverity.Error]


def test_the_pass_surface():
    p = passes.inline_functions()
    assert p.get_name() == "InlineFunctions"
    assert p.get_required_properties().empty()
    assert str(p.get_produced_properties()) == "{InlineFunctionsEliminated}"
    assert p.get_invalidated_properties().empty()


def test_e1_two_sites_scalar_param_replaced_by_a_constant():
    before = pl.parse(E1)
    after = passes.inline_functions()(before)
    assert [f.name for f in after.functions.values()] == ["main"]
    ir.assert_structural_equal(after, pl.parse(E1_EXPECTED))
    # PyPTO numbers one splice's variables last-defined first; the counter never resets.
    assert renumbered(body_text(after)) == renumbered(body('''
        t_inline1: pl.Tensor[[32], pl.FP32] = pl.tensor.muls(a, 2.0)
        u_inline0: pl.Tensor[[32], pl.FP32] = pl.tensor.adds(t_inline1, 1.0)
        r1: pl.Tensor[[32], pl.FP32] = u_inline0
        t_inline3: pl.Tensor[[32], pl.FP32] = pl.tensor.muls(b, 3.0)
        u_inline2: pl.Tensor[[32], pl.FP32] = pl.tensor.adds(t_inline3, 1.0)
        r2: pl.Tensor[[32], pl.FP32] = u_inline2
        s: pl.Tensor[[32], pl.FP32] = pl.tensor.add(r1, r2)
        return s'''))
    same_results(before, after)


def test_a_second_run_continues_the_numbering():
    first = body_text(passes.inline_functions()(pl.parse(E1)))
    second = body_text(passes.inline_functions()(pl.parse(E1)))
    n1 = max(int(n) for n in re.findall(r"_inline(\d+)", first))
    assert min(int(n) for n in re.findall(r"_inline(\d+)", second)) > n1


def test_e2_tuple_result_eval_site_return_site_and_param_rebinding():
    before = pl.parse(E2)
    after = passes.inline_functions()(before)
    ir.assert_structural_equal(after, pl.parse(E2_EXPECTED))
    text = body_text(after)
    assert "_tuple_tmp" not in text
    assert re.search(r"u: pl.Tensor\[\[16\], pl.FP32\] = p_inline\d+", text)
    same_results(before, after)


@pytest.mark.unverified
def test_e3_chains_through_a_scope_and_leaves_a_nested_call_dangling():
    after = passes.inline_functions()(pl.parse(E3.replace("NESTED", "self.sq(a)")))
    assert sorted(f.name for f in after.functions.values()) == ["main"]
    assert renumbered(body_text(after)) == renumbered(body(E3_BODY))
    diags = inline_errors(after)
    assert [(d.error_code, d.rule_name) for d in diags] == [(2, "InlineFunctionsEliminated")]
    assert "Dangling Call to function 'sq'" in diags[0].message


def test_e3_without_the_nested_call_runs_the_same():
    before = pl.parse(E3.replace("NESTED", "a"))
    after = passes.inline_functions()(before)
    assert inline_errors(after) == []
    same_results(before, after)


def test_e4_a_dump_tag_moves_to_the_spliced_scope():
    before = pl.parse(E4)
    assert 'attrs={"dump_vars": [a]}' in ir.python_print(before)
    after = passes.inline_functions()(before)
    assert renumbered(body_text(after)) == renumbered(body('''
        with pl.at(level=pl.Level.CORE_GROUP, dumps=[a]):
            y_inline0: pl.Tensor[[8], pl.FP32] = pl.tensor.add(a, a)
        r: pl.Tensor[[8], pl.FP32] = y_inline0
        return r'''))
    same_results(before, after)


def test_a_program_without_inline_functions_comes_back_as_the_same_object():
    program = pl.parse(E1.replace("type=pl.FunctionType.Inline", "type=pl.FunctionType.Opaque"))
    assert passes.inline_functions()(program) is program


def test_an_unused_inline_function_is_dropped():
    src = E1.replace("r1 = self.scale(a, 2.0)", "r1 = a").replace("r2 = self.scale(b, 3.0)", "r2 = b")
    after = passes.inline_functions()(pl.parse(src))
    assert [f.name for f in after.functions.values()] == ["main"]


def test_the_verifier_reports_an_inline_function_and_its_call_on_the_input():
    diags = inline_errors(pl.parse(E1))
    codes = sorted(d.error_code for d in diags)
    assert codes == [0, 1, 1]
    assert all("scale" in d.message for d in diags)


def test_a_pass_through_callee_appends_no_assignment():
    src = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def fill(self, o: pl.Out[pl.Tensor[[8], pl.FP32]], x: pl.Tensor[[4], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        o = pl.tensor.assemble(o, x, [0])
        return o

    @pl.function
    def main(self, a: pl.Tensor[[4], pl.FP32], o: pl.Out[pl.Tensor[[8], pl.FP32]]) -> pl.Tensor[[8], pl.FP32]:
        o = self.fill(o, a)
        return o
'''
    before = pl.parse(src)
    after = passes.inline_functions()(before)
    assert body_text(after) == body('''
        o: pl.Tensor[[8], pl.FP32] = pl.tensor.assemble(o, a, [0])
        return o''')
    same_results(before, after)


def test_an_in_parameter_the_helper_assigns_is_copied_not_the_callers_variable():
    # PyPTO rebinds the caller's `a` here, and `c` would read the bumped value.
    src = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def bump(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
        x = pl.add(x, 1.0)
        n = n + 1
        y = pl.add(x, pl.cast(n, pl.FP32))
        return y

    @pl.function
    def main(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        b = self.bump(a, 3)
        c = pl.add(a, b)
        return c
'''
    before = pl.parse(src)
    after = passes.inline_functions()(before)
    assert renumbered(body_text(after)) == renumbered(body('''
        x_inline3: pl.Tensor[[8], pl.FP32] = a
        n_inline2: pl.Scalar[pl.INDEX] = 3
        x_inline3: pl.Tensor[[8], pl.FP32] = pl.tensor.adds(x_inline3, 1.0)
        n_inline2: pl.Scalar[pl.INDEX] = n_inline2 + 1
        y_inline1: pl.Tensor[[8], pl.FP32] = pl.tensor.adds(y_inline1_x, pl.cast(n_inline2, pl.FP32))
        b: pl.Tensor[[8], pl.FP32] = y_inline1
        c: pl.Tensor[[8], pl.FP32] = pl.tensor.add(a, b)
        return c''').replace("y_inline1_x", "x_inline3"))
    same_results(before, after)


def test_a_tuple_returned_through_a_make_tuple_variable():
    src = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def pair(self, x: pl.Tensor[[8], pl.FP32]) -> tuple[pl.Tensor[[8], pl.FP32], pl.Tensor[[8], pl.FP32]]:
        p = pl.add(x, 1.0)
        both = (p, x)
        return both

    @pl.function
    def main(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        u, v = self.pair(a)
        w = pl.add(u, v)
        return w
'''
    before = pl.parse(src)
    after = passes.inline_functions()(before)
    text = body_text(after)
    assert "both" not in text and "_tuple_tmp" not in text
    same_results(before, after)


# -- errors -----------------------------------------------------------------------------------------------------
CYCLE = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def f(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        y = self.g(x)
        return y

    @pl.function(type=pl.FunctionType.Inline)
    def g(self, x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        y = pl.add(self.f(x), 1.0)
        return y

    @pl.function
    def main(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        r = self.f(a)
        return r
'''


def test_mutual_recursion_is_a_cycle_even_through_a_nested_call():
    with pytest.raises(ValueError, match=r"Cycle detected in FunctionType::Inline call graph: (f -> g -> f|g -> f -> g)"):
        passes.inline_functions()(pl.parse(CYCLE))


def test_self_recursion_is_a_cycle():
    src = CYCLE.replace("y = self.g(x)", "y = self.f(x)")
    with pytest.raises(ValueError, match=r"Cycle detected in FunctionType::Inline call graph: f -> f"):
        passes.inline_functions()(pl.parse(src))


RETURN_IN_BRANCH = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def f(self, x: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
        if n > 0:
            return x
        y = pl.add(x, 1.0)
        return y

    @pl.function
    def main(self, a: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[8], pl.FP32]:
        r = self.f(a, n)
        return r
'''


def test_a_return_inside_a_branch_is_rejected():
    with pytest.raises(InternalError, match="contains a non-trailing ReturnStmt") as info:
        passes.inline_functions()(pl.parse(RETURN_IN_BRANCH))
    assert isinstance(info.value, ValueError)  # a located program error too (exit 1 on the command line)
    assert "<string>:" in str(info.value)


def test_rebinding_an_out_parameter_given_an_expression_is_rejected():
    src = HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def fill(self, x: pl.Tensor[[8], pl.FP32], o: pl.Out[pl.Tensor[[8], pl.FP32]]) -> pl.Tensor[[8], pl.FP32]:
        o = pl.tensor.assemble(o, x, [0])
        return o

    @pl.function
    def main(self, a: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
        r = self.fill(a, pl.add(a, 1.0))
        return r
'''
    with pytest.raises(InternalError, match="AssignStmt var is not a Var after mutation"):
        passes.inline_functions()(pl.parse(src))


def test_a_pipeline_error_is_a_pypto_error_naming_the_pass():
    # Verified after the pass (VerificationInstrument): the dangling call of E3 is reported.
    with pytest.raises(pypto.Error, match="Dangling Call to function 'sq'"):
        passes.inline_functions()(pl.parse(E3.replace("NESTED", "self.sq(a)")))


TILE_HELPER = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def grab(a: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tile[[16, 16], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 16])
        return t

    @pl.function(type=pl.FunctionType.InCore)
    def main(a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = self.grab(a)
        out = pl.store(pl.add(t, t), [0, 0], out)
        return out
'''


def test_a_site_variable_takes_the_inlined_values_type_and_reads_back_equal():
    """The helper declares a tile without a memory space; the inlined load is in Vec. The site's `t = <value>`
    takes the value's type, as the parser reads the printed program back (a fuzz finding: the round trip
    failed on the space)."""
    before = pl.parse(TILE_HELPER)
    after = passes.inline_functions()(before)
    site = [s for s in ir.flatten_to_stmts(after.get_function("main").body) if isinstance(s, ir.AssignStmt)
            and s.var.name_hint.startswith("t") and isinstance(s.value, ir.Var)]
    assert site and site[0].var.type.memory_space is pl.Mem.Vec, body_text(after)
    ir.assert_structural_equal(pl.parse(ir.python_print(after)), after)
    same_results(before, after)
