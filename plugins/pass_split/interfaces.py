"""The op interface the vector-split pass asks (docs/plugins.md, op interfaces): declared here; the split
forms of pypto's own ops live beside it in split_forms/, keyed by op name."""

from __future__ import annotations

from pypto_core.ops.interfaces import OpInterface

SPLIT_FORM = OpInterface(
    "split_form",
    doc="how LowerAutoVectorSplit halves a call whose operands describe its shape or window: "
        "(ctx, call, halved operands) -> (the call for one lane, the axis its result is split on or None)",
    missing="the call on its halved operands, with a halved result")

INTERFACES = (SPLIT_FORM,)
