"""`pypto.testing`: PyPTO's test-facing helpers, as the plugins publish them (`register_testing_attribute`,
docs/plugins.md), e.g. `pypto.testing.recognize_dsa_reuse_penalties(function)` of pass_memory."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name.startswith("_"):
        raise AttributeError(name)
    from pypto_core.passes.registry import TESTING_NAMESPACE

    value = TESTING_NAMESPACE.get(name)
    if value is None:
        raise AttributeError(f"module 'pypto.testing' has no attribute '{name}' (no plugin publishes a testing "
                             f"helper '{name}'{TESTING_NAMESPACE.suggest(name)})")
    return value
