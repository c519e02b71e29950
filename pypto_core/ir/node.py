"""The IR node base: immutable objects whose fields are declared once, with a role.

Each node class lists its fields in `fields = (Def("var"), Usual("value"), ...)`. That single
declaration creates the slots and drives structural equality, hashing, visiting, mutation and
the generic rebuild used by mutators (docs/architecture.md, the core).

Roles:
  * Def     - the field binds variables (assign targets, params, loop vars, iter_args, return vars);
  * Usual   - compared, hashed, visited;
  * Ignored - spans, name hints, comments: carried along but never compared.
  * Walked  - visited and rebuilt by walkers, but never compared: a tile's MemRef, whose slot index may
              read a loop variable that renaming must reach, while two types that differ only in their
              MemRef stay equal (docs/memory_planning.md, MemRefs);
  * Identity - compared and hashed, but never walked: a MemRef's base Ptr, the identity of an allocation
              rather than a use of a variable.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any, ClassVar


class FieldRole(enum.Enum):
    DEF = "def"
    USUAL = "usual"
    IGNORED = "ignored"
    WALKED = "walked"
    IDENTITY = "identity"


class FieldSpec:
    __slots__ = ("name", "role")

    def __init__(self, name: str, role: FieldRole) -> None:
        self.name = name
        self.role = role

    def __repr__(self) -> str:
        return f"{self.role.value}({self.name!r})"


def Def(name: str) -> FieldSpec:  # noqa: N802 - reads as a declaration
    return FieldSpec(name, FieldRole.DEF)


def Usual(name: str) -> FieldSpec:  # noqa: N802
    return FieldSpec(name, FieldRole.USUAL)


def Ignored(name: str) -> FieldSpec:  # noqa: N802
    return FieldSpec(name, FieldRole.IGNORED)


def Walked(name: str) -> FieldSpec:  # noqa: N802
    return FieldSpec(name, FieldRole.WALKED)


def Identity(name: str) -> FieldSpec:  # noqa: N802
    return FieldSpec(name, FieldRole.IDENTITY)


_COMPARED_ROLES = (FieldRole.DEF, FieldRole.USUAL, FieldRole.IDENTITY)
_WALKED_ROLES = (FieldRole.DEF, FieldRole.USUAL, FieldRole.WALKED)

_set = object.__setattr__


class FieldSeq(tuple):  # type: ignore[type-arg]
    """A sequence field of a node (args, params, shape, return_vars, ...): immutable and hashable like a
    tuple, and equal to a list with the same items, as PyPTO's list-valued fields are
    (`f.return_types == []`, `f.param_directions == [ParamDirection.In]`)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, list):
            other = tuple(other)
        return tuple.__eq__(self, other)  # type: ignore[operator]

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        return repr(list(self))


def _field_value(value: Any) -> Any:
    return FieldSeq(value) if type(value) is tuple or type(value) is list else value


_ABSENT = object()  # a field not passed to a generated _init


def _generated_init(cls: type, setters: dict[str, Any]) -> Any:
    """`_init` of one node class written out as straight-line code, the way dataclasses write
    `__init__`: it does what the generic `IRNode._init` does (set the fields given by keyword, a tuple
    or list becoming a FieldSeq) without the loop over a kwargs dict, which costs more than the stores.
    Every node built goes through `_init`, so this is a large part of parsing time. For a class with
    fields `var` and `value` (and the inherited ones) the code reads:

        def _init(self, *, ..., var=__absent, value=__absent):
            ...
            if var is not __absent:
                __t = __type(var)
                __set_var(self, __FieldSeq(var) if __t is __tuple or __t is __list else var)
            ...
    """
    names = list(setters)  # none starts with "__", as the generated names below do
    params = "".join(f", {n}=__absent" for n in names)
    lines = [f"def _init(self, *{params}):" if names else "def _init(self):", "    pass"]
    for n in names:
        lines += [f"    if {n} is not __absent:",
                  f"        __t = __type({n})",
                  f"        __set_{n}(self, __FieldSeq({n}) if __t is __tuple or __t is __list else {n})"]
    namespace: dict[str, Any] = {"__absent": _ABSENT, "__type": type, "__tuple": tuple, "__list": list,
                                 "__FieldSeq": FieldSeq, **{f"__set_{n}": setter for n, setter in setters.items()}}
    exec("\n".join(lines), namespace)  # code built from the class's own slot names only
    init = namespace["_init"]
    init.__qualname__ = f"{cls.__name__}._init"
    return init


