"""A write into a tensor view inside a kernel is the program's error (docs/passes/convert_tensor_to_tile_ops.md, errors).

A tensor view (`pl.slice`, `pl.reshape`, `pl.tensor.view`, ... of another tensor: registry trait
`aliases_operand` on a tensor result) shares its tensor's memory, so on the reference machine a write into the
view (`pl.assemble(view, ...)`, `pl.store(t, offsets, view)`: any argument the registry declares written)
changes the viewed tensor. In a kernel ConvertTensorToTileOps computes the view as a tile copied from its
window: the write lands in the copy and never reaches the viewed tensor. Rather than change what the program
computes, the pass rejects such a write where it is written and says how to write the tensor itself.
"""

from __future__ import annotations

from pypto_core.errors import UserError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir import stmt as S
from pypto_core.ir.fresh_names import user_base
from pypto_core.ir.types import TensorType
from pypto_core.ir.visitor import IRVisitor
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import opdef_of

_WRITTEN = (Effect.WRITE, Effect.READ_WRITE)


class _WriteIntoView(IRVisitor):
    def __init__(self) -> None:
        self.views: dict[int, E.Call] = {}  # a variable bound to a tensor view -> the view call
        self.found: tuple[E.Call, E.Var] | None = None

    def visit_assign_stmt(self, s: S.AssignStmt) -> None:
        super().visit_node(s)
        value = s.value
        if isinstance(value, E.Call) and isinstance(value.type, TensorType):
            opdef = opdef_of(value)
            if opdef is not None and opdef.traits.aliases_operand:
                self.views[id(s.var)] = value

    def visit_call(self, call: E.Call) -> None:
        super().visit_node(call)
        opdef = opdef_of(call)
        if self.found is not None or opdef is None:
            return
        for index, effect in opdef.arg_effects(call.kwargs).items():
            target = call.args[index] if index < len(call.args) else None
            if effect in _WRITTEN and isinstance(target, E.Var) and id(target) in self.views:
                self.found = (call, target)
                return


def reject_writes_through_views(func: F.Function, pass_name: str) -> None:
    """Raise a located UserError at the first write into a tensor view of `func`."""
    finder = _WriteIntoView()
    finder.visit_stmt(func.body)
    if finder.found is None:
        return
    call, target = finder.found
    view = finder.views[id(target)]
    base = view.args[0]
    base_name = user_base(base) if isinstance(base, E.Var) else "its tensor"
    raise UserError(f"{pass_name}: {call.op.name} writes into '{user_base(target)}', a view ({view.op.name}) of "
                    f"'{base_name}', in InCore function '{func.name}'; a kernel computes a tensor view as a copy of "
                    f"its window, so the write would not reach '{base_name}'. Write into '{base_name}' itself at the "
                    f"window's offsets (pl.assemble({base_name}, value, offsets)), or into a tensor of its own",
                    call.span)
