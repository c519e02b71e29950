"""The pass classes this plugin registers (one module per pass)."""

from __future__ import annotations

from pypto_plugins.pass_split.expand_mixed_kernel import ExpandMixedKernel
from pypto_plugins.pass_split.inject_gm_pipe_buffer import InjectGMPipeBuffer
from pypto_plugins.pass_split.lower_auto_vector_split import LowerAutoVectorSplit
from pypto_plugins.pass_split.split_vector_kernel import SplitVectorKernel
from pypto_plugins.pass_split.stamp_tfree_split import StampTfreeSplit

PASSES: list[type] = [LowerAutoVectorSplit, ExpandMixedKernel, InjectGMPipeBuffer, SplitVectorKernel, StampTfreeSplit]
