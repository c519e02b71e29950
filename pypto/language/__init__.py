"""The `pl` DSL: `import pypto.language as pl` (docs/architecture.md).

Program bodies are parsed with `ast`, never executed. Op names (`pl.add`, `pl.tile.load`, ...) come
from the op plugins; `pl.<name>` looks them up in the registry.
"""

from typing import Any as _Any

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
