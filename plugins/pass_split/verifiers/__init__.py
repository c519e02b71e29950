"""The verifiers of the properties the split passes establish (registered by the pass_split plugin).

VERIFIERS maps a property name to (verifier, one-line doc); plugin.py registers each entry.
"""

from __future__ import annotations

from collections.abc import Callable

from pypto_plugins.pass_split.verifiers.aiv_split_valid import (
    verify_aiv_split_lowered_valid,
    verify_aiv_split_valid,
)
from pypto_plugins.pass_split.verifiers.hard_syncall_occupancy import verify_hard_syncall_occupancy
from pypto_plugins.pass_split.verifiers.mixed_kernel_expanded import verify_mixed_kernel_expanded
from pypto_plugins.pass_split.verifiers.vector_kernel_split import verify_vector_kernel_split

VERIFIERS: dict[str, tuple[Callable[..., list], str]] = {
    "AivSplitValid": (verify_aiv_split_valid,
                      "pl.split_aiv regions hold AIV work only and tiles cross them through aiv_shard / aic_gather"),
    "AivSplitLoweredValid": (verify_aiv_split_lowered_valid,
                             "AivSplitValid after LowerAutoVectorSplit: kept regions, or the flat split_aiv form"),
    "MixedKernelExpanded": (verify_mixed_kernel_expanded,
                            "no kernel mixes cube and vector work; every transfer has its pipe setup and tfree"),
    "HardSyncallOccupancyValid": (verify_hard_syncall_occupancy,
                                  "every core a hard syncall names reaches it as often as the others"),
    "VectorKernelSplit": (verify_vector_kernel_split,
                          "every split_aiv AIV function dispatches both lanes (dual_aiv_dispatch)"),
}
