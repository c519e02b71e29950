"""Names of the functions OutlineHierarchyScopes creates (docs/passes/outline_hierarchy_scopes.md, names).

* the scope's `name_hint` if it has one, else `<parent>_<level>[_<role>]_<k>`, `k` counting every scope
  outlined from that parent so far (named ones too), starting at 0 for each parent, nested ones included;
* "taken locally" = a name already outlined from this parent or a variable name of the parent; "taken
  globally" = an existing function name or a name outlined from any function before;
* taken locally -> `<candidate>_0`, `_1`, ... (the first free one); taken only globally ->
  `<parent>_<candidate>` (then `<parent>_<candidate>_0`, `_1`, ... if that is taken too).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from pypto_core.ir.enums import Level, Role

# The level and role words of generated names (PyPTO's spelling; an alias level names its canonical one).
_LEVEL_TEXT = {
    Level.AIV: "aiv", Level.AIC: "aic", Level.CORE_GROUP: "core_group", Level.CHIP_DIE: "chip_die",
    Level.CHIP: "chip", Level.HOST: "host", Level.CLUSTER_0: "cluster0", Level.CLUSTER_1: "cluster1",
    Level.CLUSTER_2: "cluster2", Level.GLOBAL: "global", Level.L2CACHE: "chip_die", Level.PROCESSOR: "chip",
    Level.UMA: "chip", Level.NODE: "host", Level.POD: "cluster0", Level.CLOS1: "cluster1",
    Level.CLOS2: "cluster2",
}
# An alias level is stored as the level it names (docs/passes/outline_hierarchy_scopes.md, DSL surface).
_CANONICAL = {Level.L2CACHE: Level.CHIP_DIE, Level.PROCESSOR: Level.CHIP, Level.UMA: Level.CHIP,
              Level.NODE: Level.HOST, Level.POD: Level.CLUSTER_0, Level.CLOS1: Level.CLUSTER_1,
              Level.CLOS2: Level.CLUSTER_2}
_ROLE_TEXT = {Role.Orchestrator: "orch", Role.SubWorker: "sub_worker"}


def canonical_level(level: Level) -> Level:
    return _CANONICAL.get(level, level)


def scope_suffix(level: Level, role: Role | None) -> str:
    """`host_orch`, `chip`, ...: the part of a generated name that says where the scope runs."""
    return _LEVEL_TEXT[level] + (f"_{_ROLE_TEXT[role]}" if role is not None else "")


class HierarchyNames:
    def __init__(self, existing: Iterable[str]) -> None:
        self.global_taken: set[str] = set(existing)
        self.counters: dict[str, int] = defaultdict(int)
        self.outlined_from: dict[str, set[str]] = defaultdict(set)

    def allocate(self, parent: str, parent_var_names: set[str], level: Level, role: Role | None,
                 hint: str = "") -> str:
        k = self.counters[parent]
        self.counters[parent] += 1  # every outlined scope advances the counter, named ones too
        candidate = hint or f"{parent}_{scope_suffix(level, role)}_{k}"
        local = self.outlined_from[parent] | parent_var_names
        if candidate in local:
            name = self._first_free(candidate, local)
        elif candidate in self.global_taken:
            prefixed = f"{parent}_{candidate}"
            taken = prefixed in local or prefixed in self.global_taken
            name = self._first_free(prefixed, local) if taken else prefixed
        else:
            name = candidate
        self.outlined_from[parent].add(name)
        self.global_taken.add(name)
        return name

    def _first_free(self, base: str, local: set[str]) -> str:
        k = 0
        while f"{base}_{k}" in local or f"{base}_{k}" in self.global_taken:
            k += 1
        return f"{base}_{k}"
