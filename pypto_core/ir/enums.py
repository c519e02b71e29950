"""Enumerations of the IR (docs/dsl.md)."""

from __future__ import annotations

import enum


class FunctionType(enum.Enum):
    Opaque = 0
    Orchestration = 1
    InCore = 2
    AIC = 3
    AIV = 4
    Group = 5
    Spmd = 6
    Inline = 7
    Graph = 8


# Host-side functions: their CORE_GROUP scopes become InCore kernels (docs/passes/outline_incore_scopes.md; OutlineIncoreScopes, the
# SplitIncoreOrch verifier and the reference machine's view of a scope agree through this one tuple).
SCOPE_HOST_TYPES = (FunctionType.Opaque, FunctionType.Orchestration, FunctionType.Graph)
# Host-side code whose calls of program functions are task dispatches (pl.dump_tag, DeriveCallDirections).
DISPATCHING_TYPES = (*SCOPE_HOST_TYPES, FunctionType.Inline)
# Functions whose bodies hold tile code: the kernels the tile passes and their verifiers look at.
KERNEL_TYPES = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)
# The per-core kernels ExpandMixedKernel makes.
CORE_KERNEL_TYPES = (FunctionType.AIC, FunctionType.AIV)


class Level(enum.Enum):
    AIV = 0
    AIC = 1
    CORE_GROUP = 2
    CHIP_DIE = 3
    CHIP = 4
    HOST = 5
    CLUSTER_0 = 6
    CLUSTER_1 = 7
    CLUSTER_2 = 8
    GLOBAL = 9
    L2CACHE = 10
    PROCESSOR = 11
    UMA = 12
    NODE = 13
    POD = 14
    CLOS1 = 15
    CLOS2 = 16


class Role(enum.Enum):
    Orchestrator = 0
    SubWorker = 1


class SplitMode(enum.IntEnum):
    NONE = 0
    UP_DOWN = 1
    LEFT_RIGHT = 2


class MemorySpace(enum.Enum):
    DDR = 0
    Vec = 1
    Mat = 2
    Left = 3
    Right = 4
    Acc = 5
    Bias = 6
    LeftScale = 7
    RightScale = 8
    ScalarLocal = 9

    def is_cube(self) -> bool:
        """Cube spaces: everything except Vec and DDR (docs/plugins.md, OpDef fields)."""
        return self not in (MemorySpace.Vec, MemorySpace.DDR)


class TileLayout(enum.Enum):
    none_box = 0
    row_major = 1
    col_major = 2


class TensorLayout(enum.Enum):
    ND = 0
    DN = 1
    NZ = 2
    MX_A_ZZ = 3
    MX_B_NN = 4


class PadValue(enum.Enum):
    null = 0
    zero = 1
    max = 2
    min = 3


class CompactMode(enum.Enum):
    null = 0
    normal = 1


class AtomicType(enum.IntEnum):
    None_ = 0
    Add = 1


class PipeType(enum.IntEnum):
    MTE1 = 0
    MTE2 = 1
    MTE3 = 2
    M = 3
    V = 4
    S = 5
    FIX = 6
    ALL = 7


class ForKind(enum.Enum):
    Sequential = 0
    Parallel = 1
    Unroll = 2
    Pipeline = 3


class ParamDirection(enum.Enum):
    In = 0
    Out = 1
    InOut = 2


class ArgDirection(enum.Enum):
    Input = 0
    Output = 1
    InOut = 2
    OutputExisting = 3
    NoDep = 4
    Scalar = 5


class ScopeKind(enum.Enum):
    InCore = 0
    Cluster = 2
    Hierarchy = 3
    Spmd = 4
    Runtime = 5
    CommDomain = 6
    SplitAiv = 7


class CachePolicy(enum.IntEnum):
    """GM cache access policy declared with `pl.set_cache_policy` (docs/passes/outline_incore_scopes.md, attributes)."""

    DEFAULT = 0
    BYPASS = 1


class CastMode(enum.IntEnum):
    """Rounding modes of `cast` (docs/reference/ops.md): printed as quoted names."""

    none = 0
    rint = 1
    round = 2
    floor = 3
    ceil = 4
    trunc = 5
    odd = 6


# The enums whose values a Function attr stores as ints (docs/architecture.md, the core).
INT_STORED_ENUMS: tuple[type[enum.Enum], ...] = (SplitMode, AtomicType, PipeType, CachePolicy)
