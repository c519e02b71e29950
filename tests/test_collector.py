"""The cyclic collector is paused while the compile chain runs and resumed afterwards (pypto_core/collector.py,
docs/architecture.md, performance)."""

from __future__ import annotations

import gc

import pypto.language as pl
from pypto import passes
from pypto_core.collector import collector_paused, pauses_collector

SOURCE = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(x, x)
        return y
'''


def test_the_collector_is_off_inside_and_on_again_after_nested_pauses():
    assert gc.isenabled()
    with collector_paused():
        assert not gc.isenabled()
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner block does not resume it
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled():
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_resumes_when_the_step_raises():
    @pauses_collector
    def failing() -> None:
        raise ValueError("no")

    try:
        failing()
    except ValueError:
        pass
    assert gc.isenabled()


def test_parse_passes_and_print_run_with_the_collector_paused(monkeypatch):
    seen: list[bool] = []
    original = gc.isenabled

    class Probe(passes.Pass):
        name = "Probe"
        factory_name = "probe"

        def run(self, program, ctx):
            seen.append(original())
            return program

    program = pl.parse(SOURCE)
    Probe()(program)
    assert seen == [False] and gc.isenabled()


def test_no_cycle_made_during_a_pause_outlives_it():
    class Node:
        def __init__(self) -> None:
            self.me = self

    import weakref

    with collector_paused():
        ref = weakref.ref(Node())
        assert ref() is not None  # a cycle: only the collector frees it
    assert ref() is None
