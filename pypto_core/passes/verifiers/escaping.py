"""Escaping variables: PyPTO's rules for a value first defined inside a loop body or one if branch and
used after it (docs/passes/convert_to_ssa.md, escaping variables).

ConvertToSSA (plugin pass_ssa) promotes such a variable to an extra carry / phi starting from
`find_init_value`; the UseAfterDef verifier asks the same two questions of a program before
ConvertToSSA, so a value that would be left undefined is reported on the program as written:

* `find_init_value`: the value the variable starts from -- the current version of the first Out / InOut
  parameter whose type is the same type *object* as the variable's (identity, as PyPTO compares
  `TypePtr`s), else the visible variable of that type object created first (lowest `unique_id`), else
  none (ConvertToSSA then uses a placeholder that nothing defines: it prints `<name>__FREE_VAR`).
* `CUTTING_SCOPES`: a variable first defined in a loop or a branch inside a non-Runtime scope (`pl.at`,
  `pl.cluster`, `pl.spmd`; not a runtime scope, not a `pl.split_aiv` region) and used after the scope is
  not carried out of it; the use keeps the original, never-defined Var.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import ParamDirection, ScopeKind

CUTTING_SCOPES = frozenset({ScopeKind.InCore, ScopeKind.Hierarchy, ScopeKind.Cluster, ScopeKind.Spmd})


def cuts_promotion(scope: Any) -> bool:
    """A scope statement whose body keeps what a loop or a branch inside it first defines."""
    return getattr(scope, "scope_kind", None) in CUTTING_SCOPES


def find_init_value(var: E.Var, params: Sequence[E.Var], directions: Sequence[ParamDirection],
                    visible: Mapping[int, tuple[E.Var, E.Expr]]) -> E.Expr | None:
    """The value the escaping `var` starts from; None when nothing qualifies (PyPTO's placeholder case).

    `visible`: id of each Var visible before the loop or the if -> (that Var as the program wrote it, its
    current value). Types are compared by identity on the Vars as written.
    """
    for param, direction in zip(params, directions):
        if direction in (ParamDirection.Out, ParamDirection.InOut) and param.type is var.type:
            hit = visible.get(id(param))
            if hit is not None:
                return hit[1]
    best: tuple[E.Var, E.Expr] | None = None
    for original, current in visible.values():
        if original is not var and original.type is var.type and \
                (best is None or original.unique_id < best[0].unique_id):
            best = (original, current)
    return best[1] if best is not None else None


def fix_for(stmt: Any = None) -> str:
    """The fix a finding names: give the variable a value before the statement it escapes."""
    if isinstance(stmt, S.IfStmt):
        return "give it a value before the if"
    if isinstance(stmt, (S.ForStmt, S.WhileStmt)):
        return "give it a value before the loop"
    return "give it a value before the loop or the if that assigns it"
