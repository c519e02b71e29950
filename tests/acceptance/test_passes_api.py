"""pypto.passes surface PyPTO's tests use: properties, verifiers, contexts, instruments, pipelines; and
pypto.backend."""

from __future__ import annotations

import re

import pytest

import pypto
import pypto.language as pl
from pypto import backend, ir, passes
from pypto.backend import BackendType
from pypto.ir.instruments import make_roundtrip_instrument

P = passes.IRProperty


def _props(*members):
    s = passes.IRPropertySet()
    for m in members:
        s.insert(m)
    return s


def _opaque_with_scope():
    @pl.program
    class Prog:
        @pl.function
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0], [64])
                out = pl.store(t, [0], out)
            return out

    return Prog


def _nested_scopes():
    @pl.program
    class Prog:
        @pl.function
        def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0], [64])
                    out = pl.store(t, [0], out)
            return out

    return Prog


class TestIRPropertySet:
    def test_str_canonical_order(self):
        s = _props(P.VectorKernelSplit, P.NormalizedStmtStructure, P.SSAForm)
        assert str(s) == "{SSAForm, NormalizedStmtStructure, VectorKernelSplit}"
        assert repr(s) == "{SSAForm, NormalizedStmtStructure, VectorKernelSplit}"
        assert str(passes.IRPropertySet()) == "{}"

    def test_set_operations(self):
        a = _props(P.SSAForm, P.TypeChecked)
        b = _props(P.TypeChecked, P.UseAfterDef)
        assert a.contains(P.SSAForm) and not a.contains(P.UseAfterDef)
        assert a.union_with(b) == _props(P.SSAForm, P.TypeChecked, P.UseAfterDef)
        assert a.intersection(b) == _props(P.TypeChecked)
        assert a.difference(b) == _props(P.SSAForm)
        assert a.union_with(b).contains_all(a)
        assert not a.contains_all(b)
        assert passes.IRPropertySet().empty()
        a.remove(P.SSAForm)
        assert a.to_list() == [P.TypeChecked]

    def test_unhashable(self):
        with pytest.raises(TypeError):
            hash(passes.IRPropertySet())

    def test_members_exist(self):
        for name in ["SSAForm", "TypeChecked", "NoNestedCalls", "NormalizedStmtStructure", "NoRedundantBlocks",
                     "SplitIncoreOrch", "HasMemRefs", "IncoreTileOps", "AllocatedMemoryAddr", "MixedKernelExpanded",
                     "ClusterOutlined", "HierarchyOutlined", "TileOps2D", "TileMemoryInferred", "BreakContinueValid",
                     "UseAfterDef", "StructuredCtrlFlow", "VectorKernelSplit", "OutParamNotShadowed", "NoNestedInCore",
                     "InOutUseValid", "PipelineLoopValid", "PipelineResolved", "UnrollResolved",
                     "CallDirectionsResolved", "TileTypeCoherence", "InlineFunctionsEliminated",
                     "OrchestrationReferencesResolved", "TensorViewCanonical", "ArrayNotEscaped",
                     "CommDomainScopesMaterialized", "DistTensorCtxMaterialized", "RuntimeScopesMaterialized",
                     "AssignTypeSymmetry", "ManualDepsOnSubmitOnly", "ReturnParamsExplicit", "AivSplitValid",
                     "IterArgCarryClassified", "AccToGmStoreValid", "AtomicAddDtypeValid"]:
            assert hasattr(P, name), name

    def test_default_structural_and_verified_sets(self):
        assert passes.get_default_verify_properties() == _props(
            P.SSAForm, P.TypeChecked, P.NoNestedCalls, P.BreakContinueValid, P.NoRedundantBlocks, P.UseAfterDef,
            P.OutParamNotShadowed, P.NoNestedInCore, P.TileTypeCoherence, P.ArrayNotEscaped)
        assert passes.get_structural_properties() == _props(
            P.TypeChecked, P.BreakContinueValid, P.NoRedundantBlocks, P.UseAfterDef, P.OutParamNotShadowed,
            P.NoNestedInCore, P.InOutUseValid, P.PipelineLoopValid, P.ArrayNotEscaped, P.ManualDepsOnSubmitOnly,
            P.AtomicAddDtypeValid)
        verified = passes.get_verified_properties()
        for m in (P.SSAForm, P.TypeChecked, P.BreakContinueValid, P.NoRedundantBlocks, P.ReturnParamsExplicit,
                  P.AivSplitValid):
            assert verified.contains(m)


