"""`passes.<factory_name>(**options)`: the pass registered under that name, instantiated."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def factory(name: str) -> Callable[..., Any]:
    from pypto_core.passes.registry import PASSES
    from pypto_core.plugins.host import unavailable_provider_note

    cls = PASSES.get(name)
    if cls is None:
        # A name a blocked or failed plugin publishes in the passes namespace (`l0_tile_chooser`) is named too.
        published_by = unavailable_provider_note("passes attribute", name)
        if "which provides it" not in published_by:  # only a plugin known to publish this very name
            published_by = ""
        raise AttributeError(f"module 'pypto.passes' has no attribute '{name}' (no pass '{name}' is registered"
                             f"{published_by or PASSES.suggest(name)})")

    def make(*args: Any, **options: Any) -> Any:
        if args:
            raise TypeError(f"passes.{name}() takes keyword options only")
        return cls(**options)

    make.__name__ = name
    make.__doc__ = cls.description or cls.__doc__
    return make
