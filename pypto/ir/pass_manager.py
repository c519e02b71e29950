"""`pypto.ir.pass_manager` (docs/architecture.md, the pass manager): PyPTO's strategy-based PassManager, a thin
adapter over the registered passes and pipeline presets.

`PassManager.get_strategy(OptimizationStrategy.Default)` holds the `full` preset when a plugin registers one,
else `default`: its `pass_names` and `passes` (fresh Pass objects, same order), and `run_passes(program)`
runs them as a PassPipeline in the current PassContext (so its instruments and verification level apply,
as in PyPTO's conftest). `PassManager._get_pass_factories(strategy)` gives the same pipeline as
(pass name, factory) pairs, for tests that run a prefix of it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from pypto_core.passes.memory_planner import active_memory_planner, check_planner, runs_under
from pypto_core.passes.pipeline import PassPipeline


class OptimizationStrategy(enum.Enum):
    Default = 0


_PRESETS: dict[OptimizationStrategy, tuple[str, ...]] = {
    OptimizationStrategy.Default: ("full", "default"),  # first registered preset wins
}


class PassManager:
    def __init__(self, strategy: OptimizationStrategy = OptimizationStrategy.Default) -> None:
        self.strategy = strategy
        # The memory planner of the active context decides which memory passes run (docs/memory_planning.md).
        self.memory_planner = active_memory_planner()
        made = [(name, make()) for name, make in self._get_pass_factories(strategy)]
        kept = [(name, p) for name, p in made if runs_under(p, self.memory_planner)]
        self.pass_names: list[str] = [name for name, _ in kept]
        self.passes: list[Any] = [p for _, p in kept]
        self.pipeline = PassPipeline()
        for p in self.passes:
            self.pipeline.add_pass(p)

    @classmethod
    def _get_pass_factories(cls, strategy: OptimizationStrategy = OptimizationStrategy.Default
                            ) -> list[tuple[str, Callable[[], Any]]]:
        """The strategy's pipeline in order, as (pass name, factory making a new Pass) pairs."""
        from pypto_core.passes.factories import factory
        from pypto_core.passes.registry import PASSES, PIPELINES

        for preset in _PRESETS[strategy]:
            names = PIPELINES.get(preset)
            if names is None:
                continue
            pairs = []
            for name in names:
                pass_class = PASSES.get(name)
                if pass_class is None:
                    raise ValueError(f"pipeline preset '{preset}' (strategy {strategy.name}) names pass '{name}', "
                                     f"which no plugin registers{PASSES.suggest(name)}")
                pairs.append((pass_class.name, factory(name)))
            return pairs
        raise ValueError(f"no pipeline preset for strategy {strategy.name} is registered "
                         f"(looked for {', '.join(_PRESETS[strategy])}; is the pipeline_presets plugin disabled?)")

    @staticmethod
    def get_strategy(strategy: OptimizationStrategy = OptimizationStrategy.Default) -> PassManager:
        return PassManager(strategy)

    def get_pass_names(self) -> list[str]:
        return list(self.pass_names)

    def get_passes(self) -> list[Any]:
        return list(self.passes)

    def run_passes(self, program: Any, **_options: Any) -> Any:
        check_planner(self.memory_planner)
        return self.pipeline.run(program)


__all__ = ["OptimizationStrategy", "PassManager"]
