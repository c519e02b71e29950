"""The verifiers of the properties the split passes establish (registered by the pass_split plugin).

VERIFIERS maps a property name to (verifier, one-line doc); plugin.py registers each entry.
"""

from __future__ import annotations

from collections.abc import Callable

VERIFIERS: dict[str, tuple[Callable[..., list], str]] = {}
