"""LowerCompositeOps (docs/passes/lower_composite_ops.md): every call of a composite op (one that implements
the `expand` op interface) becomes the expression its plugin gives, repeatedly, until no composite op is left.

The pass asks the registry and keeps no list of its own: an op plugin makes an op composite by declaring its
expansion. None of the bundled ops is composite (each has its own type rule, tile form and numpy semantics), so
on programs of the bundled ops the pass changes nothing. An expansion must compute a value of the call's own
type; one that does not, or that keeps expanding into composite ops, is a defect of its plugin
(pypto.InternalError naming the op and the plugin).
"""

from __future__ import annotations

from typing import Any

from pypto_core.errors import InternalError
from pypto_core.ir import expr as E
from pypto_core.ir import function as F
from pypto_core.ir.structural import structural_equal
from pypto_core.ir.visitor import IRMutator
from pypto_core.language.printer import python_print_type
from pypto_core.ops.registry import op_registry
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_tile.interfaces import EXPAND

# An expansion may produce other composite ops; this many rounds on one call means it never ends.
MAX_ROUNDS = 64


class _Expand(IRMutator):
    def __init__(self) -> None:
        self.depth = 0  # expansions being expanded inside one another

    def visit_call(self, call: E.Call) -> E.Expr:
        new = super().visit_call(call)
        for _ in range(MAX_ROUNDS):
            if not isinstance(new, E.Call) or type(new.op) is not E.Op:
                return new
            expand = op_registry().implementation(EXPAND.name, new.op.name)
            if expand is None:
                return new
            expansion = _expanded(new, expand)
            self.depth += 1
            try:
                if self.depth > MAX_ROUNDS:
                    break
                new = super().visit_call(expansion) if isinstance(expansion, E.Call) else self.visit_expr(expansion)
            finally:
                self.depth -= 1
        raise InternalError(f"LowerCompositeOps: expanding {call.op.name} still yields a composite op after "
                            f"{MAX_ROUNDS} rounds (plugin '{_owner(call)}': its expansion must end in ops that "
                            f"are not composite)")


def _expanded(call: E.Call, expand: Any) -> E.Expr:
    try:
        result = expand(call, list(call.args))
    except ValueError:
        raise  # the expansion found a user error in the call (a located ValueError): the user's to fix
    except Exception as exc:
        raise InternalError(f"LowerCompositeOps: the expansion of {call.op.name} (plugin '{_owner(call)}') failed: "
                            f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(result, E.Expr) or not structural_equal(result.type, call.type):
        got = python_print_type(result.type) if isinstance(result, E.Expr) else type(result).__name__
        raise InternalError(f"LowerCompositeOps: the expansion of {call.op.name} (plugin '{_owner(call)}') gives "
                            f"{got}, but the call is {python_print_type(call.type)}; an expansion must compute "
                            f"the call's own value")
    return result


def _owner(call: E.Call) -> str:
    return op_registry().op_owners.get(call.op.name, "?")


class LowerCompositeOps(Pass):
    """Expand composite ops into the ops that compute them (docs/passes/lower_composite_ops.md)."""

    name = "LowerCompositeOps"
    factory_name = "lower_composite_ops"
    description = ("Replace each call of a composite op (one implementing the expand interface) by its expansion; the bundled ops are "
                   "not composite.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        return _Expand().visit_program(program)
