"""TileMemoryInferred: every tile has a memory space, and every operand the registry constrains is in a
space its op accepts (OpDef.input_memory)."""

from __future__ import annotations

from pypto_core.analysis.walk import kernels, op_calls
from pypto_core.ir import stmt as S
from pypto_core.ir.types import TileType
from pypto_core.ir.utils import describe_operand
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.registry import opdef_of
from pypto_core.passes.verifier_registry import Diagnostic, error

RULE = "TileMemoryInferred"


class _Unplaced(IRVisitor):
    def __init__(self, func_name: str, out: list[Diagnostic], kind: str = "InCore") -> None:
        self.func_name = func_name
        self.kind = kind
        self.out = out

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        t = s.var.type
        if isinstance(t, TileType) and t.memory_space is None:
            self.out.append(error(RULE, f"{self.kind} function '{self.func_name}': TileType variable '{s.var.name_hint}' "
                                        f"has no memory_space set", s.span))
        super().visit_assign_stmt(s)


def verify_tile_memory_inferred(program: object) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for func in kernels(program):  # type: ignore[arg-type]
        _Unplaced(func.name, out, func.func_type.name).visit_stmt(func.body)
        for call in op_calls(func):
            opdef = opdef_of(call)
            if opdef is None:
                continue
            for i, arg in enumerate(call.args):
                allowed = opdef.accepted_spaces(i)
                t = arg.type
                if not allowed or not isinstance(t, TileType) or t.memory_space is None:
                    continue
                if t.memory_space not in allowed:
                    wanted = " or ".join(s.name for s in allowed)
                    out.append(error(RULE, f"Op '{call.op.name}' input {i} ('{describe_operand(arg)}') requires {wanted} "
                                           f"but is in {t.memory_space.name}", call.span))
    return out
