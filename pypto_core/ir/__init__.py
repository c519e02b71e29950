"""The IR: nodes, types, dtypes, spans, walkers, structural equality (docs/architecture.md, the core)."""

from pypto_core.ir.builder import IRBuilder
from pypto_core.ir.dtypes import DEFAULT_CONST_FLOAT, DEFAULT_CONST_INT, DataType
from pypto_core.ir.enums import (
    ArgDirection,
    AtomicType,
    CachePolicy,
    CastMode,
    CompactMode,
    ForKind,
    FunctionType,
    Level,
    MemorySpace,
    PadValue,
    ParamDirection,
    PipeType,
    Role,
    ScopeKind,
    SplitMode,
    TensorLayout,
    TileLayout,
)
from pypto_core.ir.expr import *  # noqa: F403
from pypto_core.ir.expr import __all__ as _expr_all
from pypto_core.ir.function import Function, Program
from pypto_core.ir.node import FieldRole, IRNode
from pypto_core.ir.span import Span
from pypto_core.ir.stmt import *  # noqa: F403
from pypto_core.ir.stmt import __all__ as _stmt_all
from pypto_core.ir.structural import assert_structural_equal, structural_equal, structural_hash
from pypto_core.ir.types import (
    DistributedTensorType,
    MemRef,
    PtrType,
    ScalarType,
    TensorType,
    TensorView,
    TileType,
    TileView,
    TupleType,
    Type,
    UnknownType,
)
from pypto_core.ir.utils import (
    collect_def_vars,
    deep_clone,
    find_yield_stmt,
    flatten_to_stmts,
    get_last_yield_stmt,
    substitute_expr,
    substitute_stmt,
)
from pypto_core.ir.visitor import IRMutator, IRVisitor

__all__ = [
    *_expr_all, *_stmt_all, "DataType", "DEFAULT_CONST_INT", "DEFAULT_CONST_FLOAT", "ArgDirection", "AtomicType",
    "CachePolicy", "CastMode", "CompactMode", "ForKind", "FunctionType", "Level", "MemorySpace", "PadValue",
    "ParamDirection", "PipeType", "Role", "ScopeKind", "SplitMode", "TensorLayout", "TileLayout", "Function",
    "Program", "FieldRole", "IRNode", "Span", "assert_structural_equal", "structural_equal", "structural_hash",
    "DistributedTensorType", "MemRef", "PtrType", "ScalarType", "TensorType", "TensorView", "TileType", "TileView",
    "TupleType", "Type", "UnknownType", "collect_def_vars", "deep_clone", "find_yield_stmt", "flatten_to_stmts",
    "get_last_yield_stmt", "substitute_expr", "substitute_stmt", "IRMutator", "IRVisitor", "IRBuilder",
]
