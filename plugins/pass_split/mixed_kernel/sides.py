"""The two cores of a core group and the sides an affinity puts a statement on (docs/plugins.md, OpDef fields)."""

from __future__ import annotations

import enum

from pypto_core.ops.opdef import CoreAffinity


class Side(enum.Enum):
    AIC = "aic"
    AIV = "aiv"

    @property
    def other(self) -> Side:
        return Side.AIV if self is Side.AIC else Side.AIC

    @property
    def core_name(self) -> str:
        return "cube (AIC)" if self is Side.AIC else "vector (AIV)"


Sides = frozenset[Side]
AIC_ONLY: Sides = frozenset({Side.AIC})
AIV_ONLY: Sides = frozenset({Side.AIV})
BOTH: Sides = frozenset({Side.AIC, Side.AIV})


def sides_of(affinity: CoreAffinity) -> Sides | None:
    """CUBE -> AIC, VECTOR -> AIV, SHARED -> both; MIXED (a boundary) -> None: both ends, rewritten."""
    if affinity is CoreAffinity.CUBE:
        return AIC_ONLY
    if affinity is CoreAffinity.VECTOR:
        return AIV_ONLY
    if affinity is CoreAffinity.SHARED:
        return BOTH
    return None
