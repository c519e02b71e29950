"""What the op registry says about where a call's result lives (docs/passes/init_mem_ref.md, rules).

Shared by InitMemRef, its HasMemRefs verifier and MaterializeSemanticAliases: no pass keeps op names, each
asks these registry facts (OpDef.cross_core_role, OpTraits.buffer_view / output_reuses_input).
"""

from __future__ import annotations

from pypto_core.ir import expr as E
from pypto_core.ops.opdef import CrossCoreRole, OpDef
from pypto_core.ops.registry import op_registry


def opdef_of(value: E.Expr) -> OpDef | None:
    """The OpDef of an op call; None for anything else (a program function call, a variable, a constant)."""
    if not isinstance(value, E.Call) or isinstance(value.op, E.GlobalVar):
        return None
    return op_registry().find_opdef(value.op.name)


def is_pipe_pop(value: E.Expr) -> bool:
    """A cross-core pop: its tile lives in the pipe ring system.reserve_buffer keeps, not in a buffer of its own."""
    opdef = opdef_of(value)
    return opdef is not None and opdef.cross_core_role is CrossCoreRole.POP


def view_kind(value: E.Expr) -> str:
    """"window" / "relabel" / "view" when the call's result lives in operand 0's buffer, else ""."""
    opdef = opdef_of(value)
    return opdef.traits.buffer_view if opdef is not None else ""


def reused_operand(value: E.Expr) -> int | None:
    """The operand whose buffer the call writes its result into (destination passing), or None."""
    opdef = opdef_of(value)
    return opdef.traits.output_reuses_input if opdef is not None else None


def lands_in_source_buffer(value: E.Expr) -> bool:
    """A view or an in-place op: the result has no buffer of its own."""
    return bool(view_kind(value)) or reused_operand(value) is not None


class BufferlessTiles:
    """The tiles that live in a pipe ring (init_mem_ref.md 3.3 rule 1): a pop's result, a view of such a tile
    (a buffer_view op on it) and a plain copy of one. Fed the assignments in program order."""

    def __init__(self) -> None:
        self.ids: set[int] = set()

    def __contains__(self, var: object) -> bool:
        return id(var) in self.ids

    def is_bufferless_value(self, value: E.Expr) -> bool:
        if isinstance(value, E.Var):
            return id(value) in self.ids
        if is_pipe_pop(value):
            return True
        if view_kind(value) and isinstance(value, E.Call) and value.args:
            return id(value.args[0]) in self.ids
        return False

    def add(self, var: E.Var) -> None:
        self.ids.add(id(var))
