"""The object a plugin's hooks receive: every registration goes through it and records its owner."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from pypto_core.ops.places import caller_site, function_site
from pypto_core.ops.registry import raw_registry

if TYPE_CHECKING:
    from pypto_core.backend.backend import Backend
    from pypto_core.ops.family import OpFamily
    from pypto_core.ops.interfaces import OpInterface
    from pypto_core.ops.opdef import OpDef
    from pypto_core.passes.pass_base import Pass

CORE_OWNER = "<core>"


class Registrar:
    def __init__(self, owner: str, record: dict[str, list[str]] | None = None) -> None:
        self.owner = owner
        self.record = record if record is not None else {}

    def _note(self, kind: str, name: str) -> None:
        self.record.setdefault(kind, []).append(name)

    # -- ops -----------------------------------------------------------------------------------
    def register_family(self, family: OpFamily) -> None:
        """Every op of an OpFamily with its semantics, interface implementations and DSL names."""
        family.register(self)

    def register_op(self, opdef: OpDef) -> None:
        raw_registry().register_op(opdef, self.owner)
        self._note("ops", opdef.name)

    def register_semantics(self, op_name: str, evaluate: Callable[..., Any], site: str | None = None) -> None:
        """The numpy semantics (`evaluate`) of an op registered earlier."""
        raw_registry().register_semantics(op_name, evaluate, self.owner, _site(site, evaluate))
        self._note("semantics", op_name)

    def defer_semantics(self, module: str, op_names: Sequence[str] = ()) -> None:
        """A semantics module (pypto_core/ops/semantics_module.py) imported when the machine first runs an op;
        `op_names` are the ops it covers (a second semantics for one of them is a clash at registration)."""
        raw_registry().defer_semantics(module, self.owner, caller_site(), op_names)
        self._note("semantics modules", module)

    def register_dsl(self, name: str, function: Callable[..., Any], site: str | None = None) -> None:
        """A `pl` DSL name (`tile.load`, `add`) and the function the parser calls for it."""
        raw_registry().register_dsl(name, function, self.owner, _site(site, function))
        self._note("dsl", name)

    def register_builder(self, namespace: str, name: str, function: Callable[..., Any],
                         site: str | None = None) -> None:
        """An IR builder reachable as `pypto.ir.op.<namespace>_ops.<name>` (e.g. `T.load`)."""
        raw_registry().register_builder(namespace, name, function, self.owner, _site(site, function))
        self._note("builders", f"{namespace}.{name}")

    def declare_interface(self, interface: OpInterface) -> None:
        """An op interface a pass of this plugin asks (pypto_core/ops/interfaces.py)."""
        raw_registry().declare_interface(interface, self.owner, caller_site())
        self._note("interfaces", interface.name)

    def implement(self, interface: str, op_name: str, implementation: Any, site: str | None = None) -> None:
        """`op_name`'s implementation of the op interface `interface`."""
        raw_registry().implement(interface, op_name, implementation, self.owner, _site(site, implementation))
        self._note("implementations", f"{interface}:{op_name}")

    # -- properties, passes, backends, pipelines ----------------------------------------------
    def register_property(self, name: str, verifier: Callable[..., Any] | None = None, doc: str = "") -> None:
        from pypto_core.passes.verifier_registry import register_property

        register_property(name, verifier, doc, owner=self.owner)
        self._note("properties", name)

    def register_pass(self, pass_cls: type[Pass]) -> None:
        from pypto_core.passes.registry import PASSES

        PASSES.register(pass_cls.factory_name, pass_cls, self.owner)
        self._note("passes", pass_cls.factory_name)

    def register_passes_attribute(self, name: str, value: object) -> None:
        """`pypto.passes.<name>`: a value this plugin publishes in the passes namespace (a helper module the
        plugin's passes use and tests call directly, such as PyPTO's `passes.l0_tile_chooser`)."""
        from pypto_core.passes.registry import PASSES_NAMESPACE

        PASSES_NAMESPACE.register(name, value, self.owner)
        self._note("passes attributes", name)

    def register_testing_attribute(self, name: str, value: object) -> None:
        """`pypto.testing.<name>`: a test-facing helper this plugin publishes (PyPTO's `pypto.testing` functions)."""
        from pypto_core.passes.registry import TESTING_NAMESPACE

        TESTING_NAMESPACE.register(name, value, self.owner)
        self._note("testing attributes", name)

    def register_backend(self, backend: Backend) -> None:
        from pypto_core.backend.registry import BACKENDS

        BACKENDS.register(backend.name, backend, self.owner)
        self._note("backends", backend.name)

    def register_pipeline(self, name: str, passes: Sequence[str]) -> None:
        from pypto_core.passes.registry import PIPELINES

        PIPELINES.register(name, list(passes), self.owner)
        self._note("pipelines", name)


def _site(site: str | None, obj: Any) -> str:
    """The given definition site, else the function's own, else the registering statement's."""
    if site is not None:
        return site
    return (function_site(obj) if callable(obj) else "") or caller_site()


def _named_registries() -> list[Any]:
    from pypto_core.backend.registry import BACKENDS
    from pypto_core.passes.registry import PASSES, PASSES_NAMESPACE, PIPELINES, TESTING_NAMESPACE
    from pypto_core.passes.verifier_registry import PROPERTY_INFO

    return [PASSES, PIPELINES, PASSES_NAMESPACE, TESTING_NAMESPACE, BACKENDS, PROPERTY_INFO]


def rollback_owner(owner: str) -> None:
    """Undo everything one plugin registered."""
    raw_registry().unregister_owner(owner)
    for named in _named_registries():
        named.unregister_owner(owner)


def clear_plugin_registrations() -> None:
    """Forget every plugin's registrations (core-owned entries stay)."""
    raw_registry().clear()
    for named in _named_registries():
        named.clear(keep_owner=CORE_OWNER)
