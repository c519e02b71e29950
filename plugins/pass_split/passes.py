"""The pass classes this plugin registers (one module per pass)."""

from __future__ import annotations

from pypto_plugins.pass_split.expand_mixed_kernel import ExpandMixedKernel
from pypto_plugins.pass_split.lower_auto_vector_split import LowerAutoVectorSplit

PASSES: list[type] = [LowerAutoVectorSplit, ExpandMixedKernel]
