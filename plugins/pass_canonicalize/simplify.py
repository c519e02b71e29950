"""Simplify: scalar arithmetic to a canonical, folded form; scalar constants propagated; dead branches,
0/1-trip loops and unused scalar bindings removed (docs/passes/simplify.md).

Every function of the program is simplified (simplify_stmts.py, with the expression rules of
simplify_exprs.py), then cleaned up (dead_scalars.py). A function that does not change is kept as it
is, and so is the program when none does.
"""

from __future__ import annotations

from typing import Any

from pypto_core.ir import function as F
from pypto_core.ir.structural import structural_equal
from pypto_core.passes.pass_base import Pass
from pypto_plugins.pass_canonicalize.dead_scalars import cleanup
from pypto_plugins.pass_canonicalize.simplify_stmts import FunctionSimplifier


class Simplify(Pass):
    """Fold and canonicalise integer / bool scalar arithmetic, propagate scalar constants, drop dead code."""

    name = "Simplify"
    factory_name = "simplify"
    description = ("Fold and canonicalise scalar integer arithmetic, propagate top-level scalar constants, fold "
                   "provable ifs and 0/1-trip loops, drop unused scalar bindings.")

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        functions: list[F.Function] = []
        changed = False
        for func in program.functions.values():
            simplified = FunctionSimplifier(func).run()
            simplified = simplified.with_fields(body=cleanup(simplified.body))
            if structural_equal(simplified, func):
                simplified = func
            changed = changed or simplified is not func
            functions.append(simplified)
        return F.Program(functions, program.name, program.span) if changed else program
