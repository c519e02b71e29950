"""Op interfaces: the open table of per-op questions passes ask (docs/architecture.md, the op registry).

A pass that needs something from each op (its tile form, its 2-D form, how it halves on a split axis,
its expansion) does not add a field to OpDef. It *declares an interface*: a name, what an
implementation is, and what a missing implementation means. Ops of any plugin *implement* it, keyed by
op name. The pass looks an op's implementation up in the registry and, where an implementation is
required, asks the registry to explain a missing one (`OpRegistry.require_implementation`), so that
message is written once, by the interface's declaration.

Implementations may be registered before their interface is declared (plugins load one at a time) or
for an interface no loaded plugin declares (its pass plugin is blocked): they are kept, and
`pypto list interfaces` shows them.
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.errors import UserError


@dataclass(frozen=True)
class OpInterface:
    """The declaration of an interface by the plugin whose pass asks it.

    `name` is the key implementations are registered under (`tile_form`); `doc` says what an
    implementation is called with and returns; `missing` says what a pass does with an op that has no
    implementation, or, where one is required, what the user should do (shown in the error)."""

    name: str
    doc: str
    missing: str = ""


class MissingImplementationError(UserError):
    """A pass needs an op's implementation of an interface and the op has none (the user's to fix:
    another op, or a plugin that implements it)."""
