"""Escaping variables: a value first defined inside a loop body or one if branch and used after it.

PyPTO promotes such a variable, never rejects it (docs/passes/convert_to_ssa.md, escaping variables): a
loop gets an extra iter_arg / return var for it, an if a phi whose other branch yields the value the
variable starts from: `find_init_value` (pypto_core/passes/verifiers/escaping.py, shared with the
UseAfterDef verifier), else a placeholder Var that nothing defines. It prints `<name>__FREE_VAR`; the
pass does not reject it, UseAfterDef reports it as a located error saying to give the variable a value
before the loop or the if (on the program as written, and after this pass).

A non-Runtime scope cuts promotion (`cuts_promotion`): a variable first defined in a loop or a branch
inside it and used after the scope keeps its original, unversioned Var there (`__FREE_VAR` again).
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.types import Type
from pypto_core.passes.verifiers.escaping import cuts_promotion, find_init_value

__all__ = ["EscapeSignal", "ScopedOut", "cuts_promotion", "find_init_value", "placeholder"]


class EscapeSignal(Exception):  # noqa: N818 - a control-flow signal, not an error
    """One conversion attempt met `var` used after `stmt`, which defines it: retry promoting it there."""

    def __init__(self, var: E.Var, stmt: S.Stmt) -> None:
        super().__init__(var.name_hint)
        self.var = var
        self.stmt = stmt


@dataclass(frozen=True)
class ScopedOut:
    """Why a variable is not visible any more: `stmt` (a loop or an if) defined it only inside.

    `scopes`: the ids of the cutting scopes `stmt` was inside; a use outside any of them is not promoted.
    """

    where: str
    stmt: S.Stmt
    loop_var: bool = False
    scopes: tuple[int, ...] = ()


def placeholder(var: E.Var, typ: Type) -> E.Var:
    """A Var nothing defines (prints `<name>__FREE_VAR`): the init of an escaping variable with no candidate."""
    return E.Var(var.name_hint, typ, var.span)
