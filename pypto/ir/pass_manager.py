"""`pypto.ir.pass_manager` (docs/architecture.md): PyPTO's strategy-based PassManager, over the registered passes.

`PassManager(OptimizationStrategy.Default).run_passes(program)` runs the `full` preset when a plugin
registers one, else `default`, as a PassPipeline in the current PassContext (so its instruments and
verification level apply, as in PyPTO's conftest).
"""

from __future__ import annotations

import enum
from typing import Any

from pypto_core.passes.pipeline import PassPipeline


class OptimizationStrategy(enum.Enum):
    Default = 0


_PRESETS: dict[OptimizationStrategy, tuple[str, ...]] = {
    OptimizationStrategy.Default: ("full", "default"),  # first registered preset wins
}


def _preset_passes(strategy: OptimizationStrategy) -> list[Any]:
    from pypto_core.passes.registry import PASSES, PIPELINES

    for preset in _PRESETS[strategy]:
        names = PIPELINES.get(preset)
        if names is None:
            continue
        passes = []
        for name in names:
            cls = PASSES.get(name)
            if cls is None:
                raise ValueError(f"pipeline preset '{preset}' (strategy {strategy.name}) names pass '{name}', "
                                 f"which no plugin registers{PASSES.suggest(name)}")
            passes.append(cls())
        return passes
    raise ValueError(f"no pipeline preset for strategy {strategy.name} is registered "
                     f"(looked for {', '.join(_PRESETS[strategy])}; is the pipeline_presets plugin disabled?)")


class PassManager:
    def __init__(self, strategy: OptimizationStrategy = OptimizationStrategy.Default) -> None:
        self.strategy = strategy
        self.pipeline = PassPipeline()
        for p in _preset_passes(strategy):
            self.pipeline.add_pass(p)

    @staticmethod
    def get_strategy(strategy: OptimizationStrategy = OptimizationStrategy.Default) -> PassManager:
        return PassManager(strategy)

    def get_pass_names(self) -> list[str]:
        return self.pipeline.get_pass_names()

    def get_passes(self) -> list[Any]:
        return self.pipeline.get_passes()

    def run_passes(self, program: Any, **_options: Any) -> Any:
        return self.pipeline.run(program)


__all__ = ["OptimizationStrategy", "PassManager"]
