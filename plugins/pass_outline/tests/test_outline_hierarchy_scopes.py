"""OutlineHierarchyScopes (docs/passes/outline_hierarchy_scopes.md): Before/Expected, execution before and after,
names, directions, outputs, call attrs, nesting, errors and the two verifiers."""

from __future__ import annotations

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import checked_pipeline

from .helpers import expect, function, same_results

HEADER = "import pypto.language as pl\n\n"


def hoist(src: str, run: bool = True) -> ir.Program:
    """parse -> convert_to_ssa -> outline_hierarchy_scopes; the output prints and parses back to itself and
    (unless `run` is False) computes what the input computes on the reference machine."""
    program = passes.convert_to_ssa()(pl.parse(HEADER + src))
    after = passes.outline_hierarchy_scopes()(program)
    ir.assert_structural_equal(after, pl.parse(ir.python_print(after)))
    if run:
        same_results(program, after)
    return after


def directions(program: ir.Program, name: str) -> dict[str, ir.ParamDirection]:
    f = function(program, name)
    return {p.name_hint.split("__")[0]: d for p, d in zip(f.params, f.param_directions)}


def names(program: ir.Program) -> set[str]:
    return {f.name for f in program.functions.values()}


TWO_SCOPES = '''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], y: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator):
            s = pl.add(x, y)
            d = pl.sub(x, y)
        with pl.at(level=pl.Level.CHIP):
            p = pl.mul(s, d)
        return p
'''


def test_two_scopes_become_opaque_functions_with_level_and_role():
    after = hoist(TWO_SCOPES)
    expect(after, HEADER + '''
@pl.program
class P:
    @pl.function(level=pl.Level.CHIP)
    def main_chip_1(self, s__ssa_v0: pl.Tensor[[64], pl.FP32], d__ssa_v0: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        p__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(s__ssa_v0, d__ssa_v0)
        return p__ssa_v0
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def main_host_orch_0(self, x__ssa_v0: pl.Tensor[[64], pl.FP32], y__ssa_v0: pl.Tensor[[64], pl.FP32]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
        s__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x__ssa_v0, y__ssa_v0)
        d__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.sub(x__ssa_v0, y__ssa_v0)
        return s__ssa_v0, d__ssa_v0
    @pl.function
    def main(self, x__ssa_v0: pl.Tensor[[64], pl.FP32], y__ssa_v0: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        ret__tmp_v0: pl.Tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]] = self.main_host_orch_0(x__ssa_v0, y__ssa_v0)
        s__ssa_v0: pl.Tensor[[64], pl.FP32] = ret__tmp_v0[0]
        d__ssa_v0: pl.Tensor[[64], pl.FP32] = ret__tmp_v0[1]
        p__ssa_v0: pl.Tensor[[64], pl.FP32] = self.main_chip_1(s__ssa_v0, d__ssa_v0)
        return p__ssa_v0
''')
    assert function(after, "main_host_orch_0").level == ir.Level.HOST
    assert function(after, "main_host_orch_0").role == ir.Role.Orchestrator
    assert function(after, "main_chip_1").role is None
    assert function(after, "main").func_type is ir.FunctionType.Opaque


NAMES_AND_ASSEMBLE = '''
@pl.program
class P:
    @pl.function
    def helper(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.HOST, name_hint="blk"):
            y = pl.add(x, 1.0)
        return y

    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.HOST, name_hint="blk"):
            t = pl.exp(x)
            o = pl.assemble(o, t, [0])
        with pl.at(level=pl.Level.HOST, name_hint="blk"):
            u = pl.add(o, x)
        with pl.at(level=pl.Level.CHIP):
            pl.add(u, u)
        return u

    @pl.function(type=pl.FunctionType.Orchestration)
    def orch(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.HOST):
            z = pl.mul(x, 2.0)
        return z
'''


def test_names_assembled_output_is_the_parameter_and_other_function_types_are_left_alone():
    after = hoist(NAMES_AND_ASSEMBLE)
    assert names(after) == {"helper", "main", "orch", "blk", "main_blk", "main_blk_0", "main_chip_2"}
    expect(ir.Program([function(after, n) for n in ("main_blk", "main_blk_0", "main_chip_2", "main")], "P", ir.Span.unknown()),
           HEADER + '''
@pl.program
class P:
    @pl.function(level=pl.Level.HOST)
    def main_blk(self, x__ssa_v0: pl.Tensor[[64], pl.FP32], o__ssa_v0: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.exp(x__ssa_v0)
        o__ssa_v1: pl.Tensor[[64], pl.FP32] = pl.tensor.assemble(o__ssa_v0, t__ssa_v0, [0])
        return o__ssa_v0
    @pl.function(level=pl.Level.HOST)
    def main_blk_0(self, o__ssa_v1: pl.Tensor[[64], pl.FP32], x__ssa_v0: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        u__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.add(o__ssa_v1, x__ssa_v0)
        return u__ssa_v0
    @pl.function(level=pl.Level.CHIP)
    def main_chip_2(self, u__ssa_v0: pl.Tensor[[64], pl.FP32]):
        pl.tensor.add(u__ssa_v0, u__ssa_v0)
    @pl.function
    def main(self, x__ssa_v0: pl.Tensor[[64], pl.FP32], o__ssa_v0: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        o__ssa_v1: pl.Tensor[[64], pl.FP32] = self.main_blk(x__ssa_v0, o__ssa_v0)
        u__ssa_v0: pl.Tensor[[64], pl.FP32] = self.main_blk_0(o__ssa_v1, x__ssa_v0)
        self.main_chip_2(u__ssa_v0)
        return u__ssa_v0
''')
    # an Orchestration function keeps its Hierarchy scope (only Opaque functions are processed)
    orch = ir.flatten_to_stmts(function(after, "orch").body)
    assert isinstance(orch[0], ir.HierarchyScopeStmt)


