"""OpFamily: an op plugin's unit of definition (docs/architecture.md, where does X live).

One module per family of ops holds, for each op, everything about it: its OpDef (signature, type
rule, effects, lanes, memory, traits), its numpy semantics, the forms passes ask for through op
interfaces (tile form, 2-D form, ...) and its `pl` DSL builder. The module records them on an
`OpFamily`; the plugin's `pypto_register_ops` hook registers each family:

    family = OpFamily("unary")
    EXP = family.op(OpDef("tile.exp", deduce_unary, args=(ArgSpec("tile"),)), dsl="tile.exp")

    @family.semantics("tile.exp")
    def _exp(ctx, call, args, kwargs):
        return np.exp(args[0])

    @family.implements("tile_form", "tensor.exp")
    def _exp_tile_form(...): ...

Every registration goes to the op registry, which rejects a name registered twice (an op, a DSL name,
an IR builder, a semantics, an interface implementation) naming both places.

The semantics may instead live in a module of their own, `OpFamily("unary", semantics="pkg.semantics.unary")`,
which the registry imports the first time an OpDef's `evaluate` is asked for: loading the plugin then costs
no numpy (pypto_core/ops/semantics_module.py; the bundled families do this).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pypto_core.ops.derived_builder import derived_builder
from pypto_core.ops.opdef import OpDef
from pypto_core.ops.places import caller_site, function_site

Registration = Callable[[Any], None]


@dataclass(frozen=True)
class _Dsl:
    name: str  # `tile.load` (also IR builder `tile_ops.load`), `add` (DSL only)
    function: Callable[..., Any]
    site: str
    builder: bool


class OpFamily:
    """The ops of one family and everything that belongs to each (module docstring)."""

    def __init__(self, name: str, semantics: str | None = None) -> None:
        self.name = name
        # The module holding this family's numpy semantics, imported on first execution rather than with the
        # plugin (pypto_core/ops/semantics_module.py); None: the semantics are recorded here, beside the ops.
        self.semantics_module = semantics
        self.opdefs: list[OpDef] = []
        self._semantics: list[tuple[str, Callable[..., Any], str]] = []
        self._implementations: list[tuple[str, str, Any, str]] = []
        self._dsl: list[_Dsl] = []

    # -- recording -------------------------------------------------------------------------------
    def op(self, opdef: OpDef, *, dsl: str | None = None) -> OpDef:
        """Record an op. `dsl="tile.exp"` also registers a builder derived from its ArgSpec / KwargSpec
        declaration under that DSL name (and IR builder), for ops whose builder would add nothing."""
        self.opdefs.append(opdef)
        if dsl is not None:
            self._dsl.append(_Dsl(dsl, derived_builder(opdef, dsl.rpartition(".")[2]), opdef.defined_at,
                                  builder=_has_namespace(dsl)))
        return opdef

    def set_traits(self, *op_names: str, **facts: Any) -> None:
        """Add trait facts to ops this family already recorded (ops a helper or a loop builds)."""
        for name in op_names:
            matches = [o for o in self.opdefs if o.name == name]
            if not matches:
                raise KeyError(f"op family '{self.name}' has no op '{name}' to set traits on")
            for opdef in matches:
                opdef.traits = dataclasses.replace(opdef.traits, **facts)

    def ops(self, opdefs: list[OpDef]) -> list[OpDef]:
        for opdef in opdefs:
            self.op(opdef)
        return opdefs

    def semantics(self, *op_names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """`@family.semantics("tile.add", "tile.sub")`: the decorated function is those ops' `evaluate`."""

        def record(fn: Callable[..., Any]) -> Callable[..., Any]:
            for name in op_names:
                self._semantics.append((name, fn, function_site(fn)))
            return fn

        return record

    def semantics_of(self, op_name: str, evaluate: Callable[..., Any]) -> None:
        """The semantics of one op given as a value (a function built by a factory)."""
        self._semantics.append((op_name, evaluate, caller_site()))

    def implements(self, interface: str, *op_names: str) -> Callable[[Any], Any]:
        """`@family.implements("tile_form", "tensor.add")`: the decorated object implements the interface
        for those ops."""

        def record(impl: Any) -> Any:
            site = function_site(impl) if callable(impl) else caller_site()
            for name in op_names:
                self._implementations.append((interface, name, impl, site))
            return impl

        return record

    def implement(self, interface: str, op_name: str, implementation: Any) -> None:
        """One op's implementation of an interface given as a value (`TileForm(op="tile.add")`)."""
        self._implementations.append((interface, op_name, implementation, caller_site()))

    def dsl(self, name: str | None = None, *, builder: bool = True) -> Callable[[Callable[..., Any]], Any]:
        """`@family.dsl("tile.load")`: a hand-written DSL function (and, for a namespaced name, the IR
        builder `pypto.ir.op.tile_ops.load`). `builder=False` registers the DSL name only."""

        def record(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._dsl.append(_Dsl(name or fn.__name__, fn, function_site(fn), builder and _has_namespace(name)))
            return fn

        return record

    def dsl_function(self, name: str, fn: Callable[..., Any], *, builder: bool = True) -> None:
        """A DSL function given as a value (one made by a factory for several ops)."""
        self._dsl.append(_Dsl(name, fn, caller_site(), builder and _has_namespace(name)))

    # -- registering -----------------------------------------------------------------------------
    def register(self, registrar: Any) -> None:
        """Register everything recorded, ops first (semantics attach to registered ops)."""
        for opdef in self.opdefs:
            registrar.register_op(opdef)
        for name, fn, site in self._semantics:
            registrar.register_semantics(name, fn, site=site)
        if self.semantics_module is not None:
            registrar.defer_semantics(self.semantics_module, [o.name for o in self.opdefs])
        for interface, name, impl, site in self._implementations:
            registrar.implement(interface, name, impl, site=site)
        for entry in self._dsl:
            registrar.register_dsl(entry.name, entry.function, site=entry.site)
            if entry.builder:
                namespace, _, short = entry.name.rpartition(".")
                registrar.register_builder(namespace, short, entry.function, site=entry.site)


def _has_namespace(name: str | None) -> bool:
    """`tile.load` has an IR builder module (`tile_ops`); `add` and `pld.system.notify` do not."""
    return name is not None and name.count(".") == 1
