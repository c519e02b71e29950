"""Operands a pass folded into constants, in the form the op's DSL gives a literal there.

A bare INDEX constant prints as a Python literal (`3`), and the `pl` DSL converts a literal scalar operand of a
tile / tensor op to the operand's element dtype (`pl.maximum(x_fp32, 3)` holds `3.0`, docs/plugins.md, OpDef
fields). A pass that folds an operand expression (`pl.add(1, 2)`, a scalar variable bound to `3`) into a constant
therefore rebuilds the call through the op's own DSL function, so the printed program reads back to the same IR.
The op decides the form (its DSL function is the registry's); no pass keeps a list of ops that convert literals.
"""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir import expr as E
from pypto_core.ops.registry import op_registry

_LITERALS = (E.ConstInt, E.ConstFloat, E.ConstBool)


def is_literal(e: object) -> bool:
    return isinstance(e, _LITERALS)


def with_literal_operands(call: E.Call, folded: Sequence[int]) -> E.Call | None:
    """`call` with its operands at `folded` (now constants) as the op's DSL builds them from literals, or None.

    The call is rebuilt by the DSL function registered under its op's name; the rebuilt call is used only if it is
    the same op with the same attributes and result type and differs at most at `folded`. None when it cannot be:
    no DSL function of that name, another signature, a literal the DSL refuses, or a literal that would change the
    call's type (`pl.mul(x_int32, pl.add(1, 2))` is an INDEX tensor, `pl.mul(x_int32, 3)` an INT32 one) -- the
    literal cannot stand there, and the caller keeps the operand unfolded.
    """
    from pypto_core.ir.structural import structural_equal

    if not folded:
        return call
    registry = op_registry()
    if isinstance(call.op, E.GlobalVar) or call.op.name not in registry.ops:
        return None
    entry = registry.dsl.get(call.op.name)
    if entry is None:
        return None
    try:
        rebuilt = entry.function(*call.args, **dict(call.kwargs), span=call.span)
    except Exception:  # noqa: BLE001 - a probe: any DSL that cannot take the IR's operands back has no literal form
        return None  # (another signature, a literal it refuses, an operand it reads as a Python value)
    if not isinstance(rebuilt, E.Call) or isinstance(rebuilt.op, E.GlobalVar) or \
            rebuilt.op.name != call.op.name or len(rebuilt.args) != len(call.args):
        return None
    if dict(rebuilt.kwargs) != dict(call.kwargs) or not structural_equal(rebuilt.type, call.type):
        return None
    folded_set = set(folded)
    for i, (new, old) in enumerate(zip(rebuilt.args, call.args)):
        if i not in folded_set and new is not old:
            return None
    return call.with_fields(args=tuple(rebuilt.args))