class TestVerifiers:
    def test_no_nested_incore(self):
        diags = passes.PropertyVerifierRegistry.verify(_props(P.NoNestedInCore), _nested_scopes())
        errors = [d for d in diags if d.severity == passes.DiagnosticSeverity.Error]
        assert len(errors) == 1
        assert errors[0].rule_name == "NoNestedInCore"
        assert "Nested InCore scope" in errors[0].message
        assert isinstance(errors[0].span, ir.Span)
        assert isinstance(errors[0].error_code, int)

    def test_split_incore_orch(self):
        prog = passes.convert_to_ssa()(_opaque_with_scope())
        diags = passes.PropertyVerifierRegistry.verify(_props(P.SplitIncoreOrch), prog)
        errors = [d for d in diags if d.severity == passes.DiagnosticSeverity.Error]
        assert [d.rule_name for d in errors] == ["SplitIncoreOrch"]
        after = passes.outline_incore_scopes()(prog)
        assert passes.PropertyVerifierRegistry.verify(_props(P.SplitIncoreOrch), after) == []

    def test_verify_properties_raises(self):
        prog = passes.convert_to_ssa()(_opaque_with_scope())
        with pytest.raises(pypto.Error, match="InCore ScopeStmt"):
            passes.verify_properties(_props(P.SplitIncoreOrch), prog, "TestPass")

    def test_verify_or_throw_and_report(self):
        prog = _nested_scopes()
        with pytest.raises(pypto.Error) as info:
            passes.PropertyVerifierRegistry.verify_or_throw(_props(P.NoNestedInCore), prog)
        text = str(info.value)
        assert re.search(r"IR Verification Report\n======================\nTotal diagnostics: 1 \(1 errors, 0 warnings\)\n\n"
                         r"\[1\] ERROR - NoNestedInCore\n  Message: .*Nested InCore scope.*\n  Location: .*\n  Error Code: 0\n\n"
                         r"Status: FAILED \(1 error\(s\) found\)", text), text
        report = passes.PropertyVerifierRegistry.generate_report(
            passes.PropertyVerifierRegistry.verify(_props(P.NoNestedInCore), prog))
        assert report.startswith("IR Verification Report\n")

    def test_run_verifier(self):
        v = passes.run_verifier(_props(P.NoNestedInCore))
        assert v.get_name() == "IRVerifier"
        with pytest.raises(pypto.Error, match="NoNestedInCore"):
            v(_nested_scopes())
        good = _opaque_with_scope()
        assert v(good) is good or ir.structural_equal(v(good), good)

    def test_run_verifier_default_properties(self):
        prog = passes.convert_to_ssa()(_opaque_with_scope())
        assert ir.structural_equal(passes.run_verifier()(prog), prog)

    def test_ssa_verifier_on_parser_output(self):
        @pl.program
        class Prog:
            @pl.function
            def main(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
                x = x + 1
                x = x + 1
                return x

        # One assignment may rebind a parameter (PyPTO's SSA rule); the second one is the error.
        diags = passes.PropertyVerifierRegistry.verify(_props(P.SSAForm), Prog)
        assert any(d.rule_name == "SSAForm" and d.severity == passes.DiagnosticSeverity.Error for d in diags)


class TestContextsAndInstruments:
    def test_context_current_and_nesting(self):
        outer = passes.PassContext.current()
        assert outer is not None  # the conftest context
        assert len(outer.get_instruments()) == 2
        assert outer.get_verification_level() == passes.VerificationLevel.BASIC
        inner = passes.PassContext([], passes.VerificationLevel.NONE)
        with inner:
            assert passes.PassContext.current() is inner
            assert inner.get_verification_level() == passes.VerificationLevel.NONE
        assert passes.PassContext.current() is outer

    def test_callback_instrument(self):
        seen = []
        inst = passes.CallbackInstrument(before_pass=lambda p, prog: seen.append(("before", p.get_name())),
                                         after_pass=lambda p, prog: seen.append(("after", p.get_name())))
        with passes.PassContext([inst]):
            passes.convert_to_ssa()(_opaque_with_scope())
        assert seen == [("before", "ConvertToSSA"), ("after", "ConvertToSSA")]

    def test_callback_instrument_receives_programs(self):
        got = {}
        inst = passes.CallbackInstrument(after_pass=lambda p, prog: got.setdefault("after", prog), name="Mine")
        prog = _opaque_with_scope()
        with passes.PassContext([inst]):
            result = passes.convert_to_ssa()(prog)
        assert got["after"] is result

    def test_inner_context_hides_outer(self):
        calls = []
        outer = passes.CallbackInstrument(before_pass=lambda p, prog: calls.append("outer"))
        with passes.PassContext([outer]):
            with passes.PassContext([]):
                passes.convert_to_ssa()(_opaque_with_scope())
            passes.convert_to_ssa()(_opaque_with_scope())
        assert calls == ["outer"]

    def test_roundtrip_instrument(self):
        r = make_roundtrip_instrument()
        assert isinstance(r, passes.CallbackInstrument)
        assert r.get_name() == "RoundtripInstrument"
        assert ir.make_roundtrip_instrument is not None

    def test_verification_instrument_pre_message(self):
        with pytest.raises(pypto.Error, match="Pre-verification failed before pass 'ConvertToSSA'"):
            passes.convert_to_ssa()(_nested_scopes())

    def test_plain_call_without_context_does_not_verify(self):
        with passes.PassContext([]):
            after = passes.convert_to_ssa()(_nested_scopes())
        assert isinstance(after, ir.Program)

    def test_pass_run_method(self):
        prog = _opaque_with_scope()
        ir.assert_structural_equal(passes.convert_to_ssa().run(prog), passes.convert_to_ssa()(prog))


class TestPassPipeline:
    def test_pipeline(self):
        pipe = passes.PassPipeline()
        pipe.add_pass(passes.convert_to_ssa())
        pipe.add_pass(passes.outline_incore_scopes())
        assert pipe.get_pass_names() == ["ConvertToSSA", "OutlineIncoreScopes"]
        assert len(pipe.get_passes()) == 2
        prog = _opaque_with_scope()
        out = pipe.run(prog)
        ir.assert_structural_equal(out, passes.outline_incore_scopes()(passes.convert_to_ssa()(prog)))

    def test_pipeline_fires_context_instruments(self):
        names = []
        inst = passes.CallbackInstrument(after_pass=lambda p, prog: names.append(p.get_name()))
        pipe = passes.PassPipeline()
        pipe.add_pass(passes.convert_to_ssa())
        pipe.add_pass(passes.outline_incore_scopes())
        with passes.PassContext([inst]):
            pipe.run(_opaque_with_scope())
        assert names == ["ConvertToSSA", "OutlineIncoreScopes"]

    def test_pipeline_verifies_input_structural_properties(self):
        # input check = structural ∩ verified-set, as in PyPTO's PassPipeline; NoRedundantBlocks is in both, so a
        # hand-built function with a nested SeqStmts is rejected before the first pass.
        sp = ir.Span.unknown()
        x = ir.Var("x", ir.ScalarType(pypto.DataType.INDEX), sp)
        y = ir.Var("y", ir.ScalarType(pypto.DataType.INDEX), sp)
        inner = ir.SeqStmts([ir.AssignStmt(y, ir.Add(x, ir.ConstInt(1, pypto.DataType.INDEX, sp), pypto.DataType.INDEX, sp), sp)], sp)
        body = ir.SeqStmts([inner, ir.ReturnStmt([y], sp)], sp)
        prog = ir.Program([ir.Function("f", [x], [ir.ScalarType(pypto.DataType.INDEX)], body, sp)], "P", sp)
        diags = passes.PropertyVerifierRegistry.verify(_props(P.NoRedundantBlocks), prog)
        assert [d.rule_name for d in diags if d.severity == passes.DiagnosticSeverity.Error] == ["NoRedundantBlocks"]
        pipe = passes.PassPipeline()
        pipe.add_pass(passes.convert_to_ssa())
        with passes.PassContext([]):
            with pytest.raises(pypto.Error):
                pipe.run(prog)
        with passes.PassContext([], passes.VerificationLevel.NONE):
            pipe.run(prog)

    def test_pipeline_does_not_check_unverified_structural_properties(self):
        # NoNestedInCore is structural but not in the verified set: PassPipeline.run does not check it
        pipe = passes.PassPipeline()
        pipe.add_pass(passes.convert_to_ssa())
        with passes.PassContext([]):
            pipe.run(_nested_scopes())


class TestBackend:
    def test_members(self):
        assert set(BackendType.__members__) == {"Ascend910B", "Ascend950"}
        assert BackendType.Ascend950.name == "Ascend950"

    def test_unset_by_default(self):
        assert not backend.is_backend_configured()
        with pytest.raises(ValueError):
            backend.get_backend_type()

    def test_set_get_idempotent_conflict_reset(self):
        backend.set_backend_type(BackendType.Ascend910B)
        assert backend.is_backend_configured()
        assert backend.get_backend_type() == BackendType.Ascend910B
        backend.set_backend_type(BackendType.Ascend910B)
        with pytest.raises(ValueError):
            backend.set_backend_type(BackendType.Ascend950)
        backend.reset_for_testing()
        assert not backend.is_backend_configured()
        backend.set_backend_type(BackendType.Ascend950)
        assert backend.get_backend_type() == BackendType.Ascend950

    def test_reset_between_tests(self):
        # the previous test left Ascend950 set; conftest's reset_for_testing cleared it
        assert not backend.is_backend_configured()


class TestPypto:
    def test_top_level_names(self):
        assert pypto.DataType is not None
        assert pypto.get_log_level() is not None
        pypto.set_log_level(pypto.LogLevel.ERROR)
        from pypto.pypto_core import passes as core_passes

        assert core_passes is passes
        from pypto.pypto_core import _clear_thread_log_level

        _clear_thread_log_level()
        import importlib

        # pypto.pypto_core's submodules import by their dotted names too, as in PyPTO.
        assert importlib.import_module("pypto.pypto_core.passes") is passes
        assert importlib.import_module("pypto.pypto_core.ir").Var is ir.Var
        assert pypto.pypto_core.passes is passes
        assert pypto.DataType.DEFAULT_CONST_INT is pypto.DataType.INT64  # as in PyPTO
        assert pypto.DataType.DEFAULT_CONST_FLOAT is pypto.DataType.FP32
        assert "DEFAULT_CONST_INT" not in pypto.DataType.__members__

        importlib.import_module("pypto.language.distributed")
        from pypto.ir.op import tile_ops as T  # noqa: F401
        from pypto.ir.pass_manager import OptimizationStrategy, PassManager  # noqa: F401
        from pypto.ir.printer import python_print  # noqa: F401
        from pypto.language.parser.diagnostics.exceptions import InvalidOperationError, ParserSyntaxError  # noqa: F401
        from pypto.runtime import RunConfig  # noqa: F401
