"""The verifiers of the properties the split passes establish (registered by the pass_split plugin).

VERIFIERS maps a property name to (verifier, one-line doc); plugin.py registers each entry.
"""

from __future__ import annotations

from collections.abc import Callable

from pypto_plugins.pass_split.verifiers.aiv_split_valid import (
    verify_aiv_split_lowered_valid,
    verify_aiv_split_valid,
)

VERIFIERS: dict[str, tuple[Callable[..., list], str]] = {
    "AivSplitValid": (verify_aiv_split_valid,
                      "pl.split_aiv regions hold AIV work only and tiles cross them through aiv_shard / aic_gather"),
    "AivSplitLoweredValid": (verify_aiv_split_lowered_valid,
                             "AivSplitValid after LowerAutoVectorSplit: kept regions, or the flat split_aiv form"),
}
