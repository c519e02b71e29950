"""IR types: Unknown, Scalar, Tensor, Tile, Tuple, and the tensor/tile views (docs/architecture.md, the core)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import CompactMode, MemorySpace, PadValue, TensorLayout, TileLayout
from pypto_core.ir.node import Identity, IRNode, Usual, Walked

if TYPE_CHECKING:
    from pypto_core.ir.expr import Expr


_EXPR_CLASSES: tuple[type, type, type] | None = None  # (Expr, ConstInt, MakeTuple), imported on first use


def _expr_classes() -> tuple[type, type, type]:
    # types.py cannot import expr.py at module level (expr imports types); an import statement inside
    # as_dim costs more than the rest of it, and every type built goes through here.
    global _EXPR_CLASSES
    if _EXPR_CLASSES is None:
        from pypto_core.ir.expr import ConstInt, Expr, MakeTuple

        _EXPR_CLASSES = (Expr, ConstInt, MakeTuple)
    return _EXPR_CLASSES


def as_dim(value: Any) -> Expr:
    """A shape entry as an Expr: Python ints become INDEX constants."""
    expr_cls, const_int, _ = _EXPR_CLASSES or _expr_classes()
    if isinstance(value, expr_cls):
        return value
    if isinstance(value, bool):
        raise TypeError(f"a shape dimension cannot be a bool: {value!r}")
    if isinstance(value, int):
        return const_int(value, DataType.INDEX)
    raise TypeError(f"a shape dimension must be an int or a scalar expression, got {type(value).__name__}")


def as_dims(values: Sequence[Any] | None) -> tuple[Expr, ...]:
    if values is None:
        return ()
    expr_cls, _, make_tuple = _EXPR_CLASSES or _expr_classes()
    if isinstance(values, make_tuple):
        return tuple(values.elements)
    if isinstance(values, tuple) and all(isinstance(v, expr_cls) for v in values):
        return values  # already a tuple of dims (another type's shape): share it
    return tuple([as_dim(v) for v in values])


_LEAF_CONSTS: tuple[type, ...] = ()
_VAR: type | None = None


def _contains_var(value: Any) -> bool:
    """Whether a Var occurs in a field value. Runs for every type built, so it is written for speed:
    plain loops, constants and already-built types answered without a walk."""
    global _LEAF_CONSTS, _VAR
    if isinstance(value, tuple):
        for v in value:
            if _contains_var(v):
                return True
        return False
    if not isinstance(value, IRNode):
        return False
    if _VAR is None:
        from pypto_core.ir.expr import ConstBool, ConstFloat, ConstInt, Var

        _LEAF_CONSTS, _VAR = (ConstInt, ConstFloat, ConstBool), Var
    if isinstance(value, _VAR):
        return True
    if isinstance(value, _LEAF_CONSTS):
        return False
    if isinstance(value, Type):
        return value.has_vars  # computed when that type was built
    for name in value.WALKED_NAMES:
        if _contains_var(getattr(value, name)):
            return True
    return False


class Type(IRNode):
    """Base of all types. `==` and `hash` on types are structural (docs/architecture.md, the core).

    `has_vars` says whether any variable occurs inside (dynamic dims, valid-shape expressions); walkers
    skip the many types that have none.
    """

    extra_slots = ("_has_vars",)

    def _init(self, **values: Any) -> None:
        super()._init(**values)
        # Only walked fields count: a MemRef's slot index may read a loop variable, its base Ptr is an
        # allocation's identity, not a use (docs/memory_planning.md).
        object.__setattr__(self, "_has_vars", _contains_var(tuple(getattr(self, n) for n in self.WALKED_NAMES)))

    def with_fields(self, **changes: Any) -> IRNode:
        new = super().with_fields(**changes)
        object.__setattr__(new, "_has_vars", _contains_var(tuple(getattr(new, n) for n in new.WALKED_NAMES)))
        return new

    @property
    def has_vars(self) -> bool:
        return getattr(self, "_has_vars", True)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Type):
            return NotImplemented
        from pypto_core.ir.structural import structural_equal

        return structural_equal(self, other)

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        from pypto_core.ir.structural import structural_hash

        return structural_hash(self)

    def __str__(self) -> str:
        from pypto_core.language.printer import python_print_type

        return python_print_type(self)

    __repr__ = __str__


class UnknownType(Type):
    fields = ()

    def __init__(self) -> None:
        self._init()


class ScalarType(Type):
    fields = (Usual("dtype"),)

    def __init__(self, dtype: DataType) -> None:
        if not isinstance(dtype, DataType):
            raise TypeError(f"ScalarType needs a DataType, got {dtype!r}")
        self._init(dtype=dtype)


class PtrType(Type):
    """The type of an allocation-identity token, a "base Ptr" (printed `pl.Ptr`; docs/memory_planning.md)."""

    fields = ()

    def __init__(self) -> None:
        self._init()


def _ptr_var(name: str) -> Any:
    from pypto_core.ir.expr import Var

    return Var(name, PtrType())


def _offset_expr(value: Any, dtype: DataType) -> Any:
    """An int offset as a constant of `dtype`; an Expr as it is."""
    expr_cls, const_int, _ = _EXPR_CLASSES or _expr_classes()
    if isinstance(value, expr_cls):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"a MemRef byte offset must be an int or a scalar expression, got {value!r}")
    return const_int(value, dtype)


class MemRef(IRNode):
    """Where a tile or tensor lives: an allocation (`base`, a Var of PtrType: its identity), a byte offset
    and a size in bytes (docs/memory_planning.md, MemRefs).

    Forms (docs/memory_planning.md):
      MemRef(base_ptr_var, byte_offset, size)      a compiler MemRef on an existing allocation
      MemRef("name", byte_offset, size)            the same on a fresh Ptr named `name`
      MemRef(space, addr_expr, size, id)           legacy: base `mem_<space>_<id>`
      MemRef(addr, size, id)                       legacy: base `mem_<id>`
      MemRef() / MemRef("name", slots=N)           a declared (pinned) allocation; `decl[k]` is its slot k

    Two tiles share storage iff their MemRefs have the same base object. Structural equality of Tile and
    Tensor types ignores the MemRef; a bare MemRef compares base, offset, size, pinned and slots.
    """

    fields = (Identity("base"), Usual("byte_offset"), Usual("size"), Usual("is_pinned"), Usual("slots"),
              Usual("slot"))

    def __init__(self, base: Any = None, byte_offset: Any = None, size: Any = None, id: Any = None, *,
                 span: Any = None, is_pinned: bool = False, slots: int | None = None, slot: Any = None) -> None:
        from pypto_core.ir.enums import MemorySpace as _Space
        from pypto_core.ir.expr import Var

        if base is None or (isinstance(base, str) and byte_offset is None and size is None):
            # A declaration: pinned, offset 0, size 0 (the planner sizes it from the tiles bound to it).
            n = 1 if slots is None else int(slots)
            if n < 1:
                raise ValueError(f"a declared allocation needs at least one slot, got slots={n}")
            self._init(base=_ptr_var(base or ""), byte_offset=_offset_expr(0, DataType.INT64), size=0,
                       is_pinned=True, slots=n, slot=None)
            return
        if isinstance(base, _Space):  # legacy MemRef(space, addr_expr, size, id)
            base, offset_dtype = _ptr_var(f"mem_{base.name.lower()}_{id}"), DataType.INT64
        elif isinstance(base, int) and not isinstance(base, bool):  # legacy MemRef(addr, size, id)
            base, byte_offset, size, offset_dtype = _ptr_var(f"mem_{size}"), base, byte_offset, DataType.INDEX
        elif isinstance(base, str):
            base, offset_dtype = _ptr_var(base), DataType.INT64
        elif isinstance(base, Var):
            if not isinstance(base.type, PtrType):
                raise TypeError(f"a MemRef's base must be a Var of type pl.Ptr, got '{base.name_hint}' of type "
                                f"{base.type}")
            offset_dtype = DataType.INT64
        else:
            raise TypeError(f"a MemRef's base must be a pl.Ptr Var or a name, got {base!r}")
        if size is None:
            raise TypeError("MemRef(base, byte_offset, size): the size in bytes is missing")
        if slot is not None and not isinstance(slot, IRNode):
            slot = _offset_expr(int(slot), DataType.INDEX)
        self._init(base=base, byte_offset=_offset_expr(0 if byte_offset is None else byte_offset, offset_dtype),
                   size=int(size), is_pinned=bool(is_pinned),
                   slots=None if slots is None and slot is None else int(slots or 1), slot=slot)

    # -- PyPTO's field names ------------------------------------------------------------------------
    @property
    def base_(self) -> Any:
        return self.base

    @property
    def byte_offset_(self) -> Any:
        return self.byte_offset

    @property
    def size_(self) -> int:
        return self.size

    @property
    def is_pinned_(self) -> bool:
        return self.is_pinned

    @property
    def slot_count_(self) -> int:
        return 1 if self.slots is None else self.slots

    @property
    def slot_index_(self) -> Any:
        return self.slot

    @property
    def name_hint(self) -> str:
        return self.base.name_hint

    @property
    def static_offset(self) -> int | None:
        """The byte offset when it is a constant, else None."""
        _, const_int, _ = _EXPR_CLASSES or _expr_classes()
        return self.byte_offset.value if isinstance(self.byte_offset, const_int) else None

    def __getitem__(self, index: Any) -> MemRef:
        """Slot `index` of a declared allocation (`ring[0]`, `ring[i % 2]`)."""
        if not self.is_pinned or self.slot is not None:
            raise ValueError(f"Only a declared allocation can be subscripted: '{self.name_hint}' is not a "
                             f"pl.MemRef() declaration (declare it at module level: {self.name_hint} = "
                             f"pl.MemRef(slots=N))")
        if isinstance(index, int) and not isinstance(index, bool):
            if not 0 <= index < self.slot_count_:
                raise ValueError(f"Slot index {index} is out of range for a declaration with "
                                 f"{self.slot_count_} slot(s); declare more slots (pl.MemRef(slots=N)) or "
                                 f"index 0..{self.slot_count_ - 1}")
            index = _offset_expr(index, DataType.INDEX)
        new = self.with_fields(slot=index)
        assert isinstance(new, MemRef)
        return new

    @staticmethod
    def same_allocation(a: MemRef, b: MemRef) -> bool:
        """Whether two MemRefs name the same allocation (the same base Ptr object)."""
        return a.base is b.base

    @staticmethod
    def may_alias(a: MemRef, b: MemRef) -> bool:
        """Same allocation and, when both offsets are constant, intersecting byte ranges."""
        if a.base is not b.base:
            return False
        x, y = a.static_offset, b.static_offset
        if x is None or y is None:
            return True
        return x < y + b.size and y < x + a.size

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MemRef):
            return NotImplemented
        from pypto_core.ir.structural import structural_equal

        return structural_equal(self, other)

    def __hash__(self) -> int:
        from pypto_core.ir.structural import structural_hash

        return structural_hash(self)

    def __repr__(self) -> str:
        from pypto_core.language.printer import python_print

        return python_print(self)


class TensorView(IRNode):
    """Layout of a tensor: stride, layout, valid shape and pad (docs/architecture.md, the core)."""

    fields = (Usual("stride"), Usual("layout"), Usual("valid_shape"), Usual("pad"))

    def __init__(self, stride: Sequence[Any] | None = None, layout: TensorLayout | None = None,
                 valid_shape: Sequence[Any] | None = None, pad: PadValue = PadValue.null) -> None:
        self._init(stride=as_dims(stride), layout=layout, valid_shape=as_dims(valid_shape), pad=pad)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TensorView):
            return NotImplemented
        from pypto_core.ir.structural import structural_equal

        return structural_equal(self, other)

    def __hash__(self) -> int:
        from pypto_core.ir.structural import structural_hash

        return structural_hash(self)


class TileView(IRNode):
    """Layout and valid region of a tile (docs/dsl.md, functions). An empty valid_shape means 'the whole tile'."""

    fields = (Usual("valid_shape"), Usual("stride"), Usual("start_offset"), Usual("blayout"),
              Usual("slayout"), Usual("fractal"), Usual("pad"), Usual("compact"))

    def __init__(self, valid_shape: Sequence[Any] | None = None, stride: Sequence[Any] | None = None,
                 start_offset: Any = None, blayout: TileLayout = TileLayout.row_major,
                 slayout: TileLayout = TileLayout.none_box, fractal: int = 512,
                 pad: PadValue = PadValue.null, compact: CompactMode = CompactMode.null) -> None:
        self._init(valid_shape=as_dims(valid_shape), stride=as_dims(stride),
                   start_offset=None if start_offset is None else as_dim(start_offset),
                   blayout=blayout, slayout=slayout, fractal=int(fractal), pad=pad, compact=compact)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TileView):
            return NotImplemented
        from pypto_core.ir.structural import structural_equal

        return structural_equal(self, other)

    def __hash__(self) -> int:
        from pypto_core.ir.structural import structural_hash

        return structural_hash(self)


class TensorType(Type):
    # The MemRef is carried but not compared: equality and hashing ignore it (docs/memory_planning.md).
    fields = (Usual("shape"), Usual("dtype"), Walked("memref"), Usual("tensor_view"))

    def __init__(self, shape: Sequence[Any], dtype: DataType, memref: MemRef | None = None,
                 tensor_view: TensorView | None = None) -> None:
        if not isinstance(dtype, DataType):
            raise TypeError(f"TensorType needs a DataType, got {dtype!r}")
        dims = as_dims(shape)
        if tensor_view is not None and tensor_view.valid_shape and dims_equal(tensor_view.valid_shape, dims):
            # A valid_shape equal to the shape says nothing (the printer omits it, docs/dsl.md, the printed form).
            tensor_view = tensor_view.with_fields(valid_shape=())
        self._init(shape=dims, dtype=dtype, memref=memref, tensor_view=tensor_view)


def _static_dims(shape: Sequence[Expr]) -> list[int] | None:
    from pypto_core.ir.expr import ConstInt

    out = []
    for d in shape:
        if not isinstance(d, ConstInt):
            return None
        out.append(d.value)
    return out


def implicit_layout(shape: Sequence[Expr], memory_space: MemorySpace | None) -> tuple[TileLayout, TileLayout, int]:
    """(blayout, slayout, fractal) a tile has when no view is given (docs/dsl.md, functions)."""
    dims = _static_dims(shape)
    column_vector = dims is not None and len(dims) == 2 and dims[1] == 1 and dims[0] > 1
    shape_rule = TileLayout.col_major if column_vector else TileLayout.row_major
    if memory_space in (MemorySpace.Mat, MemorySpace.Left):
        return TileLayout.col_major, TileLayout.row_major, 512
    if memory_space is MemorySpace.Acc:
        return TileLayout.col_major, TileLayout.row_major, 1024
    if memory_space is MemorySpace.Right:
        return shape_rule, TileLayout.col_major, 512
    if memory_space is MemorySpace.LeftScale:
        return TileLayout.row_major, TileLayout.row_major, 32
    if memory_space is MemorySpace.RightScale:
        return TileLayout.col_major, TileLayout.col_major, 32
    return shape_rule, TileLayout.none_box, 512


_DIMS_EQUAL_DEPS: list[Any] = []  # [ConstInt, structural_equal], bound on first use (they import this module)


def dims_equal(a: Sequence[Expr], b: Sequence[Expr]) -> bool:
    if len(a) != len(b):
        return False
    deps = _DIMS_EQUAL_DEPS
    if not deps:  # an import statement here would run on every call: type checks call this per op
        from pypto_core.ir.expr import ConstInt
        from pypto_core.ir.structural import structural_equal

        deps += [ConstInt, structural_equal]
    ConstInt, structural_equal = deps  # noqa: N806 - the class
    for x, y in zip(a, b):
        if x is y:
            continue
        if type(x) is ConstInt and type(y) is ConstInt:  # the common case, without the general walk
            dx, dy = x.type.dtype, y.type.dtype
            if x.value != y.value or not (dx is dy or (dx.is_index_like() and dy.is_index_like())):
                return False
            continue
        if not structural_equal(x, y):
            return False
    return True


def canonical_tile_view(view: TileView | None, shape: Sequence[Expr],
                        memory_space: MemorySpace | None) -> TileView | None:
    """Store a view equal to the implicit one as None; drop a valid_shape equal to the shape."""
    if view is None:
        return None
    valid = view.valid_shape
    if valid and dims_equal(valid, shape):
        view = view.with_fields(valid_shape=())
        valid = ()
    blayout, slayout, fractal = implicit_layout(shape, memory_space)
    if (not valid and not view.stride and view.start_offset is None and view.blayout is blayout
            and view.slayout is slayout and view.fractal == fractal and view.pad is PadValue.null
            and view.compact is CompactMode.null):
        return None
    return view


class TileType(Type):
    # The MemRef is carried but not compared: equality and hashing ignore it (docs/memory_planning.md).
    fields = (Usual("shape"), Usual("dtype"), Walked("memref"), Usual("tile_view"), Usual("memory_space"))

    def __init__(self, shape: Sequence[Any], dtype: DataType, memref: MemRef | None = None,
                 tile_view: TileView | None = None, memory_space: MemorySpace | None = None) -> None:
        if not isinstance(dtype, DataType):
            raise TypeError(f"TileType needs a DataType, got {dtype!r}")
        dims = as_dims(shape)
        self._init(shape=dims, dtype=dtype, memref=memref,
                   tile_view=canonical_tile_view(tile_view, dims, memory_space), memory_space=memory_space)

    def effective_view(self) -> TileView:
        """The view in force: the stored one or the implicit one for (shape, memory space)."""
        if self.tile_view is not None:
            return self.tile_view
        blayout, slayout, fractal = implicit_layout(self.shape, self.memory_space)
        return TileView(blayout=blayout, slayout=slayout, fractal=fractal)

    @property
    def valid_shape(self) -> tuple[Expr, ...]:
        """The valid region's extents (the shape when the view does not narrow it)."""
        if self.tile_view is not None and self.tile_view.valid_shape:
            return self.tile_view.valid_shape
        return self.shape


class TupleType(Type):
    fields = (Usual("types"),)

    def __init__(self, types: Sequence[Type]) -> None:
        self._init(types=tuple(types))


class DistributedTensorType(TensorType):
    """A distributed tensor (pld; out of scope but constructed by some tests)."""

    fields = ()


def shape_of(t: Type) -> tuple[Expr, ...]:
    if isinstance(t, (TensorType, TileType)):
        return t.shape
    return ()


__all__ = [
    "Type", "UnknownType", "ScalarType", "TensorType", "TileType", "TupleType", "TensorView", "TileView",
    "MemRef", "PtrType", "DistributedTensorType", "implicit_layout", "canonical_tile_view", "as_dim", "as_dims",
    "dims_equal", "shape_of",
]
