"""IR builders of the `tensor` namespace, looked up in the op registry (filled by plugins)."""

from typing import Any


def __getattr__(name: str) -> Any:
    from pypto_core.ops.registry import op_registry

    table = op_registry().builders.get("tensor", {})
    fn = table.get(name) or table.get(name.rstrip("_"))
    if fn is None:
        raise AttributeError(f"no tensor builder '{name}' is registered (is the op plugin loaded?)")
    return fn
