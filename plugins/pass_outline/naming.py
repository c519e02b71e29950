"""Names of outlined functions, shared by every outliner of this plugin (docs/passes/outline_incore_scopes.md, names).

* no hint: `{fn}_incore_{k}`, k counting every scope of `fn` outlined so far, named ones included
  (PyPTO: a named scope advances the counter too, so `name_hint="a"` then an unnamed scope gives
  `a`, `main_incore_1`);
* a hint is used as is; a second scope of the same function with the same hint gets `_0`, `_1`, ...;
* a hint another function already used keeps the first function's name, and later functions get
  `{fn}_{hint}` (single_a -> dup_scope, single_b -> single_b_dup_scope);
* never a name the program already has.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable


class OutlinedNames:
    def __init__(self, existing: Iterable[str], kind: str = "incore") -> None:
        self.taken: set[str] = set(existing)
        self.kind = kind
        self.counters: dict[str, int] = defaultdict(int)
        self.first_owner: dict[str, str] = {}
        self.assigned: dict[tuple[str, str], list[str]] = defaultdict(list)

    def _free(self, candidate: str) -> str:
        name, k = candidate, 0
        while name in self.taken:
            name = f"{candidate}_{k}"
            k += 1
        return name

    def allocate(self, fn: str, hint: str = "") -> str:
        name = self._hinted(fn, hint) if hint else self._numbered(fn)
        if hint:
            self.counters[fn] += 1  # a named scope advances the counter too (PyPTO)
        self.taken.add(name)
        return name

    def _numbered(self, fn: str) -> str:
        """`{fn}_incore_{k}`; an index whose name a user function already has is skipped."""
        while True:
            name = f"{fn}_{self.kind}_{self.counters[fn]}"
            self.counters[fn] += 1
            if name not in self.taken:
                return name

    def _hinted(self, fn: str, hint: str) -> str:
        earlier = self.assigned[(fn, hint)]
        if earlier:
            name = self._free(earlier[0])  # same function: my_kernel, my_kernel_0, my_kernel_1
        elif hint not in self.taken:
            name = hint
        else:
            name = self._free(f"{fn}_{hint}")  # another function owns the hint
        earlier.append(name)
        return name
