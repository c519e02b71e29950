"""The planner switch (docs/memory_planning.md, planners): a PassManager built under a PassContext's memory planner
keeps the memory passes that planner runs (each pass states its planners), and refuses to run under another."""

from __future__ import annotations

import types

import pytest

from pypto import passes
from pypto.ir.pass_manager import OptimizationStrategy
from pypto.ir.pass_manager import PassManager as StrategyPassManager
from pypto_core.passes.manager import PassManager
from pypto_core.passes.memory_planner import MemoryPlanner
from pypto_core.plugins.host import register_in_process_plugin, reload_plugins
from pypto_plugins.pass_memory.tests import programs as P
from pypto_plugins.pass_memory.tests.helpers import address, program

Planner = passes.MemoryPlanner


def names(manager: PassManager) -> list[str]:
    return manager.get_pass_names()


def test_each_memory_pass_states_its_planners():
    assert passes.memory_reuse().planners == (MemoryPlanner.PYPTO,)
    assert set(passes.allocate_memory_addr().planners) == {MemoryPlanner.PYPTO, MemoryPlanner.DSA_RP}
    assert getattr(passes.convert_to_ssa(), "planners", None) is None  # every other pass runs under all


@pytest.mark.parametrize(("planner", "kept"), [
    (None, ["MemoryReuse", "AllocateMemoryAddr"]),
    (Planner.PYPTO, ["MemoryReuse", "AllocateMemoryAddr"]),
    (Planner.DSA_RP, ["AllocateMemoryAddr"]),
    (Planner.PTOAS, []),
])
def test_the_manager_keeps_the_passes_its_planner_runs(planner, kept):
    with passes.PassContext([], memory_planner=planner):
        manager = PassManager([passes.convert_to_ssa(), passes.memory_reuse(), passes.allocate_memory_addr()],
                              verify="none")
    assert names(manager) == ["ConvertToSSA", *kept]


def test_running_under_another_planner_is_a_runtime_error():
    with passes.PassContext([], memory_planner=Planner.PYPTO):
        manager = PassManager([passes.allocate_memory_addr()], verify="none")
    with passes.PassContext([], memory_planner=Planner.PTOAS), pytest.raises(RuntimeError) as info:
        manager.run(program(P.CHAIN))
    assert str(info.value).startswith("PassManager was constructed under memory_planner=PYPTO but is being run "
                                      "under memory_planner=PTOAS")


def test_the_same_planner_runs():
    with passes.PassContext([], memory_planner=Planner.DSA_RP):
        manager = PassManager([passes.convert_to_ssa()], verify="none")
        manager.run(program(P.CHAIN))


def test_dsa_rp_selects_the_capacity_bounded_solver():
    # the sequential allocator puts mem_vec_5 (s2) first by name; DSA_RP places the largest buffer first
    with passes.PassContext([], memory_planner=Planner.DSA_RP):
        after = passes.allocate_memory_addr()(program(P.NAME_ORDER))
    assert address(after, "s") == 0 and address(after, "s2") == 16384


PRESET = '''
from pypto.plugin import hookimpl


@hookimpl
def pypto_register_pipelines(registry):
    registry.register_pipeline("memory_only", ["memory_reuse", "allocate_memory_addr"])
'''


@pytest.fixture
def memory_preset(monkeypatch):
    import pypto.ir.pass_manager as strategy

    monkeypatch.setitem(strategy._PRESETS, OptimizationStrategy.Default, ("memory_only",))
    module = types.ModuleType("memory_preset_plugin")
    exec(compile(PRESET, "<memory_preset_plugin>", "exec"), module.__dict__)
    register_in_process_plugin("memory_preset", module)
    try:
        yield
    finally:
        reload_plugins(disabled=[], extra=[])


def test_pypto_s_strategy_manager_drops_and_refuses_the_same_way(memory_preset):
    with passes.PassContext([], memory_planner=Planner.PTOAS):
        assert StrategyPassManager.get_strategy(OptimizationStrategy.Default).get_pass_names() == []
    with passes.PassContext([], memory_planner=Planner.DSA_RP):
        manager = StrategyPassManager.get_strategy(OptimizationStrategy.Default)
    assert manager.get_pass_names() == ["AllocateMemoryAddr"]
    with pytest.raises(RuntimeError, match="constructed under memory_planner=DSA_RP but is being run under "
                                           "memory_planner=PYPTO"):
        manager.run_passes(program(P.CHAIN))


def test_calling_a_memory_pass_directly_under_ptoas_still_runs_it():
    with passes.PassContext([], memory_planner=Planner.PTOAS):
        after = passes.allocate_memory_addr()(program(P.NAME_ORDER))
    assert address(after, "s") == 4096


def test_a_planner_given_by_name_counts_too():
    with passes.PassContext([], memory_planner="PTOAS"):
        manager = PassManager([passes.memory_reuse(), passes.allocate_memory_addr()], verify="none")
    assert names(manager) == []
