"""Run-time objects of the `pl` namespace.

Program bodies are parsed, never executed, but Python still evaluates decorators and parameter
annotations when a class or function is defined. These objects make that evaluation harmless and
give the DSL helpers that can be called from plain Python (`pl.dynamic`, `pl.split_aiv` checks).
"""

from __future__ import annotations

import enum
from typing import Any

from pypto_core.ir import scalar_ops
from pypto_core.ir.enums import ArgDirection, SplitMode
from pypto_core.language.parser.env import DynamicDim

AUTO = -1


def dynamic(name: str) -> DynamicDim:
    """A program-wide symbolic dimension: `M = pl.dynamic("M")`, then `pl.Tensor[[M, 128], pl.FP32]`."""
    return DynamicDim(name)


class _AnnotationValue:
    """What `pl.Tensor[...]` evaluates to at run time; the parser reads the annotation's AST instead."""

    __slots__ = ("kind", "args")

    def __init__(self, kind: str, args: Any) -> None:
        self.kind = kind
        self.args = args

    def __repr__(self) -> str:
        return f"pl.{self.kind}[...]"


class _AnnotationHead:
    __slots__ = ("kind",)

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __getitem__(self, args: Any) -> _AnnotationValue:
        return _AnnotationValue(self.kind, args)

    def __repr__(self) -> str:
        return f"pl.{self.kind}"


Tensor = _AnnotationHead("Tensor")
Tile = _AnnotationHead("Tile")
Scalar = _AnnotationHead("Scalar")
Tuple = _AnnotationHead("Tuple")
Out = _AnnotationHead("Out")
InOut = _AnnotationHead("InOut")
DistributedTensor = _AnnotationHead("DistributedTensor")
UnknownType = _AnnotationHead("UnknownType")


