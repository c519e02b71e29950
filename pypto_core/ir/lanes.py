"""Functions every AIV lane runs whole, at the same time (docs/passes/split_vector_kernel.md,
docs/passes/lower_auto_vector_split.md): a `split_aiv` kernel (outlined from a scope holding a `pl.split_aiv`
region) and a kernel dispatched to both lanes (`dual_aiv_dispatch`). What such a function does outside its regions,
each lane does, in no order relative to the other lane: the reference machine forks it, and a pass must not
assume one lane's statement runs before another lane's.
"""

from __future__ import annotations

from pypto_core.ir.function import Function

LANE_ATTRS = ("split_aiv", "dual_aiv_dispatch")


def runs_on_lanes(func: Function) -> bool:
    return any(bool(func.attrs.get(k)) for k in LANE_ATTRS)
