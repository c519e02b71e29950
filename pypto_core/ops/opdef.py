"""OpDef: everything the compiler may ask about an op, declared as data (docs/architecture.md, the op registry).

Passes never keep lists of op names: they ask an OpDef about argument effects, lane-invariant
arguments, core affinity, output memory, cross-core role and the traits below.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pypto_core.ir.enums import MemorySpace
from pypto_core.ops.places import caller_site

if TYPE_CHECKING:
    from pypto_core.ir.expr import Call, Expr
    from pypto_core.ir.types import Type


class Effect(enum.Enum):
    """What an op does to an argument (docs/passes/outline_incore_scopes.md, parameters)."""

    READ = "Read"
    WRITE = "Write"  # writes a sub-region in place; not a read of the operand
    READ_WRITE = "ReadWrite"  # e.g. an atomic accumulate: reads the destination too


class LaneCategory(enum.Enum):
    """Why an operand may stay full width when the vector work is split (docs/passes/lower_auto_vector_split.md, when a halved call is sound)."""

    SCRATCH = "Scratch"
    INDEX_ADDRESSED_SOURCE = "IndexAddressedSource"
    ABSOLUTE_INDEXED_DESTINATION = "AbsoluteIndexedDestination"

    @property
    def producer_may_be_halved(self) -> bool:
        """A Scratch operand may be halved with its input; absolute-index operands may not."""
        return self is LaneCategory.SCRATCH


class CoreAffinity(enum.Enum):
    CUBE = "CUBE"
    VECTOR = "VECTOR"
    SHARED = "SHARED"
    MIXED = "MIXED"


class CrossCoreRole(enum.Enum):
    PUSH = "push"
    POP = "pop"
    FREE = "free"
    PIPE_SETUP = "pipe_setup"


@dataclass(frozen=True)
class ArgSpec:
    """A positional argument. Optional ones may only trail the required ones."""

    name: str
    optional: bool = False
    doc: str = ""
    # An enum whose member a constant operand stands for: the printer writes the member (`pl.Mem.Vec` for
    # tile.alloc's int memory space, docs/memory_planning.md), the parser reads it back as the int.
    enum: type | None = None


_NO_DEFAULT = object()


@dataclass(frozen=True)
class KwargSpec:
    """A keyword argument with the Python types its value may have and its default."""

    name: str
    types: tuple[type, ...]
    default: Any = None
    required: bool = False
    doc: str = ""
    choices: tuple[Any, ...] = ()
    # Absent means "decided later" (a tile.load / tile.create whose memory InferTileMemorySpace picks):
    # the DSL spells the absence `name=None`, so a deferred call prints and re-parses as itself.
    deferred: bool = False
    # Always present on a call: the DSL records it even when not written (`mode` of cast, `layout` of
    # tensor.create), so create_op_call fills the default in and a pass builds the same call the DSL does.
    recorded: bool = False

    def check(self, op_name: str, value: Any) -> None:
        # bool is an int subclass: an int kwarg must not silently accept True.
        ok = isinstance(value, self.types) and not (isinstance(value, bool) and bool not in self.types)
        if not ok:
            allowed = " or ".join(t.__name__ for t in self.types)
            raise TypeError(f"{op_name}: keyword '{self.name}' must be {allowed}, got "
                            f"{type(value).__name__} {value!r}")
        if self.choices and value not in self.choices:
            raise ValueError(f"{op_name}: keyword '{self.name}' must be one of "
                             f"{', '.join(map(_show_choice, self.choices))}, got {_show_choice(value)}")


def _show_choice(v: Any) -> str:
    if isinstance(v, enum.Enum):
        return f"{type(v).__name__}.{v.name}"
    return repr(v)


@dataclass(frozen=True)
class OutputMemory:
    """Where a TileType result lives: a fixed space, the value of a kwarg, or an input's space.

    An op whose space comes `from_kwarg` is retargetable: InferTileMemorySpace may rewrite the kwarg.
    With no `kwarg_default`, a call without the kwarg leaves the space unset until that pass.
    """

    fixed: MemorySpace | None = None
    from_kwarg: str | None = None
    inherit_input: int | None = None
    kwarg_default: MemorySpace | None = None

    def resolve(self, args: Sequence[Expr], kwargs: Mapping[str, Any]) -> MemorySpace | None:
        if self.fixed is not None:
            return self.fixed
        if self.from_kwarg is not None:
            value = kwargs.get(self.from_kwarg, self.kwarg_default)
            return value if isinstance(value, MemorySpace) else None
        if self.inherit_input is not None and self.inherit_input < len(args):
            return getattr(args[self.inherit_input].type, "memory_space", None)
        return None


@dataclass(frozen=True)
class OpTraits:
    """Facts the split passes ask about instead of hard-coding op names (docs/passes/lower_auto_vector_split.md)."""

    # Axes a reduction collapses (col_* -> (0,), row_* -> (1,)); empty for non-reductions.
    reduction_axes: tuple[int, ...] = ()
    # Generated values depend on the element position (tile.ci, tile.random).
    positional_generator: bool = False
    # A pure generator reads no tile and no memory (tile.full, tile.ci, tile.random, tile.create).
    pure_generator: bool = False
    # Positional arguments that carry *read* addresses (tile.load: (1,), tile.gather_row: (3,)).
    read_address_args: tuple[int, ...] = ()
    # The op's operands describe a shape it builds (tile.full, tile.create, tile.slice, tile.reshape, ...).
    shape_describing: bool = False
    # Positional arguments that are shapes / offsets (MakeTuple of dims), for halving and printing.
    shape_args: tuple[int, ...] = ()
    # The op returns the extent of operand 0 along the constant axis operand 1 (tensor.dim).
    extent_query: bool = False
    # A split region's boundary (docs/passes/lower_auto_vector_split.md): "c2v" hands a cube tile to the AIV lanes (aiv_shard), "v2c"
    # hands the lanes' halves back to the cube (aic_gather).
    split_boundary: str | None = None
    # A DMA between a GM tensor and a tile and nothing else (tile.load, tile.store, pld.tile.put): the
    # transfers the compiler materialises outside split regions (docs/passes/lower_auto_vector_split.md, outside the regions).
    gm_transfer: bool = False
    # The op returns the AIV lane index (tile.get_subblock_idx): a region binds its `aiv_id` with it.
    lane_index: bool = False
    # Positional arguments holding the two constant axes the op swaps (tile.transpose: (1, 2)); a swap of
    # the split axis is a hazard for a split function (docs/passes/lower_auto_vector_split.md, transpose hazard).
    swapped_axes_args: tuple[int, ...] = ()
    # The result may share operand 0's buffer (a view, or a move the backend may elide): a popped tile's
    # FIFO slot stays in use until such results are dead too (ExpandMixedKernel's tfree placement).
    aliases_operand: bool = False
    # Memory planning (docs/memory_planning.md). `buffer_view`: the result lives in operand 0's buffer (PyPTO:
    # "output memory inherits input"): "window" at an offset its operands give (a slice), "relabel" the same
    # bytes with only the valid region changed, "view" the same bytes read with another shape / dtype / layout.
    buffer_view: str = ""
    # The result is written into operand k's buffer (destination passing: tile.store's tensor, matmul_acc's acc).
    output_reuses_input: int | None = None
    # Operands whose buffer the result must not share: "all" (PyPTO: not in-place safe), their indices, or a
    # function (call, backend) -> "all" | indices, for ops where it depends on the call (a widening cast).
    output_must_not_alias: str | tuple[int, ...] | Callable[..., Any] = ()

    def no_alias_operands(self, call: Call, backend: Any = None) -> tuple[int, ...]:
        """The operand indices of `call` its result's buffer must not share (output_must_not_alias)."""
        rule = self.output_must_not_alias
        if callable(rule):
            rule = rule(call, backend)
        if rule == "all":
            return tuple(range(len(call.args)))
        return tuple(i for i in rule if i < len(call.args))
    # OptimizeOrchTensors (docs/passes/optimize_orch_tensors.md). `writes_window`: (target, source, offsets), the
    # operands of an op that writes `source` into a window of `target` at `offsets` (tile.store, the assembles).
    writes_window: tuple[int, int, int] | None = None
    # The result is a new buffer whose contents are undefined (tensor.create without init_value, tile.create):
    # a bool, or a function of the call.
    fresh_buffer: bool | Callable[..., bool] = False

    def is_fresh_buffer(self, call: Call) -> bool:
        """Whether `call`'s result is a new buffer with undefined contents (fresh_buffer)."""
        rule = self.fresh_buffer
        return bool(rule(call)) if callable(rule) else rule

    # The same write into a GM tensor instead of a tile (tile.assemble(target, src, off) -> tile.store(src, off,
    # target)): (that op, the argument indices it takes in order). ConvertTensorToTileOps' assemble-loop rewrite.
    gm_store: tuple[str, tuple[int, ...]] | None = None
    # The op reserves a window of on-chip bytes (its `size` kwarg, at its `base` kwarg or -1: placed by the
    # memory planner) that no tile may overlap (system.reserve_buffer; docs/memory_planning.md, overflow).
    reserves_on_chip_window: bool = False


