"""A registry of named things (passes, properties, backends, pipelines) that remembers each owner.

Reading a registry loads the plugins first, once (pypto_core/plugins/host.py): registries fill lazily, so the
Python API needs no explicit loading step, and no caller has to remember one."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Generic, TypeVar

from pypto_core.ops.registry import DuplicateRegistrationError
from pypto_core.plugins.lazy import plugins_loaded

T = TypeVar("T")


class NamedRegistry(Generic[T]):
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}
        self._owners: dict[str, str] = {}

    def register(self, name: str, item: T, owner: str = "<core>") -> None:
        if name in self._items:
            raise DuplicateRegistrationError(self.kind, name, self._owners[name], owner)
        self._items[name] = item
        self._owners[name] = owner

    def unregister_owner(self, owner: str) -> None:
        for name in [n for n, o in self._owners.items() if o == owner]:
            del self._items[name]
            del self._owners[name]

    def clear(self, keep_owner: str | None = None) -> None:
        for name in list(self._items):
            if self._owners[name] != keep_owner:
                del self._items[name]
                del self._owners[name]

    def get(self, name: str) -> T | None:
        plugins_loaded()
        return self._items.get(name)

    def require(self, name: str) -> T:
        plugins_loaded()
        item = self._items.get(name)
        if item is None:
            raise ValueError(f"unknown {self.kind} '{name}'{self.suggest(name)}")
        return item

    def suggest(self, name: str) -> str:
        """`; did you mean 'x'?` or ` (known: ...)`, then which failed or blocked plugin might provide it."""
        from pypto_core.plugins.host import unavailable_provider_note

        note = unavailable_provider_note(self.kind, name)
        hint = difflib.get_close_matches(name, list(self._items), n=1)
        if hint:
            return f"; did you mean '{hint[0]}'?{note}"
        known = ", ".join(sorted(self._items)) or "none"
        return f" (known: {known}){note}"

    def owner(self, name: str) -> str:
        plugins_loaded()
        return self._owners.get(name, "")

    def names(self) -> list[str]:
        plugins_loaded()
        return list(self._items)

    def items(self) -> Iterator[tuple[str, T]]:
        plugins_loaded()
        return iter(list(self._items.items()))

    def __contains__(self, name: object) -> bool:
        plugins_loaded()
        return name in self._items

    def __len__(self) -> int:
        plugins_loaded()
        return len(self._items)

