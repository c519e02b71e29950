"""IR properties: an open set of names, each with an optional verifier (docs/architecture.md, properties and verifiers).

`IRProperty.SSAForm` and friends exist from the start (PyPTO's list, plus the split passes' additions; docs/reference/properties.md);
plugins may define more with `IRProperty.define(name)`. The canonical order (used when printing a
set) is the order of definition.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar


class _PropertyMeta(type):
    def __getattr__(cls, name: str) -> IRProperty:
        if name.startswith("_"):
            raise AttributeError(name)
        prop = cls._by_name.get(name)  # type: ignore[attr-defined]
        if prop is None:
            raise AttributeError(f"IRProperty has no member '{name}'")
        return prop

    def __iter__(cls):  # type: ignore[no-untyped-def]
        return iter(list(cls._by_name.values()))  # type: ignore[attr-defined]

    def __len__(cls) -> int:
        return len(cls._by_name)  # type: ignore[attr-defined]

    @property
    def __members__(cls) -> dict[str, IRProperty]:
        return dict(cls._by_name)  # type: ignore[attr-defined]


class IRProperty(metaclass=_PropertyMeta):
    """A named IR property. Instances are interned: compare with `is` or `==`."""

    _by_name: ClassVar[dict[str, IRProperty]] = {}
    __slots__ = ("name", "value", "doc")

    def __init__(self, name: str, value: int, doc: str) -> None:
        self.name = name
        self.value = value
        self.doc = doc

    @classmethod
    def define(cls, name: str, doc: str = "") -> IRProperty:
        """The property called `name`, created on first use (plugins add their own)."""
        prop = cls._by_name.get(name)
        if prop is None:
            if not name.isidentifier():
                raise ValueError(f"an IR property name must be an identifier, got {name!r}")
            prop = cls(name, len(cls._by_name), doc)
            cls._by_name[name] = prop
        elif doc and not prop.doc:
            prop.doc = doc
        return prop

    @classmethod
    def lookup(cls, name: str) -> IRProperty | None:
        return cls._by_name.get(name)

    def __repr__(self) -> str:
        return f"IRProperty.{self.name}"

    def __str__(self) -> str:
        return self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __lt__(self, other: IRProperty) -> bool:
        return self.value < other.value


_BUILTIN = (
    "SSAForm TypeChecked NoNestedCalls NormalizedStmtStructure NoRedundantBlocks SplitIncoreOrch HasMemRefs "
    "IncoreTileOps AllocatedMemoryAddr MixedKernelExpanded ClusterOutlined HierarchyOutlined TileOps2D "
    "TileMemoryInferred BreakContinueValid UseAfterDef StructuredCtrlFlow VectorKernelSplit OutParamNotShadowed "
    "NoNestedInCore InOutUseValid PipelineLoopValid PipelineResolved UnrollResolved CallDirectionsResolved "
    "TileTypeCoherence InlineFunctionsEliminated OrchestrationReferencesResolved TensorViewCanonical "
    "ArrayNotEscaped CommDomainScopesMaterialized DistTensorCtxMaterialized RuntimeScopesMaterialized "
    "AssignTypeSymmetry ManualDepsOnSubmitOnly ReturnParamsExplicit AivSplitValid IterArgCarryClassified "
    "AccToGmStoreValid AtomicAddDtypeValid HardSyncallOccupancyValid AivSplitLoweredValid NoScalarKernelReturn"
).split()
for _name in _BUILTIN:
    IRProperty.define(_name)
BUILTIN_PROPERTIES: frozenset[str] = frozenset(_BUILTIN)  # PyPTO's own names, defined whatever plugins load


class IRPropertySet:
    """A set of properties, printed in canonical order: `{SSAForm, NoNestedInCore}`. Unhashable."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, props: Iterable[IRProperty | str] = ()) -> None:
        self._props: set[IRProperty] = set()
        for p in props:
            self.insert(p)

    @staticmethod
    def _as_prop(p: IRProperty | str) -> IRProperty:
        if isinstance(p, IRProperty):
            return p
        prop = IRProperty.lookup(p)
        if prop is None:
            raise ValueError(f"unknown IR property '{p}'")
        return prop

    def insert(self, p: IRProperty | str) -> None:
        self._props.add(self._as_prop(p))

    def remove(self, p: IRProperty | str) -> None:
        self._props.discard(self._as_prop(p))

    def contains(self, p: IRProperty | str) -> bool:
        return self._as_prop(p) in self._props

    __contains__ = contains

    def contains_all(self, other: IRPropertySet) -> bool:
        return other._props <= self._props

    def union_with(self, other: IRPropertySet) -> IRPropertySet:
        return IRPropertySet(self._props | other._props)

    def intersection(self, other: IRPropertySet) -> IRPropertySet:
        return IRPropertySet(self._props & other._props)

    def difference(self, other: IRPropertySet) -> IRPropertySet:
        return IRPropertySet(self._props - other._props)

    def empty(self) -> bool:
        return not self._props

    def to_list(self) -> list[IRProperty]:
        return sorted(self._props)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.to_list())

    def __len__(self) -> int:
        return len(self._props)

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, IRPropertySet):
            return self._props == other._props
        return NotImplemented

    def __str__(self) -> str:
        return "{" + ", ".join(p.name for p in self.to_list()) + "}"

    __repr__ = __str__

    def copy(self) -> IRPropertySet:
        return IRPropertySet(self._props)


def prop_set(*names: str | IRProperty) -> IRPropertySet:
    return IRPropertySet(names)
