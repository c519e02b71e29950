"""PassPipeline.run (docs/architecture.md, the pass manager): verification levels, the verified set, messages."""

from __future__ import annotations

import pytest

import pypto
import pypto.language as pl
from pypto import passes
from pypto_core.passes.registry import PASSES

from .test_pipeline_toys import support
from .test_pipeline_toys.support import toy_program

toy_plugin = support.toy_plugin  # shared fixture

NON_SSA = '''
@pl.program
class NonSSA:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        y = pl.add(y, 2.0)
        return y
'''


def pipeline(*names: str) -> passes.PassPipeline:
    pipe = passes.PassPipeline()
    for name in names:
        pipe.add_pass(PASSES.require(name)())
    return pipe


def test_names_and_passes(toy_plugin):
    pipe = pipeline("toy_mark", "toy_needs_mark")
    assert pipe.get_pass_names() == ["ToyMark", "ToyNeedsMark"]
    assert [p.factory_name for p in pipe.get_passes()] == ["toy_mark", "toy_needs_mark"]
    assert pipe.run(toy_program()).get_function("main").attrs["toy_mark"] == "on"


def test_basic_verifies_produced_properties_of_the_verified_set(toy_plugin):
    with passes.PassContext([], passes.VerificationLevel.BASIC):
        with pytest.raises(pypto.Error) as info:
            pipeline("toy_ssa_liar").run(pl.parse(NON_SSA))
    text = str(info.value)
    assert text.startswith("Verification failed after 'ToySSALiar' for properties {SSAForm}:\nIR Verification Report")
    assert "Variable 'y' is assigned more than once (2 times), violating SSA form" in text


def test_properties_outside_the_verified_set_are_not_checked(toy_plugin):
    # ToyMarked has a verifier but is not in get_verified_properties(): PassPipeline trusts the pass.
    with passes.PassContext([], passes.VerificationLevel.BASIC):
        pipeline("toy_liar").run(toy_program())


def test_the_input_is_checked_for_structural_verified_properties(toy_plugin):
    broken = PASSES.require("toy_break_types")().run(toy_program(), passes.PassContext())
    with passes.PassContext([], passes.VerificationLevel.BASIC):
        with pytest.raises(pypto.Error, match=r"^Verification failed on the pipeline input for properties \{TypeChecked"):
            pipeline("toy_mark").run(broken)


def test_none_level_verifies_nothing(toy_plugin):
    with passes.PassContext([], passes.VerificationLevel.NONE):
        pipeline("toy_ssa_liar").run(pl.parse(NON_SSA))


def test_env_level_applies_without_a_context(toy_plugin, monkeypatch):
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "none")
    pipeline("toy_ssa_liar").run(pl.parse(NON_SSA))
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "basic")
    with pytest.raises(pypto.Error, match="Verification failed after 'ToySSALiar'"):
        pipeline("toy_ssa_liar").run(pl.parse(NON_SSA))


def test_a_property_already_verified_is_not_verified_again(toy_plugin, monkeypatch):
    checked = []
    real = passes.PropertyVerifierRegistry.verify

    def spy(props, program):
        checked.append(str(passes.IRPropertySet(props) if not isinstance(props, passes.IRPropertySet) else props))
        return real(props, program)

    monkeypatch.setattr(passes.PropertyVerifierRegistry, "verify", staticmethod(spy))
    with passes.PassContext([], passes.VerificationLevel.BASIC):
        pipeline("toy_ssa_liar", "toy_ssa_liar").run(toy_program())
    assert checked.count("{SSAForm}") == 1


def test_roundtrip_level_round_trips_after_each_pass(toy_plugin, monkeypatch):
    seen = []
    monkeypatch.setattr("pypto_core.passes.instruments.roundtrip.check_roundtrip", lambda name, prog: seen.append(name))
    with passes.PassContext([], passes.VerificationLevel.ROUNDTRIP):
        pipeline("toy_mark", "toy_unmark").run(toy_program())
    assert seen == ["ToyMark", "ToyUnmark"]


def test_context_instruments_fire_inside_the_pipeline(toy_plugin):
    names = []
    with passes.PassContext([passes.CallbackInstrument(after_pass=lambda p, _: names.append(p.get_name()))]):
        pipeline("toy_mark", "toy_unmark").run(toy_program())
    assert names == ["ToyMark", "ToyUnmark"]


# -- pypto.ir.pass_manager (PyPTO's strategy PassManager) -------------------------------------------
# PyPTO's Default strategy: the `full` preset, PyPTO's order with the passes pypto has.
DEFAULT_PASSES = ["InlineFunctions", "UnrollLoops", "CtrlFlowTransform", "ConvertToSSA", "Simplify",
                  "NormalizeStmtStructure", "FlattenCallExpr", "OutlineHierarchyScopes", "OutlineIncoreScopes", "OutlineClusterScopes",
                  "ConvertTensorToTileOps", "OptimizeOrchTensors", "LowerCompositeOps", "FlattenTileNdTo2D", "LegalizeTileCast",
                  "AutoTileMatmulL0", "CanonicalizeTileSlice", "InferTileMemorySpace", "InsertMxScaleAddr",
                  "ResolveBackendOpLayouts", "LowerAutoVectorSplit", "ExpandMixedKernel", "InjectGMPipeBuffer", "SplitVectorKernel", "StampTfreeSplit",
                  "NormalizeReturnOrder", "CanonicalizeIOOrder", "MaterializeTensorStrides", "InitMemRef",
                  "MaterializeSemanticAliases", "MemoryReuse", "AllocateMemoryAddr"]


def test_strategy_pass_manager_runs_the_preset_in_the_current_context(toy_plugin):
    from pypto.ir.pass_manager import OptimizationStrategy, PassManager

    manager = PassManager.get_strategy(OptimizationStrategy.Default)
    assert manager.get_pass_names() == DEFAULT_PASSES
    names = []
    with passes.PassContext([passes.CallbackInstrument(after_pass=lambda p, _: names.append(p.get_name()))]):
        result = PassManager(OptimizationStrategy.Default).run_passes(pl.parse(NON_SSA))
    assert names == DEFAULT_PASSES
    assert passes.PropertyVerifierRegistry.verify(["SSAForm"], result) == []


def test_strategy_pass_manager_names_a_missing_pass(toy_plugin):
    from pypto.ir.pass_manager import OptimizationStrategy, PassManager
    from pypto_core.plugins.host import reload_plugins

    reload_plugins(disabled=["pass_outline"], extra=[])
    with pytest.raises(ValueError, match="preset 'full' .* names pass 'outline_hierarchy_scopes', which no plugin"):
        PassManager(OptimizationStrategy.Default)


def test_ir_namespace_reexports_the_pass_context_names():
    from pypto import ir

    assert ir.PassContext is passes.PassContext
    assert ir.VerificationMode is passes.VerificationMode
    assert ir.make_roundtrip_instrument().get_name() == "RoundtripInstrument"
