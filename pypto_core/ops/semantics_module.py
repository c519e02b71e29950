"""A semantics module: an op family's numpy semantics in a module of their own, imported on first execution
(docs/architecture.md, performance: what each command imports).

An op is defined once, in its family module (OpDef, type rule, forms, DSL builder); its `evaluate` is keyed
by the op's name in the family's semantics module, which only the reference machine needs. Compiling never
imports it, so a process that only compiles loads neither numpy nor the machine:

    # families/unary.py
    family = OpFamily("unary", semantics="my_plugin.semantics.unary")

    # semantics/unary.py
    semantics = Semantics()

    @semantics("tile.exp")
    def _exp(ctx, call, args, kwargs):
        return np.exp(args[0])

The registry imports the module the first time any OpDef's `evaluate` is asked for and registers its
table under the plugin that registered the family (pypto_core/ops/registry.py, `load_deferred_semantics`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from pypto_core.ops.places import caller_site, function_site

SEMANTICS_ATTRIBUTE = "semantics"  # the module-level table a semantics module defines


class Semantics:
    """The table a semantics module fills: (op name, evaluate, definition site), in definition order."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, Callable[..., Any], str]] = []

    def __call__(self, *op_names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """`@semantics("tile.add", "tile.sub")`: the decorated function is those ops' `evaluate`."""

        def record(fn: Callable[..., Any]) -> Callable[..., Any]:
            for name in op_names:
                self.entries.append((name, fn, function_site(fn)))
            return fn

        return record

    def of(self, op_name: str, evaluate: Callable[..., Any]) -> None:
        """The semantics of one op given as a value (a function built by a factory)."""
        self.entries.append((op_name, evaluate, caller_site()))


class SemanticsModuleError(ValueError):
    """A plugin's semantics module could not be imported or defines no table."""


def semantics_table(module_name: str, owner: str) -> Semantics:
    """Import `module_name` and return its `semantics` table; a failure names the plugin and the module."""
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise SemanticsModuleError(
            f"plugin '{owner}': its semantics module '{module_name}' failed to import "
            f"({type(exc).__name__}: {exc}); the reference machine cannot run its ops until it imports") from exc
    table = getattr(module, SEMANTICS_ATTRIBUTE, None)
    if not isinstance(table, Semantics):
        raise SemanticsModuleError(
            f"plugin '{owner}': its semantics module '{module_name}' defines no `{SEMANTICS_ATTRIBUTE} = Semantics()` "
            f"table (pypto_core/ops/semantics_module.py)")
    return table
