"""The PassManager: static property check, run-time verification naming the pass, instruments."""

from __future__ import annotations

import io

import pytest

import pypto
from pypto import ir
from pypto_core.errors import InternalError
from pypto_core.passes.manager import InputVerificationError, PassManager, PassVerificationError
from pypto_core.passes.registry import PASSES
from pypto_core.passes.static_check import PipelineCheckError, analyse_pipeline

from .test_pipeline_toys import support
from .test_pipeline_toys.support import toy_program

toy_plugin = support.toy_plugin  # shared fixture


def make(*names: str, **kwargs):
    return PassManager([PASSES.require(n)() for n in names], **kwargs)


# -- the static check ---------------------------------------------------------------------------------
def test_required_property_produced_earlier_passes_the_check(toy_plugin):
    analysis = make("toy_mark", "toy_needs_mark").check()
    assert "ToyMarked" in analysis.held_after[0]
    assert analysis.problems == []


def test_missing_property_names_pass_property_and_producers(toy_plugin):
    with pytest.raises(PipelineCheckError) as info:
        make("toy_needs_mark").check()
    text = str(info.value)
    assert "pass 'toy_needs_mark' (ToyNeedsMark, step 1) requires property ToyMarked" in text
    assert "Registered passes that produce ToyMarked: toy_liar, toy_mark" in text
    assert info.value.problems[0].prop == "ToyMarked"


def test_invalidated_property_names_the_invalidating_pass(toy_plugin):
    with pytest.raises(PipelineCheckError, match=r"pass 'toy_unmark' \(step 2\) invalidated it"):
        make("toy_mark", "toy_unmark", "toy_needs_mark").check()


def test_producing_again_after_invalidation_is_fine(toy_plugin):
    make("toy_mark", "toy_unmark", "toy_mark", "toy_needs_mark").check()


def test_property_nobody_produces_says_so(toy_plugin):
    with pytest.raises(PipelineCheckError, match="Registered passes that produce ToyOrphan: none is registered"):
        make("toy_needs_orphan").check()


def test_every_problem_is_reported_once(toy_plugin):
    analysis = analyse_pipeline([PASSES.require(n)() for n in ("toy_needs_mark", "toy_needs_mark",
                                                                "toy_needs_orphan")])
    assert [(p.step, p.prop) for p in analysis.problems] == [(1, "ToyMarked"), (3, "ToyOrphan")]


def test_input_program_may_establish_a_required_property(toy_plugin):
    marked = make("toy_mark").run(toy_program())
    # Without a program the input is not known to be marked; with a marked program it is.
    with pytest.raises(PipelineCheckError, match="the input is not known to have it"):
        make("toy_needs_mark").check()
    make("toy_needs_mark").check(marked)
    with pytest.raises(PipelineCheckError, match=r"the input program does not have it \(function 'main' is not marked\)"):
        make("toy_needs_mark").check(toy_program())


def test_run_refuses_a_pipeline_that_fails_the_static_check(toy_plugin):
    calls = []
    manager = make("toy_needs_mark", instruments=[pypto.passes.CallbackInstrument(before_pass=lambda p, _: calls.append(p))])
    with pytest.raises(PipelineCheckError):
        manager.run(toy_program())
    assert calls == []  # nothing ran


# -- run-time verification ------------------------------------------------------------------------------
def test_a_pass_that_does_not_produce_what_it_claims_is_named(toy_plugin):
    with pytest.raises(PassVerificationError) as info:
        make("toy_liar", "toy_needs_mark").run(toy_program())
    text = str(info.value)
    assert "IR verification failed after pass 'toy_liar' (ToyLiar, step 1, from plugin 'toy_passes'" in text
    assert "ToyMarked should hold but does not" in text
    assert "function 'main' is not marked" in text
    assert info.value.pass_label == "toy_liar"


def test_a_pass_that_breaks_a_structural_property_is_named(toy_plugin):
    with pytest.raises(PassVerificationError, match=r"after pass 'toy_break_types'.*TypeChecked"):
        make("toy_mark", "toy_break_types").run(toy_program())


def test_verify_none_skips_runtime_verification(toy_plugin):
    result = make("toy_liar", "toy_break_types", verify="none").run(toy_program())
    assert isinstance(result, ir.Program)


def test_a_broken_input_program_is_reported_as_input(toy_plugin):
    broken = PASSES.require("toy_break_types")().run(toy_program(), pypto.passes.PassContext())
    with pytest.raises(InputVerificationError, match="the input program is not well formed"):
        make("toy_mark").run(broken)