def test_a_read_and_assembled_capture_is_inout_a_read_only_one_in():
    after = hoist('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], o: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CHIP_DIE):
            t = pl.add(o, a)
            o = pl.assemble(o, t, [0])
        return o
''')
    assert directions(after, "main_chip_die_0") == {"a": ir.ParamDirection.In, "o": ir.ParamDirection.InOut}


def test_an_alias_level_names_the_canonical_level_and_positional_arguments_work():
    after = hoist('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(pl.Level.POD, pl.Role.SubWorker):
            b = pl.exp(a)
        with pl.at(level=pl.Level.L2CACHE):
            c = pl.add(b, a)
        return c
''')
    assert names(after) == {"main", "main_cluster0_sub_worker_0", "main_chip_die_1"}
    assert function(after, "main_cluster0_sub_worker_0").role == ir.Role.SubWorker


def test_scopes_in_a_loop_and_an_if_return_only_what_is_used_later():
    after = hoist('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64], pl.FP32]:
        acc = pl.mul(x, 0.0)
        for i in pl.range(3):
            with pl.at(level=pl.Level.HOST):
                tmp = pl.exp(x)
                acc = pl.add(acc, tmp)
        if n > 0:
            with pl.at(level=pl.Level.CHIP):
                w = pl.exp(acc)
                v = pl.neg(w)
        return acc
''')
    loop_fn = function(after, "main_host_0")
    assert [r.name_hint for r in ir.flatten_to_stmts(loop_fn.body)[-1].value] == ["acc__ssa_v2"]
    chip = function(after, "main_chip_1")
    assert chip.return_types == [] and not isinstance(ir.flatten_to_stmts(chip.body)[-1], ir.ReturnStmt)


NESTED = '''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.GLOBAL, role=pl.Role.Orchestrator):
            a = pl.add(x, x)
            with pl.at(pl.Level.POD):
                b = pl.mul(a, a)
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(b, [0], [64])
                    o = pl.store(t, [0], o)
        for i in pl.range(2):
            o = pl.add(o, 1.0)
        return o
'''


def test_nested_scopes_are_named_after_their_parent_and_a_stored_result_used_later_stays_bound():
    after = hoist(NESTED)
    assert names(after) == {"main", "main_global_orch_0", "main_global_orch_0_cluster0_0"}
    pod = function(after, "main_global_orch_0_cluster0_0")
    assert pod.level == ir.Level.CLUSTER_0
    assert isinstance(ir.flatten_to_stmts(pod.body)[1], ir.InCoreScopeStmt)  # CORE_GROUP is the next pass's job
    # seed rule: a captured tile.store target of a Hierarchy scope stays In
    assert directions(after, "main_global_orch_0")["o"] is ir.ParamDirection.In
    assert directions(after, "main_global_orch_0_cluster0_0")["o"] is ir.ParamDirection.In
    # PyPTO leaves the store's result undefined in main (the loop reads a free variable); here main binds it
    main = ir.flatten_to_stmts(function(after, "main").body)
    assert isinstance(main[0], ir.AssignStmt) and main[0].var.name_hint == "o__ssa_v1"
    assert passes.PropertyVerifierRegistry.verify(["SSAForm", "UseAfterDef"], after) == []
    # OutlineIncoreScopes lifts the CORE_GROUP scope out of the new function afterwards
    incore = passes.outline_incore_scopes()(after)
    assert "main_global_orch_0_cluster0_0_incore_0" in names(incore)
    same_results(passes.convert_to_ssa()(pl.parse(HEADER + NESTED)), incore)


def test_name_collisions_with_variables_functions_and_earlier_outlines():
    after = hoist('''
@pl.program
class P:
    @pl.function
    def main_host_0(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b = pl.exp(a)
        return b

    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.HOST):
            b = pl.add(a, 1.0)
        with pl.at(level=pl.Level.HOST, name_hint="b__ssa_v0"):
            c = pl.add(b, 1.0)
        with pl.at(level=pl.Level.HOST, name_hint="main"):
            d = pl.add(c, 1.0)
        return d