class _Semantics:
    """`OpDef.evaluate`. Reading a missing evaluate first imports the semantics modules plugins deferred
    (pypto_core/ops/semantics_module.py): the numpy semantics load on the first execution, not with the plugins."""

    def __get__(self, opdef: OpDef | None, owner: type | None = None) -> Any:
        if opdef is None:  # the dataclass asks the class for the field's default
            return None
        value = opdef.__dict__.get("_evaluate")
        if value is None:
            from pypto_core.ops.registry import raw_registry

            registry = raw_registry()
            if registry.deferred_semantics:
                registry.load_deferred_semantics()
                value = opdef.__dict__.get("_evaluate")
        return value

    def __set__(self, opdef: OpDef, value: Any) -> None:
        opdef.__dict__["_evaluate"] = value


def registered_evaluate(opdef: OpDef) -> Any:
    """The evaluate registered so far, without loading deferred semantics (for the registry itself)."""
    return opdef.__dict__.get("_evaluate")


EffectResolver = Callable[[Mapping[str, Any]], Mapping[int, Effect]]
AffinityClassifier = Callable[["Call"], CoreAffinity]
TypeDeducer = Callable[[Sequence["Expr"], Mapping[str, Any]], "Type"]
Evaluator = Callable[..., Any]


@dataclass
class OpDef:
    """The declaration of one op. Built by plugins, registered in the OpRegistry."""

    name: str
    deduce_type: TypeDeducer
    args: tuple[ArgSpec, ...] = ()
    kwargs: tuple[KwargSpec, ...] = ()
    variadic: bool = False
    effects: Mapping[int, Effect] | EffectResolver = field(default_factory=dict)
    lane_invariant: Mapping[int, LaneCategory] = field(default_factory=dict)
    affinity: CoreAffinity | AffinityClassifier | None = None
    output_memory: OutputMemory | None = None
    # Memory spaces each tile operand may be in, preferred first (docs/plugins.md, OpDef fields). Deducers do not
    # check them: InferTileMemorySpace places operands and TileMemoryInferred reports what is misplaced.
    input_memory: Mapping[int, tuple[MemorySpace, ...]] = field(default_factory=dict)
    # A kwarg that, when given, states the lane the call runs on (`core_type` of the sync ops).
    lane_kwarg: str | None = None
    no_duplicate: bool = False
    cross_core_role: CrossCoreRole | None = None
    traits: OpTraits = field(default_factory=OpTraits)
    # The numpy semantics for the reference machine; an op family registers it beside the op
    # (pypto_core/ops/family.py). How passes rewrite the op is not a field: ops implement the
    # interfaces passes declare (pypto_core/ops/interfaces.py).
    # Read through `_Semantics`: a family's semantics module is imported when an evaluate is first asked for.
    evaluate: Evaluator | None = _Semantics()  # type: ignore[assignment]
    doc: str = ""
    # `path:line` of the statement that built this OpDef, for messages naming where an op is defined.
    defined_at: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.defined_at:
            self.defined_at = caller_site()

    # -- signature ---------------------------------------------------------------------------
    @property
    def min_args(self) -> int:
        return sum(1 for a in self.args if not a.optional)

    @property
    def max_args(self) -> int | None:
        return None if self.variadic else len(self.args)

    def kwarg_spec(self, name: str) -> KwargSpec | None:
        for k in self.kwargs:
            if k.name == name:
                return k
        return None

    @property
    def recorded_kwargs(self) -> tuple[KwargSpec, ...]:
        return tuple(k for k in self.kwargs if k.recorded)

    def kwarg(self, kwargs: Mapping[str, Any], name: str) -> Any:
        """The value of a kwarg on a call, or its declared default."""
        if name in kwargs:
            return kwargs[name]
        spec = self.kwarg_spec(name)
        if spec is None:
            raise KeyError(f"{self.name} declares no keyword '{name}'")
        return spec.default

    def check_signature(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
        """TypeError for a wrong argument count or an unknown / ill-typed / missing keyword."""
        n = len(args)
        # Every declared argument given is always in range: only other counts need the bounds.
        if n != len(self.args) and (n < self.min_args or (self.max_args is not None and n > self.max_args)):
            expected = (f"{self.min_args}" if self.max_args == self.min_args
                        else f"{self.min_args} to {self.max_args if self.max_args is not None else 'any'}")
            names = ", ".join(a.name for a in self.args)
            raise TypeError(f"{self.name} takes {expected} positional argument(s) ({names}), got {n}")
        for key, value in kwargs.items():
            spec = self.kwarg_spec(key)
            if spec is None:
                known = [k.name for k in self.kwargs]
                hint = difflib.get_close_matches(key, known, n=1)
                suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
                valid = ", ".join(known) if known else "none"
                raise TypeError(f"{self.name} got an unexpected keyword argument '{key}' (valid keywords: {valid})"
                                f"{suggestion}")
            spec.check(self.name, value)
        for spec in self.kwargs:
            if spec.required and spec.name not in kwargs:
                raise TypeError(f"{self.name} requires the keyword '{spec.name}'")

    # -- effects and lanes -------------------------------------------------------------------
    def arg_effects(self, kwargs: Mapping[str, Any]) -> Mapping[int, Effect]:
        return self.effects(kwargs) if callable(self.effects) else self.effects

    def arg_effect(self, index: int, kwargs: Mapping[str, Any]) -> Effect:
        """Undeclared arguments are read."""
        return self.arg_effects(kwargs).get(index, Effect.READ)

    def lane_category(self, index: int) -> LaneCategory | None:
        return self.lane_invariant.get(index)

    # -- memory --------------------------------------------------------------------------------
    def accepted_spaces(self, index: int) -> tuple[MemorySpace, ...] | None:
        """The spaces operand `index` may be in; None when the op does not constrain it."""
        return self.input_memory.get(index)

    @property
    def retarget_kwarg(self) -> KwargSpec | None:
        """The kwarg that sets the result's memory space (target_memory), if the op has one."""
        om = self.output_memory
        return self.kwarg_spec(om.from_kwarg) if om is not None and om.from_kwarg else None

    @property
    def is_tensor_op(self) -> bool:
        """An op of the tensor (GM-level) family: InCore functions hold none after tile lowering."""
        return self.name.startswith("tensor.")
