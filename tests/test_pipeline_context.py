"""PassContext, plain pass calls with instruments, VerificationInstrument and the round-trip instrument."""

from __future__ import annotations

import threading

import pytest

import pypto
from pypto import ir, passes
from pypto.ir.instruments import make_roundtrip_instrument
from pypto_core.passes.registry import PASSES

from .test_pipeline_toys import support
from .test_pipeline_toys.support import toy_program

toy_plugin = support.toy_plugin  # shared fixture


def toy(name: str):
    return PASSES.require(name)()


def recorder(log: list[str], tag: str) -> passes.CallbackInstrument:
    return passes.CallbackInstrument(before_pass=lambda p, _: log.append(f"{tag}:before:{p.get_name()}"),
                                     after_pass=lambda p, _: log.append(f"{tag}:after:{p.get_name()}"),
                                     name=tag)


# -- contexts -------------------------------------------------------------------------------------------
def test_contexts_nest_and_the_innermost_hides_the_outer(toy_plugin):
    log: list[str] = []
    assert passes.PassContext.current() is None
    with passes.PassContext([recorder(log, "outer")]) as outer:
        assert passes.PassContext.current() is outer
        with passes.PassContext([recorder(log, "inner")]):
            toy("toy_mark")(toy_program())
        toy("toy_unmark")(toy_program())
    assert passes.PassContext.current() is None
    assert log == ["inner:before:ToyMark", "inner:after:ToyMark", "outer:before:ToyUnmark", "outer:after:ToyUnmark"]


def test_the_stack_is_per_thread(toy_plugin):
    seen = []
    with passes.PassContext([]):
        thread = threading.Thread(target=lambda: seen.append(passes.PassContext.current()))
        thread.start()
        thread.join()
    assert seen == [None]


def test_verification_level_defaults_to_env_then_basic(monkeypatch):
    monkeypatch.delenv("PYPTO_VERIFY_LEVEL", raising=False)
    assert passes.PassContext([]).get_verification_level() is passes.VerificationLevel.BASIC
    monkeypatch.setenv("PYPTO_VERIFY_LEVEL", "roundtrip")
    assert passes.PassContext([]).get_verification_level() is passes.VerificationLevel.ROUNDTRIP
    assert passes.PassContext([], passes.VerificationLevel.NONE).get_verification_level() is passes.VerificationLevel.NONE


def test_pypto_keyword_options_are_accepted():
    ctx = passes.PassContext([], passes.VerificationLevel.BASIC, enable_pypto_l0c_double_buffer=True)
    assert ctx.get_instruments() == []
    assert ctx.enable_pypto_l0c_double_buffer is True


# -- calling passes --------------------------------------------------------------------------------------
def test_plain_call_and_run_without_context_fire_instruments_but_run_with_context_does_not(toy_plugin):
    log: list[str] = []
    p = toy("toy_mark")
    with passes.PassContext([recorder(log, "ctx")]) as ctx:
        marked = p(toy_program())
        p.run(toy_program())
        p.run(toy_program(), ctx)  # the raw transform, as the manager calls it
    assert log == ["ctx:before:ToyMark", "ctx:after:ToyMark", "ctx:before:ToyMark", "ctx:after:ToyMark"]
    assert marked.get_function("main").attrs["toy_mark"] == "on"


def test_pass_accessors_return_property_sets(toy_plugin):
    p = toy("toy_mark")
    assert p.get_name() == "ToyMark"
    assert str(p.get_produced_properties()) == "{ToyMarked}"
    assert p.get_required_properties().empty()
    assert str(toy("toy_unmark").get_invalidated_properties()) == "{ToyMarked}"


def test_factories_take_options_and_reject_unknown_ones(toy_plugin):
    assert passes.toy_mark(label="x", times=2)(toy_program()).get_function("main").attrs["toy_mark"] == "xx"
    with pytest.raises(ValueError, match="invalid options for pass toy_mark: colour"):
        passes.toy_mark(colour="red")
    with pytest.raises(AttributeError, match="no pass 'toy_marc' is registered; did you mean 'toy_mark'"):
        passes.toy_marc  # noqa: B018


# -- VerificationInstrument --------------------------------------------------------------------------------
def test_pre_verification_failure_message(toy_plugin):
    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.BEFORE_AND_AFTER)]):
        with pytest.raises(pypto.Error) as info:
            toy("toy_needs_mark")(toy_program())
    text = str(info.value)
    assert text.startswith("Pre-verification failed before pass 'ToyNeedsMark':\nIR Verification Report\n")
    assert "[1] ERROR - ToyMarked\n  Message: function 'main' is not marked" in text