class _Lenient:
    """`pl.TileView(...)` / `pl.TensorView(...)` / `pl.MemRef(...)` in an annotation evaluated at def time."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        from pypto_core.ir import types as T

        try:
            return getattr(T, self.kind)(*args, **kwargs)
        except (TypeError, ValueError):
            if self.kind == "MemRef" and len(args) <= 1 and set(kwargs) <= {"slots"}:
                raise  # a declaration (`buf = pl.MemRef(slots=0)`) is wrong where it is written, as in PyPTO
            return _AnnotationValue(self.kind, (args, kwargs))

    def __repr__(self) -> str:
        return f"pl.{self.kind}"


TileView = _Lenient("TileView")
TensorView = _Lenient("TensorView")
MemRef = _Lenient("MemRef")


class ParseTimeOnlyError(ValueError, RuntimeError):
    """A DSL construct called from plain Python: a ValueError as PyPTO raises it, and a RuntimeError
    for callers that caught the earlier type."""


def _parse_time_only(name: str):
    def fn(*args: Any, **kwargs: Any) -> Any:
        raise ParseTimeOnlyError(f"pl.{name} only has meaning inside a @pl.function body, which pypto parses "
                           f"instead of executing; it cannot be called from plain Python")

    fn.__name__ = name
    fn.__qualname__ = name
    return fn


range = _parse_time_only("range")  # noqa: A001 - DSL name
parallel = _parse_time_only("parallel")
unroll = _parse_time_only("unroll")
pipeline = _parse_time_only("pipeline")
while_ = _parse_time_only("while_")
yield_ = _parse_time_only("yield_")
cond = _parse_time_only("cond")
func_attr = _parse_time_only("func_attr")
at = _parse_time_only("at")
split = _parse_time_only("split")
cross_core_slot = _parse_time_only("cross_core_slot")
static_print = _parse_time_only("static_print")
static_assert = _parse_time_only("static_assert")
set_cache_policy = _parse_time_only("set_cache_policy")
dump_tag = _parse_time_only("dump_tag")
no_dep = _parse_time_only("no_dep")
scope = _parse_time_only("scope")
manual_scope = _parse_time_only("manual_scope")
cluster = _parse_time_only("cluster")
spmd = _parse_time_only("spmd")
# Region boundaries: parser constructs inside pl.split_aiv (the region gives the split); `pl.tile.aiv_shard` /
# `pl.tile.aic_gather` are the IR builders, which take it explicitly.
aiv_shard = _parse_time_only("aiv_shard")
aic_gather = _parse_time_only("aic_gather")


def split_aiv(n: Any, *, mode: Any = None) -> Any:
    """Checks the arguments like the parser does; the region itself only exists inside a parsed body."""
    if isinstance(n, bool) or not isinstance(n, int) or n != 2:
        raise ValueError(f"pl.split_aiv: the lane count must be the integer 2 (one per AIV lane), got {n!r}")
    if not isinstance(mode, SplitMode):
        raise ValueError(f"pl.split_aiv: mode= must be a pl.SplitMode (NONE, UP_DOWN or LEFT_RIGHT), got {mode!r}")
    return _parse_time_only("split_aiv")()


def _lenient(build: Any, *args: Any) -> Any:
    """Build the scalar expression, or record it when an operand only exists at parse time (a dynamic dim:
    `pl.min(M, 64)` before the decorator, or in an annotation evaluated when a method is defined)."""
    try:
        return build(*args)
    except TypeError:
        if any(isinstance(a, DynamicDim) for a in args):
            from pypto_core.language.parser.env import RuntimeDimExpr

            return RuntimeDimExpr(build, args)
        raise


def const(value: Any, dtype: Any) -> Any:
    from pypto_core.ir.dtypes import const_problem
    from pypto_core.ir.expr import ConstFloat, ConstInt

    if isinstance(value, bool):
        raise TypeError("pl.const takes an int or float literal")
    problem = const_problem(value, dtype)
    if problem is not None:
        raise ValueError(f"pl.const: {problem}")
    if isinstance(value, int):
        return ConstInt(value, dtype)
    return ConstFloat(float(value), dtype)


def cast(value: Any, dtype: Any, mode: Any = "round") -> Any:
    return _lenient(scalar_ops.cast, value, dtype)


def min(a: Any, b: Any) -> Any:  # noqa: A001 - DSL name
    return _lenient(scalar_ops.min_, a, b)


def max(a: Any, b: Any) -> Any:  # noqa: A001 - DSL name
    return _lenient(scalar_ops.max_, a, b)


class adir:  # noqa: N801 - DSL spelling `pl.adir.input`
    """ArgDirection helpers used in call attrs (docs/dsl.md, the printed form)."""

    input = ArgDirection.Input
    output = ArgDirection.Output
    output_existing = ArgDirection.OutputExisting
    inout = ArgDirection.InOut
    no_dep = ArgDirection.NoDep
    scalar = ArgDirection.Scalar


class OpNamespace:
    """`pl.tile`, `pl.tensor`, `pl.system`: attribute access finds the plugin's DSL function."""

    def __init__(self, namespace: str) -> None:
        self._namespace = namespace

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        from pypto_core.ops.registry import op_registry

        entry = op_registry().dsl.get(f"{self._namespace}.{name.rstrip('_')}") or op_registry().dsl.get(
            f"{self._namespace}.{name}")
        if entry is None:
            raise AttributeError(f"pl.{self._namespace} has no operation '{name}'")
        return entry.function

    def __repr__(self) -> str:
        return f"pl.{self._namespace}"


tile = OpNamespace("tile")
tensor = OpNamespace("tensor")
system = OpNamespace("system")


def dsl_function(name: str) -> Any:
    """A top-level DSL name (`pl.add`) from the plugins, or AttributeError."""
    from pypto_core.ops.registry import op_registry

    entry = op_registry().dsl.get(name)
    if entry is None:
        raise AttributeError(f"module 'pypto.language' has no attribute '{name}'")
    return entry.function


def is_enum_value(value: Any) -> bool:
    return isinstance(value, enum.Enum)
