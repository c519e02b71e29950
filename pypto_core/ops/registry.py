"""The op registry: OpDefs, their semantics, the `pl` DSL names, the IR builder modules and the op
interface table, filled by plugins.

The core registers no op of its own. Plugins receive an `OpRegistrar` in their
`pypto_register_ops` hook; the plugin host makes sure plugins are loaded before the first lookup.
Every name is registered once: a second registration of an op, a DSL name, a builder, a semantics or
an interface implementation is a `DuplicateRegistrationError` naming both owners and both places.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pypto_core.errors import InternalError
from pypto_core.ir.expr import Call, Expr, Op
from pypto_core.ir.limits import MAX_DIM, MIN_DIM, out_of_range_dim, out_of_range_valid
from pypto_core.ir.span import Span
from pypto_core.ir.types import TileType, Type
from pypto_core.ops.interfaces import MissingImplementationError, OpInterface
from pypto_core.ops.opdef import OpDef, registered_evaluate
from pypto_core.ops.places import Place
from pypto_core.plugins.lazy import plugins_loaded

DslFunction = Callable[..., Any]


class DuplicateRegistrationError(ValueError):
    """A name registered twice: by two plugins, or twice by one."""

    def __init__(self, kind: str, name: str, owner: str | Place, new_owner: str | Place) -> None:
        first = owner if isinstance(owner, Place) else Place(owner)
        second = new_owner if isinstance(new_owner, Place) else Place(new_owner)
        self.kind, self.name, self.owner, self.new_owner = kind, name, first.owner, second.owner
        self.first, self.second = first, second
        sites = ""
        if first.site or second.site:
            sites = f" (first at {first.site or 'an unknown place'}, again at {second.site or 'an unknown place'})"
        super().__init__(f"{kind} '{name}' is registered by both '{first.owner}' and '{second.owner}'{sites}")


@dataclass(frozen=True)
class DslEntry:
    """A name of the `pl` DSL (`tile.load`, `add`, `system.reserve_buffer`) and the function behind it."""

    name: str
    function: DslFunction
    owner: str
    site: str = ""


@dataclass(frozen=True)
class DeferredSemantics:
    """A family's semantics module, imported when an OpDef's evaluate is first asked for."""

    module: str
    owner: str
    site: str = ""
    op_names: frozenset[str] = frozenset()  # the family's ops, whose semantics the module is expected to hold


class OpRegistry:
    def __init__(self) -> None:
        self.ops: dict[str, OpDef] = {}
        self.op_places: dict[str, Place] = {}
        self.semantics_places: dict[str, Place] = {}
        self.dsl: dict[str, DslEntry] = {}
        self.builders: dict[str, dict[str, DslFunction]] = {}
        self.builder_places: dict[tuple[str, str], Place] = {}
        self.interfaces: dict[str, OpInterface] = {}
        self.interface_places: dict[str, Place] = {}
        # interface name -> op name -> implementation; the places keyed (interface, op).
        self.impls: dict[str, dict[str, Any]] = {}
        self.impl_places: dict[tuple[str, str], Place] = {}
        self._op_handles: dict[str, Op] = {}
        # Semantics modules registered but not imported yet (pypto_core/ops/semantics_module.py).
        self.deferred_semantics: list[DeferredSemantics] = []

    @property
    def op_owners(self) -> dict[str, str]:
        return {name: place.owner for name, place in self.op_places.items()}

    # -- registration ------------------------------------------------------------------------
    def register_op(self, opdef: OpDef, owner: str = "<unknown>", site: str | None = None) -> None:
        place = Place(owner, opdef.defined_at if site is None else site)
        if opdef.name in self.ops:
            raise DuplicateRegistrationError("op", opdef.name, self.op_places[opdef.name], place)
        self.ops[opdef.name] = opdef
        self.op_places[opdef.name] = place
        if registered_evaluate(opdef) is not None:
            self.semantics_places[opdef.name] = place

    def register_semantics(self, op_name: str, evaluate: Callable[..., Any], owner: str = "<unknown>",
                           site: str = "") -> None:
        """The numpy semantics of a registered op (its OpDef's `evaluate`)."""
        opdef = self.ops.get(op_name)
        if opdef is None:
            raise ValueError(f"semantics for op '{op_name}' ({site or owner}), which no plugin has registered; "
                             f"register the op first")
        place = Place(owner, site)
        if registered_evaluate(opdef) is None and any(op_name in d.op_names for d in self.deferred_semantics):
            # A second semantics for an op a deferred module covers: load that module now, so the clash is
            # reported at registration, as with semantics registered beside their op.
            self.load_deferred_semantics(op_name)
        if registered_evaluate(opdef) is not None:
            raise DuplicateRegistrationError("semantics of op", op_name,
                                             self.semantics_places.get(op_name, self.op_places[op_name]), place)
        opdef.evaluate = evaluate
        self.semantics_places[op_name] = place

    def defer_semantics(self, module: str, owner: str = "<unknown>", site: str = "",
                        op_names: Sequence[str] = ()) -> None:
        """A semantics module whose table registers on first execution, not now (numpy and the machine stay
        unimported in a process that only compiles). `op_names`: the ops it covers, for clash checks."""
        self.deferred_semantics.append(DeferredSemantics(module, owner, site, frozenset(op_names)))

    def load_deferred_semantics(self, op_name: str | None = None) -> None:
        """Import the deferred semantics modules (those covering `op_name`, or all) and register each table
        under its plugin."""
        from pypto_core.ops.semantics_module import semantics_table

        while True:
            deferred = next((d for d in self.deferred_semantics if op_name is None or op_name in d.op_names), None)
            if deferred is None:
                return
            self.deferred_semantics.remove(deferred)
            for name, evaluate, site in semantics_table(deferred.module, deferred.owner).entries:
                self.register_semantics(name, evaluate, deferred.owner, site)

    def register_dsl(self, name: str, function: DslFunction, owner: str = "<unknown>", site: str = "") -> None:
        if name in self.dsl:
            first = self.dsl[name]
            raise DuplicateRegistrationError("DSL name", f"pl.{name}", Place(first.owner, first.site),
                                             Place(owner, site))
        self.dsl[name] = DslEntry(name, function, owner, site)

    def register_builder(self, namespace: str, name: str, function: DslFunction, owner: str = "<unknown>",
                         site: str = "") -> None:
        table = self.builders.setdefault(namespace, {})
        if name in table:
            raise DuplicateRegistrationError("IR builder", f"{namespace}.{name}",
                                             self.builder_places[(namespace, name)], Place(owner, site))
        table[name] = function
        self.builder_places[(namespace, name)] = Place(owner, site)

    def declare_interface(self, interface: OpInterface, owner: str = "<unknown>", site: str = "") -> None:
        """A pass plugin declares an interface it asks of ops (pypto_core/ops/interfaces.py)."""
        if interface.name in self.interfaces:
            raise DuplicateRegistrationError("op interface", interface.name,
                                             self.interface_places[interface.name], Place(owner, site))
        self.interfaces[interface.name] = interface
        self.interface_places[interface.name] = Place(owner, site)

    def implement(self, interface: str, op_name: str, implementation: Any, owner: str = "<unknown>",
                  site: str = "") -> None:
        """`op_name`'s implementation of `interface` (the op may be registered by another plugin)."""
        table = self.impls.setdefault(interface, {})
        if op_name in table:
            raise DuplicateRegistrationError(f"'{interface}' implementation of op", op_name,
                                             self.impl_places[(interface, op_name)], Place(owner, site))
        table[op_name] = implementation
        self.impl_places[(interface, op_name)] = Place(owner, site)

    def unregister_owner(self, owner: str) -> None:
        """Drop everything one plugin registered (a plugin that failed half way)."""
        self._detach_semantics([n for n, p in self.op_places.items() if p.owner == owner])
        for name in [n for n, p in self.op_places.items() if p.owner == owner]:
            del self.ops[name]
            del self.op_places[name]
            self.semantics_places.pop(name, None)
            self._op_handles.pop(name, None)
        self._detach_semantics([n for n, p in self.semantics_places.items() if p.owner == owner])
        for name in [n for n, e in self.dsl.items() if e.owner == owner]:
            del self.dsl[name]
        for key in [k for k, p in self.builder_places.items() if p.owner == owner]:
            del self.builders[key[0]][key[1]]
            del self.builder_places[key]
        for name in [n for n, p in self.interface_places.items() if p.owner == owner]:
            del self.interfaces[name]
            del self.interface_places[name]
        for key in [k for k, p in self.impl_places.items() if p.owner == owner]:
            del self.impls[key[0]][key[1]]
            del self.impl_places[key]
        self.deferred_semantics = [d for d in self.deferred_semantics if d.owner != owner]

    def clear(self) -> None:
        self._detach_semantics(list(self.semantics_places))
        for table in (self.ops, self.op_places, self.semantics_places, self.dsl, self.builders,
                      self.builder_places, self.interfaces, self.interface_places, self.impls, self.impl_places,
                      self._op_handles):
            table.clear()
        self.deferred_semantics.clear()

    def _detach_semantics(self, names: list[str]) -> None:
        """Take semantics registered beside an op off its OpDef again: the plugin's OpDef object is
        registered anew on the next load, with its own semantics registered anew too."""
        for name in names:
            place = self.semantics_places.pop(name, None)
            opdef = self.ops.get(name)
            if place is not None and opdef is not None and place != self.op_places.get(name):
                opdef.evaluate = None

    # -- lookup ------------------------------------------------------------------------------
    def get_opdef(self, name: str) -> OpDef:
        opdef = self.ops.get(name)
        if opdef is None:
            from pypto_core.plugins.host import unavailable_provider_note

            hint = difflib.get_close_matches(name, list(self.ops), n=1)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
            raise ValueError(f"op '{name}' is not registered{suggestion}{unavailable_provider_note('ops', name)}")
        return opdef

    def find_opdef(self, name: str) -> OpDef | None:
        return self.ops.get(name)

    def get_op(self, name: str) -> Op:
        handle = self._op_handles.get(name)
        if handle is None:
            self.get_opdef(name)
            handle = self._op_handles[name] = Op(name)
        return handle

    # -- the interface table -------------------------------------------------------------------
    def implementation(self, interface: str, op_name: str) -> Any | None:
        """`op_name`'s implementation of `interface`, or None (what None means, the interface says)."""
        table = self.impls.get(interface)
        return table.get(op_name) if table is not None else None

    def implementations(self, interface: str) -> dict[str, Any]:
        return dict(self.impls.get(interface, {}))

    def interfaces_of(self, op_name: str) -> list[str]:
        """The interfaces `op_name` implements, sorted."""
        return sorted(name for name, table in self.impls.items() if op_name in table)

    def require_implementation(self, interface: str, op_name: str, span: Span | None = None) -> Any:
        """`op_name`'s implementation of `interface`; a missing one is the one error every pass gives."""
        found = self.implementation(interface, op_name)
        if found is not None:
            return found
        raise MissingImplementationError(self.missing_implementation_message(interface, op_name), span)

    def missing_implementation_message(self, interface: str, op_name: str) -> str:
        declared = self.interfaces.get(interface)
        what = f" ({declared.doc.rstrip('.')})" if declared is not None and declared.doc else ""
        message = f"op '{op_name}' does not implement the op interface '{interface}'{what}"
        if declared is not None and declared.missing:
            message += f": {declared.missing}"
        others = [name for name in self.interfaces_of(op_name) if name not in self.interfaces]
        close = difflib.get_close_matches(interface, others, n=1)
        if close:
            owner = self.impl_places[(close[0], op_name)]
            message += (f"; {owner} implements '{close[0]}' for it, an interface no plugin declares "
                        f"(a misspelling of '{interface}'?)")
        return message


_REGISTRY = OpRegistry()


def raw_registry() -> OpRegistry:
    """The registry without triggering plugin loading (for the plugin host itself)."""
    return _REGISTRY


def op_registry() -> OpRegistry:
    """The registry with every enabled plugin loaded."""
    plugins_loaded()
    return _REGISTRY


def get_opdef(name: str) -> OpDef:
    return op_registry().get_opdef(name)


def find_opdef(name: str) -> OpDef | None:
    return op_registry().find_opdef(name)


def opdef_of(call: Expr) -> OpDef | None:
    """The OpDef of an op Call (None for calls of functions and for non-calls)."""
    if isinstance(call, Call) and type(call.op) is Op:
        return op_registry().find_opdef(call.op.name)
    return None


def get_op(name: str) -> Op:
    return op_registry().get_op(name)


def is_op_registered(name: str) -> bool:
    return name in op_registry().ops


def apply_output_memory(opdef: OpDef, result: Type, args: Sequence[Expr], kwargs: Mapping[str, Any]) -> Type:
    """Stamp the registry's output-memory declaration on a TileType result with no space yet."""
    if opdef.output_memory is None or not isinstance(result, TileType) or result.memory_space is not None:
        return result
    space = opdef.output_memory.resolve(args, kwargs)
    if space is None:
        return result
    return TileType(result.shape, result.dtype, result.memref, result.tile_view, space)


def create_op_call(op_name: str, args: Sequence[Expr], *rest: Any, span: Span | None = None,
                   kwargs: Mapping[str, Any] | Sequence[tuple[str, Any]] | None = None) -> Call:
    """Build a Call: look the op up, check its signature, deduce and stamp its type (docs/plugins.md, OpDef fields).

    Forms: create_op_call(name, args, span) and create_op_call(name, args, kwargs, span).
    """
    for item in rest:
        if isinstance(item, Span):
            span = item
        elif item is not None:
            kwargs = item
    kw: dict[str, Any] = {}
    if kwargs:
        # Int-valued enums (SplitMode, AtomicType, PipeType) are stored as plain ints (docs/plugins.md, OpDef fields).
        for k, v in (kwargs if isinstance(kwargs, Mapping) else dict(kwargs)).items():
            kw[k] = int(v) if isinstance(v, enum.IntEnum) else v
    registry = op_registry()
    opdef = registry.ops.get(op_name) or registry.get_opdef(op_name)  # the method explains a missing op
    args = list(args)
    for i, a in enumerate(args):
        if not isinstance(a, Expr):
            raise TypeError(f"{op_name}: argument {i} must be an IR expression, got {type(a).__name__}")
    opdef.check_signature(args, kw)
    for spec in opdef.recorded_kwargs:
        if spec.name not in kw:
            kw[spec.name] = spec.default
    result = opdef.deduce_type(args, kw)
    if not isinstance(result, Type):
        raise InternalError(f"type deducer of {op_name} returned {type(result).__name__}, not a Type")
    bad = out_of_range_dim(result)
    if bad is not None:
        raise ValueError(f"{op_name}: the result would have a dimension of {bad}, outside {MIN_DIM}..{MAX_DIM}; check the "
                         f"shape operands")
    bad = out_of_range_valid(result)
    if bad is not None:
        raise ValueError(f"{op_name}: the result would have a valid extent of {bad}, outside 0..{MAX_DIM}; check the "
                         f"valid_shape operands")
    if opdef.output_memory is not None:
        result = apply_output_memory(opdef, result, args, kw)
    op = registry._op_handles.get(op_name) or registry.get_op(op_name)  # get_op makes the first handle
    return Call(op, args, kwargs=kw, type=result, span=span or Span.unknown())


def set_call_attrs(call: Call, attrs: Mapping[str, Any]) -> Call:
    return call.with_fields(attrs=dict(attrs))  # type: ignore[return-value]


def rededuce_call(call: Call, args: Sequence[Expr] | None = None) -> Call:
    """Rebuild an op call (e.g. with substituted arguments), deducing its type again."""
    new_args = list(call.args if args is None else args)
    rebuilt = create_op_call(call.op.name, new_args, dict(call.kwargs), span=call.span)
    if call.attrs:
        rebuilt = set_call_attrs(rebuilt, call.attrs)
    return rebuilt
