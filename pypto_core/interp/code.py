"""FunctionCode: one Function compiled for the machine (slots, parameter binding, body closure)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from pypto_core.interp.dims import free_vars, solve_dim
from pypto_core.interp.dtypes import np_scalar_type
from pypto_core.interp.errors import MachineError
from pypto_core.interp.frame import UNSET, Return, Slots
from pypto_core.interp.kernel_results import owned_results
from pypto_core.interp.onchip import Placement, plan_placements
from pypto_core.interp.stable import read_only_params, read_only_view, stable_params
from pypto_core.ir import expr as E
from pypto_core.ir.dtypes import DataType
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.function import Function
from pypto_core.ir.types import ScalarType, TensorType, TileType

if TYPE_CHECKING:
    from pypto_core.interp.context import EvalContext
    from pypto_core.interp.machine import Machine

DimsFn = Callable[[list[Any]], tuple[int, ...]]
_NONE_STABLE: frozenset[int] = frozenset()


class FunctionCode:
    def __init__(self, machine: Machine, func: Function) -> None:
        from pypto_core.interp.stmts import compile_stmt

        self.machine = machine
        self.func = func
        self.slots = Slots()
        self.frozen = False  # after compilation a var lookup must not allocate a slot
        self._dims: dict[int, tuple[Sequence[Any], DimsFn]] = {}
        self._static_valid: dict[int, tuple[Any, tuple[int, ...] | None]] = {}
        # A tfree operand's slot -> the slots its released tile may be held in (fifo.release_popped).
        self.release_slots: dict[int, tuple[int, ...]] = {}
        self.param_slots = [self.slots(p) for p in func.params]
        self.param_scalar_types = [np_scalar_type(p.type.dtype) if isinstance(p.type, ScalarType) else None
                                   for p in func.params]
        # Dynamic dims (pl.dynamic vars) named in parameter types are bound from the actual shapes. A symbol
        # does not tie the parameters together (docs/dsl.md, Dynamic dimensions): when two of them give it different
        # extents, the first binds it and the frame's `ambiguous_slot` lists it, so that an op's result takes
        # those extents from its operands (calls.py, the result check).
        self.dim_binders: list[tuple[int, int, int, type]] = []
        self.ambiguous_slot = self.slots.reserve()
        # A var only written inside an expression (`M * 2`) is solved from the extent (interp/dims.py).
        self.solved_dims: list[tuple[int, int, E.Expr, int, type]] = []
        plain: set[int] = set()
        for i, p in enumerate(func.params):
            if isinstance(p.type, (TensorType, TileType)):
                for axis, dim in enumerate(p.type.shape):
                    if isinstance(dim, E.Var):
                        plain.add(id(dim))
                        self.dim_binders.append((i, axis, self.slots(dim), _dim_scalar_type(dim)))
        for i, p in enumerate(func.params):
            if isinstance(p.type, (TensorType, TileType)):
                for axis, dim in enumerate(p.type.shape):
                    if isinstance(dim, E.BinaryExpr | E.UnaryExpr):
                        # solving for extent 0 only asks whether the form is invertible
                        solved = solve_dim(dim, 0) if len(free_vars(dim)) == 1 else None
                        var = free_vars(dim)[0] if len(free_vars(dim)) == 1 else None
                        if var is not None and id(var) not in plain and solved is not None:
                            plain.add(id(var))
                            self.solved_dims.append((i, axis, dim, self.slots(var), _dim_scalar_type(var)))
        self.read_only = read_only_params(func)
        # Tiles with MemRefs live in the on-chip bytes (onchip.py, docs/memory_planning.md).
        # (empty while they are planned: a runtime slot offset `(i % 2) * 8192` reads the scalar i by value)
        self.placements: dict[int, Placement] = {}
        self.placements = plan_placements(self, machine.backend_object()) if machine.addresses else {}
        # An InCore kernel's results are its own tensors (kernel_results.py).
        self.owns_results = func.func_type is FunctionType.InCore
        self.body = compile_stmt(self, func.body, None)
        self.frozen = True
        self.nslots = len(self.slots)

    # -- compile-time helpers ---------------------------------------------------------------------
    def placement(self, var: Any) -> Placement | None:
        """Where a tile variable lives in the on-chip bytes, or None (value semantics)."""
        return self.placements.get(id(var)) if self.placements else None

    def store(self, slot: int) -> Callable[[list[Any], Any], None]:
        """`store(fr, value)` binds a slot; a placed tile's value is written into its bytes too."""
        var = self.slots.vars[slot]
        placed = self.placement(var) if var is not None else None
        if placed is None:
            def plain(fr: list[Any], value: Any) -> None:
                fr[slot] = value

            return plain

        def placed_store(fr: list[Any], value: Any) -> None:
            if isinstance(value, np.ndarray):
                placed.write(fr, value)
            fr[slot] = value

        return placed_store

    @staticmethod
    def scalar_type(dtype: DataType) -> type:
        return np_scalar_type(dtype)

    def dims_fn(self, dims: Sequence[Any]) -> DimsFn:
        """A closure evaluating shape expressions to a tuple of Python ints (cached per tuple)."""
        cached = self._dims.get(id(dims))
        if cached is not None and cached[0] is dims:
            return cached[1]
        fn = self._compile_dims(tuple(dims))
        self._dims[id(dims)] = (dims, fn)  # keep `dims` alive so its id is not reused
        return fn

    def static_valid(self, t: Any) -> tuple[int, ...] | None:
        """The valid extents of a type whose shape and valid shape are all constants (cached), else None."""
        cached = self._static_valid.get(id(t))
        if cached is not None and cached[0] is t:
            return cached[1]
        value = _static_valid(t)
        self._static_valid[id(t)] = (t, value)
        return value

    def _compile_dims(self, dims: tuple[Any, ...]) -> DimsFn:
        if all(isinstance(d, E.ConstInt) for d in dims):
            static = tuple(d.value for d in dims)
            return lambda fr: static
        from pypto_core.interp.exprs import compile_expr

        parts = [compile_expr(self, d) if isinstance(d, E.Expr) else (lambda fr, d=d: d) for d in dims]
        return lambda fr: tuple(int(p(fr)) for p in parts)

    # -- execution ----------------------------------------------------------------------------------
    def invoke(self, ctx: EvalContext, args: Sequence[Any]) -> Any:
        """Run the function in a new frame whose context is `ctx` (already derived for this code)."""
        func = self.func
        if len(args) != len(self.param_slots):
            raise MachineError(f"{func.name} takes {len(self.param_slots)} argument(s), got {len(args)}", func.span)
        fr: list[Any] = [UNSET] * self.nslots
        fr[0] = ctx
        ctx.frame = fr
        for slot, to, value in zip(self.param_slots, self.param_scalar_types, args):
            fr[slot] = to(value) if to is not None and not isinstance(value, to) else value
        if self.placements:
            for p, slot in zip(func.params, self.param_slots):
                placed = self.placement(p)
                if placed is not None and isinstance(fr[slot], np.ndarray):
                    placed.write(fr, fr[slot])
        ctx.stable = _NONE_STABLE
        if self.read_only and ctx.sched is None:  # a coroutine shares its tensors with concurrent tasks
            stable = stable_params(self.read_only, args)
            if stable:
                # Bound as read-only views: every window of them is one too (tiles are values).
                ctx.stable = frozenset(id(func.params[i]) for i in stable)
                for i in stable:
                    fr[self.param_slots[i]] = read_only_view(args[i])
        if self.dim_binders:
            self._bind_dims(fr, args)
        for i, axis, dim, slot, to in self.solved_dims:
            arg = args[i]
            if isinstance(arg, np.ndarray) and axis < arg.ndim:
                solved = solve_dim(dim, arg.shape[axis])
                if solved is None:
                    raise MachineError(f"argument {func.params[i].name_hint} of {func.name}: extent "
                                       f"{arg.shape[axis]} of axis {axis} is no value of its dim {dim}", func.span)
                fr[slot] = to(solved[1])
        signal = self.body(fr)
        if isinstance(signal, Return):
            values = signal.values
            if self.owns_results:
                values = owned_results(values, args)
            if len(values) == 1:
                return values[0]
            return values if values else None
        if signal is not None:
            raise MachineError(f"'break' or 'continue' outside a loop in {func.name}", func.span)
        return None


    def _bind_dims(self, fr: list[Any], args: Sequence[Any]) -> None:
        bound: dict[int, int] = {}
        ambiguous: set[int] = set()
        for i, axis, slot, to in self.dim_binders:
            arg = args[i]
            if isinstance(arg, np.ndarray) and axis < arg.ndim:
                extent = arg.shape[axis]
                first = bound.setdefault(slot, extent)
                if first == extent:
                    fr[slot] = to(extent)
                else:
                    ambiguous.add(slot)
        if ambiguous:
            fr[self.ambiguous_slot] = frozenset(ambiguous)

    def ambiguous_dims(self, fr: list[Any]) -> frozenset[int]:
        """The slots of the dim symbols this frame's parameters gave different extents."""
        value = fr[self.ambiguous_slot]
        return value if isinstance(value, frozenset) else frozenset()


def _dim_scalar_type(dim: E.Var) -> type:
    return np_scalar_type(dim.type.dtype if isinstance(dim.type, ScalarType) else DataType.INDEX)


def _const_dims(dims: Sequence[Any]) -> tuple[int, ...] | None:
    if all(isinstance(d, E.ConstInt) for d in dims):
        return tuple(d.value for d in dims)
    return None


def _static_valid(t: Any) -> tuple[int, ...] | None:
    if isinstance(t, TileType):
        shape = _const_dims(t.shape)
        if shape is None:
            return None
        if t.tile_view is None or not t.tile_view.valid_shape:
            return shape
        valid = _const_dims(t.tile_view.valid_shape)
        return None if valid is None else tuple(max(0, min(v, s)) for v, s in zip(valid, shape))
    if isinstance(t, TensorType):
        view = t.tensor_view
        return _const_dims(view.valid_shape if view is not None and view.valid_shape else t.shape)
    return None
