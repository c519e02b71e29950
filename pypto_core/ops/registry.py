"""The op registry: OpDefs, the `pl` DSL names and the IR builder modules, filled by plugins.

The core registers no op of its own. Plugins receive an `OpRegistrar` in their
`pypto_register_ops` hook; the plugin host makes sure plugins are loaded before the first lookup.
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
from pypto_core.ops.opdef import OpDef

DslFunction = Callable[..., Any]


class DuplicateRegistrationError(ValueError):
    """A plugin registered a name another plugin already owns."""

    def __init__(self, kind: str, name: str, owner: str, new_owner: str) -> None:
        self.kind, self.name, self.owner, self.new_owner = kind, name, owner, new_owner
        super().__init__(f"{kind} '{name}' is registered by both '{owner}' and '{new_owner}'")


@dataclass(frozen=True)
class DslEntry:
    """A name of the `pl` DSL (`tile.load`, `add`, `system.reserve_buffer`) and the function behind it."""

    name: str
    function: DslFunction
    owner: str


class OpRegistry:
    def __init__(self) -> None:
        self.ops: dict[str, OpDef] = {}
        self.op_owners: dict[str, str] = {}
        self.dsl: dict[str, DslEntry] = {}
        self.builders: dict[str, dict[str, DslFunction]] = {}
        self.builder_owners: dict[tuple[str, str], str] = {}
        self._op_handles: dict[str, Op] = {}

    # -- registration ------------------------------------------------------------------------
    def register_op(self, opdef: OpDef, owner: str = "<unknown>") -> None:
        if opdef.name in self.ops:
            raise DuplicateRegistrationError("op", opdef.name, self.op_owners[opdef.name], owner)
        self.ops[opdef.name] = opdef
        self.op_owners[opdef.name] = owner

    def register_dsl(self, name: str, function: DslFunction, owner: str = "<unknown>") -> None:
        if name in self.dsl:
            raise DuplicateRegistrationError("DSL name", f"pl.{name}", self.dsl[name].owner, owner)
        self.dsl[name] = DslEntry(name, function, owner)

    def register_builder(self, namespace: str, name: str, function: DslFunction, owner: str = "<unknown>") -> None:
        table = self.builders.setdefault(namespace, {})
        if name in table:
            raise DuplicateRegistrationError("IR builder", f"{namespace}.{name}",
                                             self.builder_owners[(namespace, name)], owner)
        table[name] = function
        self.builder_owners[(namespace, name)] = owner

    def unregister_owner(self, owner: str) -> None:
        """Drop everything one plugin registered (a plugin that failed half way)."""
        for name in [n for n, o in self.op_owners.items() if o == owner]:
            del self.ops[name]
            del self.op_owners[name]
            self._op_handles.pop(name, None)
        for name in [n for n, e in self.dsl.items() if e.owner == owner]:
            del self.dsl[name]
        for key in [k for k, o in self.builder_owners.items() if o == owner]:
            del self.builders[key[0]][key[1]]
            del self.builder_owners[key]

    def clear(self) -> None:
        self.ops.clear()
        self.op_owners.clear()
        self.dsl.clear()
        self.builders.clear()
        self.builder_owners.clear()
        self._op_handles.clear()

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


_REGISTRY = OpRegistry()


def raw_registry() -> OpRegistry:
    """The registry without triggering plugin loading (for the plugin host itself)."""
    return _REGISTRY


_host: Any = None  # pypto_core.plugins.host, imported on first use (it imports this module)


def op_registry() -> OpRegistry:
    """The registry with every enabled plugin loaded."""
    global _host
    if _host is None:
        from pypto_core.plugins import host

        _host = host
    if _host._HOST is None:  # loaded once; this lookup is hot
        _host.ensure_plugins_loaded()
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
