"""TypeChecked: an AssignStmt's variable has its value's type, up to what an annotation may add.

The parser lets an annotation add information the value's type lacks (docs/dsl.md, functions): a memory space,
a tile view or memref where the value has none, an INDEX scalar stamped INT64, a type for a value of
unknown type. Those differences are accepted; anything else is a finding.
"""

from __future__ import annotations

from pypto_core.ir import stmt as S
from pypto_core.ir import types as T
from pypto_core.ir.function import Function
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.visitor import IRVisitor
from pypto_core.passes.verifier_registry import Diagnostic, error
from pypto_core.passes.verifiers._walk import functions

RULE = "TypeChecked"


def _optional_equal(a: object, b: object) -> bool:
    """Equal, or one side does not say (None): an annotation may fill it in."""
    return a is None or b is None or structural_equal(a, b)


def assign_types_compatible(declared: T.Type, value: T.Type) -> bool:
    if isinstance(declared, T.UnknownType) or isinstance(value, T.UnknownType):
        return True
    if type(declared) is not type(value):
        return False
    if isinstance(declared, T.ScalarType):
        return declared.dtype is value.dtype or (declared.dtype.is_index_like() and value.dtype.is_index_like())
    if isinstance(declared, T.TensorType):
        return (declared.dtype is value.dtype and T.dims_equal(declared.shape, value.shape)
                and _optional_equal(declared.memref, value.memref)
                and _optional_equal(declared.tensor_view, value.tensor_view))
    if isinstance(declared, T.TileType):
        return (declared.dtype is value.dtype and T.dims_equal(declared.shape, value.shape)
                and _optional_equal(declared.memref, value.memref)
                and _optional_equal(declared.tile_view, value.tile_view)
                and (declared.memory_space is None or value.memory_space is None
                     or declared.memory_space is value.memory_space))
    if isinstance(declared, T.TupleType):
        return len(declared.types) == len(value.types) and all(
            assign_types_compatible(a, b) for a, b in zip(declared.types, value.types))
    return structural_equal(declared, value)


class _AssignTypes(IRVisitor):
    def __init__(self, func: Function, out: list[Diagnostic]) -> None:
        self.func = func
        self.out = out

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        if not assign_types_compatible(s.var.type, s.value.type):
            self.out.append(error(RULE, f"'{s.var.name_hint}' has type {s.var.type} but is assigned a value of "
                                        f"type {s.value.type} (function '{self.func.name}')", s.span))
        super().visit_assign_stmt(s)


def verify_type_checked(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in functions(program):  # type: ignore[arg-type]
        _AssignTypes(func, out).visit_stmt(func.body)
    return out
