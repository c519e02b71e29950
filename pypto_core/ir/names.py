"""Names of pass-generated variables: `<base>__<role>[_v<N>]` (API.md 8.7).

User base names may not contain the delimiter `__`; a name that already has the generated shape
(e.g. `x__ssa_v3`, `out__store`) is read back as its base so that passes can run on printed output.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

ROLES = ("ssa", "iter", "rv", "phi", "tile", "tmp", "out", "store", "idx")
DELIMITER = "__"
_GENERATED = re.compile(r"^(?P<base>.+?)__(?P<role>" + "|".join(ROLES) + r")(?:_v(?P<version>\d+))?(?:_\d+)?$")


class ReservedNameError(ValueError):
    """A user variable name contains the reserved delimiter '__'."""


def split_generated(name: str) -> tuple[str, str | None, int | None]:
    """(base, role, version) of a generated name; (name, None, None) for a plain user name."""
    m = _GENERATED.match(name)
    if m is None:
        return name, None, None
    version = m.group("version")
    return m.group("base"), m.group("role"), int(version) if version is not None else None


def base_name(name: str, where: str = "") -> str:
    """The user base of a name; a user name containing '__' is an error naming it."""
    base, role, _ = split_generated(name)
    if role is None and DELIMITER in name:
        at = f" (at {where})" if where else ""
        raise ReservedNameError(f"variable name '{name}' uses the reserved delimiter '__'{at}: pypto builds "
                                f"names like '{name.split('__')[0]}__ssa_v0' from it; rename the variable "
                                f"(e.g. '{name.replace('__', '_')}')")
    return base


def generated(base: str, role: str, version: int | None = None) -> str:
    return f"{base}{DELIMITER}{role}" + (f"_v{version}" if version is not None else "")


class VersionCounter:
    """Next free version per base name; seeded from names already in the function."""

    def __init__(self, existing: Iterable[str] = ()) -> None:
        self.next: dict[str, int] = defaultdict(int)
        for name in existing:
            base, _, version = split_generated(name)
            if version is not None:
                self.next[base] = max(self.next[base], version + 1)

    def take(self, base: str) -> int:
        v = self.next[base]
        self.next[base] = v + 1
        return v
