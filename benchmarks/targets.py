"""What every benchmark prints at its end: each target with its measured value, met or MISSED, and one JSON line
per target (tests never assert on time; docs/architecture.md, performance)."""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    what: str  # "pypto --version / python -c 'import numpy, pydantic, pluggy'"
    value: float
    limit: float
    unit: str = "x"

    @property
    def met(self) -> bool:
        return self.value <= self.limit


def report(bench: str, targets: list[Target]) -> None:
    """The targets block: one line each, then one JSON line each and a summary line."""
    print("\ntargets:")
    for t in targets:
        print(f"  {'met   ' if t.met else 'MISSED'} {t.what}: {t.value:.2f}{t.unit} <= {t.limit:g}{t.unit}")
    for t in targets:
        print(json.dumps({"bench": bench, "kind": "target", "target": t.what, "value": round(t.value, 4),
                          "limit": t.limit, "unit": t.unit, "met": t.met}))
    print(json.dumps({"bench": bench, "kind": "targets", "met": sum(t.met for t in targets),
                      "missed": sum(not t.met for t in targets)}))
