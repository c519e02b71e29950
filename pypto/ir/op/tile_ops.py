"""IR builders of the `tile` namespace, looked up in the op registry (filled by plugins)."""

from typing import Any


def __getattr__(name: str) -> Any:
    from pypto_core.ops.registry import op_registry

    table = op_registry().builders.get("tile", {})
    fn = table.get(name) or table.get(name.rstrip("_"))
    if fn is None:
        raise AttributeError(f"no tile builder '{name}' is registered (is the op plugin loaded?)")
    return fn
