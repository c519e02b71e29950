"""The `pl` namespace of the DSL: what `import pypto.language as pl` gives (docs/dsl.md).

This module is the namespace itself; `pypto.language` re-exports it. Program bodies are parsed with
`ast`, never executed; the parser recognises this namespace (and `pypto.language` re-exporting it) by
its `__pypto_dsl__` mark (pypto_core/language/dsl_modules.py), not by the package it is imported from.
Op names (`pl.add`, `pl.tile.load`, ...) come from the op plugins: `pl.<name>` looks them up in the
registry.
"""

from typing import Any as _Any

__pypto_dsl__ = "pl"

from pypto_core.ir.dtypes import DataType as _DataType
from pypto_core.ir.enums import (
    AtomicType,
    CachePolicy,
    CompactMode,
    ForKind,
    FunctionType,
    Level,
    MemorySpace,
    PadValue,
    PipeType,
    Role,
    SplitMode,
    TensorLayout,
    TileLayout,
)
from pypto_core.ir.types import (
    PtrType as Ptr,  # the type of an allocation's identity (docs/memory_planning.md)
)
from pypto_core.language.api import loads, parse, parse_program
from pypto_core.language.decorators import function, program
from pypto_core.language.runtime import (
    AUTO,
    DistributedTensor,
    InOut,
    MemRef,
    Out,
    Scalar,
    Tensor,
    TensorView,
    Tile,
    TileView,
    Tuple,
    UnknownType,
    adir,
    aic_gather,
    aiv_shard,
    at,
    cast,
    cluster,
    cond,
    const,
    cross_core_slot,
    dump_tag,
    dynamic,
    func_attr,
    manual_scope,
    max,
    min,
    no_dep,
    parallel,
    pipeline,
    range,
    scope,
    set_cache_policy,
    split,
    split_aiv,
    spmd,
    static_assert,
    static_print,
    system,
    tensor,
    tile,
    unroll,
    while_,
    yield_,
)

Mem = MemorySpace
ND = TensorLayout.ND
DN = TensorLayout.DN
NZ = TensorLayout.NZ
MX_A_ZZ = TensorLayout.MX_A_ZZ
MX_B_NN = TensorLayout.MX_B_NN

BOOL = _DataType.BOOL
INT4 = _DataType.INT4
INT8 = _DataType.INT8
INT16 = _DataType.INT16
INT32 = _DataType.INT32
INT64 = _DataType.INT64
UINT4 = _DataType.UINT4
UINT8 = _DataType.UINT8
UINT16 = _DataType.UINT16
UINT32 = _DataType.UINT32
UINT64 = _DataType.UINT64
FP4 = _DataType.FP4
FP8E4M3FN = _DataType.FP8E4M3FN
FP8E5M2 = _DataType.FP8E5M2
FP8E8M0 = _DataType.FP8E8M0
FP16 = _DataType.FP16
FP32 = _DataType.FP32
BF16 = _DataType.BF16
HF4 = _DataType.HF4
HF8 = _DataType.HF8
INDEX = _DataType.INDEX
TASK_ID = _DataType.TASK_ID


class optimizations:  # noqa: N801 - DSL spelling `pl.optimizations.split(...)`
    split = split
    cross_core_slot = cross_core_slot


def jit(*args: _Any, **kwargs: _Any) -> _Any:
    raise NotImplementedError("pl.jit (run-time compilation) is out of scope for pypto")


def __getattr__(name: str) -> _Any:
    """`pl.add`, `pl.load`, ... are DSL names registered by op plugins."""
    from pypto_core.language.runtime import dsl_function

    return dsl_function(name)


__all__ = ['AUTO', 'AtomicType', 'BF16', 'BOOL', 'CachePolicy', 'CompactMode', 'DN', 'DistributedTensor', 'FP16',
           'FP32', 'FP4', 'FP8E4M3FN', 'FP8E5M2', 'FP8E8M0', 'ForKind', 'FunctionType', 'HF4', 'HF8',
           'INDEX', 'INT16', 'INT32', 'INT4', 'INT64', 'INT8', 'InOut', 'Level', 'MX_A_ZZ', 'MX_B_NN', 'Mem',
           'MemRef', 'Ptr', 'MemorySpace', 'ND', 'NZ', 'Out', 'PadValue', 'PipeType', 'Role', 'Scalar', 'SplitMode',
           'TASK_ID', 'Tensor', 'TensorLayout', 'TensorView', 'Tile', 'TileLayout', 'TileView', 'Tuple',
           'UINT16', 'UINT32', 'UINT4', 'UINT64', 'UINT8', 'UnknownType', 'adir', 'aic_gather', 'aiv_shard',
           'at', 'cast', 'cluster', 'cond', 'const', 'cross_core_slot', 'dump_tag', 'dynamic', 'func_attr',
           'function', 'jit', 'loads', 'manual_scope', 'max', 'min', 'no_dep', 'optimizations', 'parallel',
           'parse', 'parse_program', 'pipeline', 'program', 'range', 'scope', 'set_cache_policy', 'split',
           'split_aiv', 'spmd', 'static_assert', 'static_print', 'system', 'tensor', 'tile', 'unroll',
           'while_', 'yield_']