def test_an_exception_inside_a_pass_becomes_an_internal_error_naming_it(toy_plugin):
    with pytest.raises(InternalError, match=r"pass 'toy_crash' \(ToyCrash, from plugin 'toy_passes'.*KeyError"):
        make("toy_crash").run(toy_program())


def test_a_pass_rejecting_the_program_keeps_its_value_error(toy_plugin):
    with pytest.raises(ValueError, match="toy_reject: this program uses a feature"):
        make("toy_reject").run(toy_program())


def test_roundtrip_level_checks_print_parse_after_each_pass(toy_plugin, monkeypatch):
    seen = []
    import pypto_core.passes.instruments.roundtrip as roundtrip

    real = roundtrip.check_roundtrip
    monkeypatch.setattr(roundtrip, "check_roundtrip", lambda name, prog: (seen.append(name), real(name, prog)))
    make("toy_mark", "toy_needs_mark", verify="roundtrip").run(toy_program())
    assert seen == ["ToyMark", "ToyNeedsMark"]


def test_check_run_without_the_reference_machine_is_a_clear_error(toy_plugin, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "pypto_core.interp.check_run", None)  # import fails
    with pytest.raises(ValueError, match="needs the reference machine .* not available"):
        make("toy_mark", verify="check-run").run(toy_program())


def test_check_run_uses_the_reference_machine_instrument(toy_plugin, monkeypatch):
    import sys
    import types

    calls = []
    fake = types.ModuleType("pypto_core.interp.check_run")
    fake.make_check_run_instrument = lambda: pypto.passes.CallbackInstrument(  # type: ignore[attr-defined]
        after_pass=lambda p, _: calls.append(p.get_name()), name="CheckRun")
    monkeypatch.setitem(sys.modules, "pypto_core.interp.check_run", fake)
    make("toy_mark", "toy_needs_mark", verify="check-run").run(toy_program())
    assert calls == ["ToyMark", "ToyNeedsMark"]


def test_unknown_verify_mode_is_rejected(toy_plugin):
    with pytest.raises(ValueError, match="unknown verification level 'sometimes'"):
        make("toy_mark", verify="sometimes")  # type: ignore[arg-type]


# -- backend and outer context ------------------------------------------------------------------------
def test_passes_read_the_managers_backend_from_the_context(toy_plugin):
    from .test_pipeline_toys.toy_passes import ToyBackendProbe

    ToyBackendProbe.seen.clear()
    make("toy_backend_probe", backend="Ascend950").run(toy_program())
    make("toy_backend_probe").run(toy_program())
    assert ToyBackendProbe.seen == ["Ascend950", "Ascend910B"]


def test_outer_context_instruments_still_run(toy_plugin):
    names = []
    with pypto.passes.PassContext([pypto.passes.CallbackInstrument(after_pass=lambda p, _: names.append(p.get_name()))]):
        make("toy_mark", "toy_unmark").run(toy_program())
    assert names == ["ToyMark", "ToyUnmark"]


# -- timing -------------------------------------------------------------------------------------------
def test_timing_table_lists_every_pass(toy_plugin):
    stream = io.StringIO()
    make("toy_mark", "toy_needs_mark", timing=True, timing_stream=stream).run(toy_program())
    table = stream.getvalue()
    assert "Pass timing" in table
    assert table.index("toy_mark") < table.index("toy_needs_mark") < table.index("total")


def test_a_program_a_pass_returns_unchanged_is_verified_only_for_what_was_not_verified_on_it(toy_plugin, monkeypatch):
    """IR is immutable: after a pass that returns its input as it is, the properties already found to hold on
    that program are not verified again (docs/architecture.md, performance); a new program is verified whole."""
    from pypto_core.passes.instruments import pipeline_checks

    asked: list[tuple[list[str], object]] = []
    real = pipeline_checks.error_findings

    def spy(props, program):
        asked.append((sorted(props), program))
        return real(props, program)

    monkeypatch.setattr(pipeline_checks, "error_findings", spy)
    make("toy_mark", "toy_needs_mark", "toy_needs_mark", "toy_unmark", "toy_mark").run(toy_program())
    after_first_mark = asked[1]
    assert "ToyMarked" in after_first_mark[0]
    # the two toy_needs_mark steps return the marked program itself: nothing left to verify on it
    assert asked[2] == ([], after_first_mark[1]) and asked[3] == ([], after_first_mark[1])
    # toy_unmark and the second toy_mark make new programs: verified again
    assert asked[4][1] is not after_first_mark[1] and asked[4][0]
    assert "ToyMarked" in asked[5][0] and asked[5][1] is not asked[4][1]
