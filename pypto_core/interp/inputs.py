"""Deterministic random inputs from an entry function's parameter types, and argument binding.

Values are chosen so that the usual kernels stay finite and never collide with poison:
floats uniform in [-1, 1); signed ints in [-8, 8]; unsigned ints in [0, 16]; bools random;
scalar int parameters 1..8 (they often size loops); scalar floats in [-1, 1).
Out parameters start as poison, so an element no run writes shows as poison in both runs and an
element only one run writes shows as a mismatch. Dynamic dims (`pl.dynamic`) default to 128.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pypto_core.interp.dims import eval_dim, free_vars
from pypto_core.interp.dtypes import is_float_dtype, np_dtype, poisoned
from pypto_core.interp.errors import MachineError
from pypto_core.interp.limits import check_allocation
from pypto_core.ir import expr as E
from pypto_core.ir.enums import ParamDirection
from pypto_core.ir.function import Function
from pypto_core.ir.names import ROLES
from pypto_core.ir.types import ScalarType, TensorType, TileType, Type

DEFAULT_DYNAMIC_DIM = 128


_ROLE = re.compile(r"__(?:" + "|".join(ROLES) + r")(?:_v\d+|_|$)")


def base_name(name: str) -> str:
    """The user's name of a pass-renamed var: `out__ssa_v1` -> `out`, `x___ssa_v0` -> `x_` (docs/dsl.md, the printed form): the
    base ends where the first generated role starts, so a user name ending in `_` keeps it."""
    m = _ROLE.search(name, 1)
    if m is not None:
        return name[:m.start()]
    return name.split("__", 1)[0] or name


def param_names(func: Function) -> list[str]:
    return [base_name(p.name_hint) for p in func.params]


def _static_shape(t: Type, dims: Mapping[str, int], where: str) -> tuple[int, ...]:
    out = []
    for d in t.shape:  # type: ignore[attr-defined]
        if isinstance(d, E.ConstInt):
            out.append(d.value)
        elif isinstance(d, E.Var):
            out.append(int(dims.get(d.name_hint, DEFAULT_DYNAMIC_DIM)))
        else:
            env = {v.name_hint: int(dims.get(v.name_hint, DEFAULT_DYNAMIC_DIM)) for v in free_vars(d)}
            value = eval_dim(d, env)
            if value is None or value < 0:
                raise MachineError(f"{where}: cannot make an input for the computed dimension {d} in {t}")
            out.append(value)
    return tuple(out)


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dt: np.dtype) -> np.ndarray:
    if dt == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if is_float_dtype(dt):
        return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32).astype(dt)
    if dt.kind == "u" or str(dt) == "uint4":
        return rng.integers(0, 17 if str(dt) != "uint4" else 15, size=shape).astype(dt)
    return rng.integers(-8, 9 if str(dt) != "int4" else 8, size=shape).astype(dt)


def make_inputs(func: Function, seed: int = 0, dims: Mapping[str, int] | None = None) -> dict[str, Any]:
    """One value per parameter, keyed by the parameter's base name, in parameter order."""
    rng = np.random.default_rng(seed)
    dims = dict(dims or {})
    out: dict[str, Any] = {}
    for p, direction in func.param_items():
        name, t = base_name(p.name_hint), p.type
        where = f"parameter '{name}' of {func.name}"
        if isinstance(t, ScalarType):
            dt = np_dtype(t.dtype)
            if dt == np.bool_:
                out[name] = np.bool_(True)
            elif is_float_dtype(dt):
                out[name] = dt.type(rng.uniform(-1.0, 1.0))
            else:
                out[name] = dt.type(rng.integers(1, 8 if str(dt) == "int4" else 9))  # INT4 holds at most 7
            continue
        if not isinstance(t, (TensorType, TileType)):
            raise MachineError(f"{where}: cannot make an input of type {t}")
        shape, dt = _static_shape(t, dims, where), np_dtype(t.dtype)
        check_allocation(shape, dt, where, func.span)
        if direction is ParamDirection.Out:
            out[name] = poisoned(shape, dt)
        else:
            out[name] = random_array(rng, shape, dt)
    return out


def added_out_params(func: Function, inputs: Mapping[str, Any]) -> list[str]:
    """Out parameters of `func` that the inputs do not have: a buffer a pass gave the entry (a result's Out
    buffer, docs/passes/convert_tensor_to_tile_ops.md; the GM pipe buffer, docs/passes/inject_gm_pipe_buffer.md)
    that its caller allocates, and an entry has no caller; a run allocates them."""
    return [base_name(p.name_hint) for p, d in func.param_items()
            if d is ParamDirection.Out and base_name(p.name_hint) not in inputs]


def copy_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """Fresh copies: a run writes its Out / InOut arrays in place."""
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}


def bind_arguments(func: Function, inputs: Mapping[str, Any] | Sequence[Any]) -> list[Any]:
    """Arguments in parameter order from values keyed by base name (or given by position)."""
    names = param_names(func)
    if isinstance(inputs, Mapping):
        missing = [n for n in names if n not in inputs]
        if missing:
            raise MachineError(f"no input for parameter(s) {', '.join(missing)} of {func.name} "
                               f"(inputs given: {', '.join(inputs) or 'none'})")
        values = [inputs[n] for n in names]
    else:
        values = list(inputs)
        if len(values) != len(names):
            raise MachineError(f"{func.name} takes {len(names)} argument(s), got {len(values)}")
    args = []
    for p, name, value in zip(func.params, names, values):
        t = p.type
        if isinstance(t, (TensorType, TileType)):
            if not isinstance(value, np.ndarray):
                raise MachineError(f"input '{name}' of {func.name} must be an array for {t}")
            want = np_dtype(t.dtype)
            static = [d.value if isinstance(d, E.ConstInt) else None for d in t.shape]
            if value.ndim != len(static) or any(s is not None and s != v for s, v in zip(static, value.shape)):
                raise MachineError(f"input '{name}' of {func.name} has shape {list(value.shape)}, its type is {t}")
            if value.dtype != want:
                raise MachineError(f"input '{name}' of {func.name} has dtype {value.dtype}, its type is {t}")
        elif isinstance(t, ScalarType):
            value = np_dtype(t.dtype).type(value)
        args.append(value)
    return args