def test_post_verification_failure_message(toy_plugin):
    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.AFTER)]):
        with pytest.raises(pypto.Error, match=r"^Post-verification failed after pass 'ToyLiar':\nIR Verification"):
            toy("toy_liar")(toy_program())


def test_structural_properties_are_checked_after_every_pass(toy_plugin):
    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.AFTER)]):
        with pytest.raises(pypto.Error, match=r"(?s)after pass 'ToyBreakTypes'.*TypeChecked"):
            toy("toy_break_types")(toy_program())


def test_modes_select_before_and_after(toy_plugin):
    # BEFORE alone does not look at the liar's output; AFTER alone does not check the missing input.
    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.BEFORE)]):
        toy("toy_liar")(toy_program())
    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.AFTER)]):
        toy("toy_needs_mark")(toy_program())
    with passes.PassContext([passes.VerificationInstrument(passes.VerificationMode.NONE)]):
        toy("toy_liar")(toy("toy_needs_mark")(toy_program()))


# -- the round-trip instrument -------------------------------------------------------------------------------
def test_roundtrip_instrument_passes_on_a_printable_program(toy_plugin):
    inst = make_roundtrip_instrument()
    assert isinstance(inst, passes.CallbackInstrument)
    assert inst.get_name() == "RoundtripInstrument"
    with passes.PassContext([inst]):
        toy("toy_mark")(toy_program())


@pytest.mark.parametrize("printer, message", [
    (lambda prog, **kw: (_ for _ in ()).throw(TypeError("no printer rule")),
     "[RoundtripInstrument] Printer failed after pass 'ToyMark'"),
    (lambda prog, **kw: "this is not python (",
     "[RoundtripInstrument] Parse failed after pass 'ToyMark'"),
    (lambda prog, **kw: "import pypto.language as pl\n@pl.function\ndef f(x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n    return x\n",
     "[RoundtripInstrument] Parse failed after pass 'ToyMark': the printed program parsed as a Function"),
    (lambda prog, **kw: _ORIGINAL_PRINT(toy_program(), **kw),  # loses the attr the pass added
     "[RoundtripInstrument] Structural equality failed after pass 'ToyMark'"),
])
def test_roundtrip_instrument_failures(toy_plugin, monkeypatch, printer, message):
    monkeypatch.setattr("pypto_core.language.printer.python_print", printer)
    with passes.PassContext([make_roundtrip_instrument()]):
        with pytest.raises(RuntimeError) as info:
            toy("toy_mark")(toy_program())
    assert str(info.value).startswith(message)


def test_roundtrip_instrument_only_warns_when_the_printer_cannot_show_iter_args(toy_plugin, monkeypatch):
    def printer(prog, **kw):
        raise ValueError("python_print does not support iter_args here\nmore")

    monkeypatch.setattr("pypto_core.language.printer.python_print", printer)
    with passes.PassContext([make_roundtrip_instrument()]):
        with pytest.warns(UserWarning, match="does not support iter_args"):
            toy("toy_mark")(toy_program())


_ORIGINAL_PRINT = ir.python_print


class _RecordsItsContext(passes.Pass):
    """Records the options of the context it runs in."""

    name = "RecordsItsContext"
    seen: list = []

    def run(self, program, ctx):
        _RecordsItsContext.seen.append((ctx.get_memory_planner(), ctx.get_enable_pypto_l0c_double_buffer(),
                                        ctx.get_disabled_diagnostics(), ctx.get_diagnostic_phase()))
        return program


def test_a_pipeline_run_keeps_the_enclosing_contexts_planning_options(toy_plugin):
    from pypto_core.passes.manager import PassManager

    _RecordsItsContext.seen.clear()
    options = dict(memory_planner="PTOAS", enable_pypto_l0c_double_buffer=True, disabled_diagnostics={"X"},
                   diagnostic_phase="PRE")
    with passes.PassContext([], passes.VerificationLevel.BASIC, **options):
        PassManager([_RecordsItsContext()], verify="roundtrip").run(toy_program())
        pipe = passes.PassPipeline()
        pipe.add_pass(_RecordsItsContext())
        with passes.PassContext([], passes.VerificationLevel.ROUNDTRIP, **options):
            pipe.run(toy_program())
    assert _RecordsItsContext.seen == [("PTOAS", True, {"X"}, "PRE")] * 2
