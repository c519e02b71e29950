"""The split mode a function's cross-core transfers name by their split codes (docs/passes/split_vector_kernel.md).

A push or pop carries a split code (`split=1` / `2`: UP_DOWN, `3` / `4`: LEFT_RIGHT, `0`: none); the ops are
found by their registry role (PUSH, POP), never by name.
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.enums import SplitMode
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import CrossCoreRole
from pypto_core.ops.registry import opdef_of
from pypto_plugins.pass_split.split_axis.modes import split_code


class _Codes(IRVisitor):
    def __init__(self) -> None:
        self.codes: set[int] = set()
        self.first: dict[int, E.Call] = {}

    def visit_call(self, call: E.Call) -> None:
        opdef = opdef_of(call) if type(call.op) is E.Op else None
        if opdef is not None and opdef.cross_core_role in (CrossCoreRole.PUSH, CrossCoreRole.POP):
            code = int(call.kwargs.get("split") or 0)
            self.codes.add(code)
            self.first.setdefault(code, call)
        super().visit_call(call)


def transfer_modes(func: F.Function) -> tuple[SplitMode | None, E.Call | None]:
    """The one real split mode every non-zero transfer code of `func` belongs to (None when there is none or
    several), and the first transfer carrying it."""
    walker = _Codes()
    walker.visit_stmt(func.body)
    modes = {m: c for m in (SplitMode.UP_DOWN, SplitMode.LEFT_RIGHT)
             for c in walker.codes if c in (split_code(m, False), split_code(m, True))}
    if len(modes) != 1:
        return None, None
    mode, code = modes.popitem()
    return mode, walker.first[code]


def single_transfer_mode(func: F.Function) -> SplitMode | None:
    return transfer_modes(func)[0]
