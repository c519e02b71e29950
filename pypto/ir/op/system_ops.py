"""IR builders of the `system` namespace, looked up in the op registry (filled by plugins)."""

from typing import Any


def __getattr__(name: str) -> Any:
    from pypto_core.ops.registry import op_registry

    table = op_registry().builders.get("system", {})
    fn = table.get(name) or table.get(name.rstrip("_"))
    if fn is None:
        raise AttributeError(f"no system builder '{name}' is registered (is the op plugin loaded?)")
    return fn