class _NodeMeta(type):
    """Turns the `fields` declaration into `__slots__` and the inherited FIELDS tuple."""

    def __new__(mcls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> _NodeMeta:
        own: tuple[FieldSpec, ...] = tuple(ns.pop("fields", ()))
        inherited: tuple[FieldSpec, ...] = ()
        for base in bases:
            inherited = getattr(base, "FIELDS", ()) or inherited
        ns["__slots__"] = tuple(f.name for f in own) + tuple(ns.get("extra_slots", ()))
        ns.pop("extra_slots", None)
        cls = super().__new__(mcls, name, bases, ns)
        cls.FIELDS = inherited + own
        cls.COMPARED_FIELDS = tuple(f for f in cls.FIELDS if f.role in _COMPARED_ROLES)
        cls.WALKED_NAMES = tuple(f.name for f in cls.FIELDS if f.role in _WALKED_ROLES)
        # Each slot's own setter: writes a field past the immutability guard (`__setattr__` raises) at
        # a fraction of the cost of object.__setattr__, and every node built goes through _init.
        setters: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            for slot in klass.__dict__.get("__slots__", ()):
                if not slot.startswith("__"):  # not __weakref__ / __dict__ (nor a name-mangled private slot)
                    setters[slot] = klass.__dict__[slot].__set__
        cls._SLOT_SETTERS = setters
        # Every class gets its own generated _init, except below a class that writes its own (Type).
        if "_init" in ns:
            cls._OWN_INIT = bool(bases)  # the root's generic _init is the reference the generated ones follow
        elif not getattr(cls, "_OWN_INIT", False):
            cls._init = _generated_init(cls, setters)
        return cls


class IRNode(metaclass=_NodeMeta):
    """Base of every IR object: nodes are immutable once built."""

    FIELDS: ClassVar[tuple[FieldSpec, ...]] = ()
    _SLOT_SETTERS: ClassVar[dict[str, Any]] = {}
    _OWN_INIT: ClassVar[bool] = False
    COMPARED_FIELDS: ClassVar[tuple[FieldSpec, ...]] = ()
    WALKED_NAMES: ClassVar[tuple[str, ...]] = ()  # names of the fields walkers visit, in order

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; build a new node instead")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _init(self, **values: Any) -> None:
        """Set fields by keyword (constructors only: nodes are immutable). Each subclass gets a generated
        equivalent, see `_generated_init`."""
        setters = self._SLOT_SETTERS
        for name, value in values.items():
            t = type(value)
            setters[name](self, FieldSeq(value) if t is tuple or t is list else value)

    def field_items(self) -> Iterator[tuple[FieldSpec, Any]]:
        for spec in self.FIELDS:
            yield spec, getattr(self, spec.name)

    def same_as(self, other: object) -> bool:
        return self is other

    def with_fields(self, **changes: Any) -> IRNode:
        """A copy with some fields replaced, bypassing the constructor (used by mutators)."""
        cls = type(self)
        new = cls.__new__(cls)
        for spec in cls.FIELDS:
            _set(new, spec.name, _field_value(changes.pop(spec.name)) if spec.name in changes
                 else getattr(self, spec.name))
        for slot in _extra_slots(cls):
            if hasattr(self, slot):
                _set(new, slot, getattr(self, slot))
        if changes:
            raise TypeError(f"{cls.__name__} has no field(s) {sorted(changes)}")
        return new

    def as_python(self, prefix: str = "pl", concise: bool = False, format: bool = True) -> str:
        from pypto_core.language.printer import python_print

        return python_print(self, prefix=prefix, concise=concise, format=format)

    def __copy__(self) -> IRNode:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> IRNode:
        return self

    def __reduce__(self) -> Any:
        raise TypeError("IR nodes are not picklable; print them with python_print instead")


_EXTRA_SLOTS: dict[type, tuple[str, ...]] = {}


def _extra_slots(cls: type) -> tuple[str, ...]:
    cached = _EXTRA_SLOTS.get(cls)
    if cached is None:
        cached = _EXTRA_SLOTS[cls] = _compute_extra_slots(cls)
    return cached


def _compute_extra_slots(cls: type) -> tuple[str, ...]:
    names: list[str] = []
    field_names = {f.name for f in cls.FIELDS}
    for klass in cls.__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if slot not in field_names and slot not in names and slot != "__weakref__":
                names.append(slot)
    return tuple(names)


def snake_case(name: str) -> str:
    """`InCoreScopeStmt` -> `in_core_scope_stmt` (visitor method names, docs/architecture.md, the core)."""
    out: list[str] = []
    for i, ch in enumerate(name):
        if ch.isupper() and i > 0 and (not name[i - 1].isupper() or (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)