''')
    # main_host_0 is a function: prefixed; b__ssa_v0 a variable of main: suffixed; "main" a function: prefixed
    assert names(after) == {"main_host_0", "main", "main_main_host_0", "b__ssa_v0_0", "main_main"}


def test_dumps_and_no_dep_args_become_call_attrs():
    after = hoist('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.HOST, no_dep_args=[b, a], dumps=[b]):
            c = pl.add(a, b)
        return c
''')
    call = ir.flatten_to_stmts(function(after, "main").body)[0].value
    assert call.attrs["arg_direction_overrides"] == [0, 1]
    assert [v.name_hint for v in call.attrs["dump_vars"]] == ["b__ssa_v0"]


def test_no_dep_args_naming_a_tensor_the_scope_does_not_capture_is_a_located_error():
    with pytest.raises(ValueError, match=r"no_dep_args .* references tensor 'b__ssa_v0', which is not captured.*"
                                         r"\n  --> <string>:\d+"):
        hoist('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.HOST, no_dep_args=[b]):
            c = pl.add(a, 1.0)
        return c
''')


CACHE = '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.HOST):
            pl.set_cache_policy(POLICY, pl.CachePolicy.BYPASS)
            t = pl.add(a, b)
            o = pl.assemble(o, t, [0])
        return o
'''


def test_cache_policy_becomes_a_function_attr_by_parameter_index():
    after = hoist(CACHE.replace("POLICY", "b"))
    assert function(after, "main_host_0").attrs["cache_policy"] == [(1, int(pl.CachePolicy.BYPASS))]


def test_bypass_on_a_written_parameter_is_a_user_error():
    with pytest.raises(ValueError, match="OutlineHierarchyScopes: .*BYPASS.* 'o__ssa_v0', which the kernel writes"):
        hoist(CACHE.replace("POLICY", "o"))


def test_a_captured_variable_rebound_without_ssa_is_an_internal_error():
    program = pl.parse(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b = pl.add(a, 1.0)
        with pl.at(level=pl.Level.HOST):
            c = pl.add(b, 1.0)
            b = pl.add(c, 1.0)
        return b
''')
    with pytest.raises(pypto.InternalError, match="captures 'b' and rebinds it .* run ConvertToSSA"):
        passes.outline_hierarchy_scopes().run(program, passes.PassContext())


def test_pass_api_and_verifiers():
    p = passes.outline_hierarchy_scopes()
    assert p.get_name() == "OutlineHierarchyScopes"
    assert str(p.get_required_properties()) == "{SSAForm}"
    produced = p.get_produced_properties()
    assert all(produced.contains(x) for x in ("SSAForm", "HierarchyOutlined", "OrchestrationReferencesResolved"))
    ps = passes.IRPropertySet()
    ps.insert(passes.IRProperty.HierarchyOutlined)
    before = passes.convert_to_ssa()(pl.parse(HEADER + TWO_SCOPES))
    with pytest.raises(pypto.Error, match="Hierarchy ScopeStmt found in function 'main'"):
        passes.verify_properties(ps, before, "test")
    passes.verify_properties(ps, passes.outline_hierarchy_scopes()(before), "test")


def test_orchestration_references_resolved_reports_a_missing_callee():
    program = pl.parse(HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return a

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b = self.k(a)
        return b
''')
    assert passes.PropertyVerifierRegistry.verify(["OrchestrationReferencesResolved"], program) == []
    broken = ir.Program([function(program, "main")], "P", ir.Span.unknown())
    found = passes.PropertyVerifierRegistry.verify(["OrchestrationReferencesResolved"], broken)
    assert "Orchestration function 'main' references undefined function 'k'" in found[0].message


def test_a_program_without_hierarchy_scopes_is_returned_unchanged():
    program = passes.convert_to_ssa()(pl.parse(HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        b = pl.add(a, 1.0)
        return b
'''))
    assert passes.outline_hierarchy_scopes()(program) is program


@pytest.mark.parametrize("backend", ["ascend910b", "ascend950"])
def test_the_default_pipeline_compiles_hierarchy_scopes_with_kernels_inside(backend):
    program = pl.parse(HEADER + NESTED)
    after = checked_pipeline(backend).run(program)
    assert not any(passes.PropertyVerifierRegistry.verify(["HierarchyOutlined"], after))


def test_two_multi_output_scopes_bind_distinct_tuple_temporaries():
    after = hoist('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.HOST):
            a = pl.exp(x)
            b = pl.neg(x)
        with pl.at(level=pl.Level.CHIP):
            c = pl.add(a, b)
            d = pl.sub(a, b)
        e = pl.mul(c, d)
        return e
''')
    main = ir.flatten_to_stmts(function(after, "main").body)
    tuples = [s.var.name_hint for s in main if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)
              and isinstance(s.value.type, ir.TupleType)]
    assert tuples == ["ret__tmp_v0", "ret__tmp_v0_1"]
    assert passes.PropertyVerifierRegistry.verify(["SSAForm"], after) == []
