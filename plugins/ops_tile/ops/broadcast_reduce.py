"""OpDefs of PyPTO ops added for issue 14 (broadcast_reduce family); see OPS.md for each op's rules."""

from __future__ import annotations

from pypto_core.ops.opdef import OpDef

OPDEFS: list[OpDef] = []
