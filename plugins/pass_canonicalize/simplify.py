"""Simplify (placeholder while it is written)."""

from __future__ import annotations

from typing import Any

from pypto_core.ir import function as F
from pypto_core.passes.pass_base import Pass


class Simplify(Pass):
    name = "Simplify"
    factory_name = "simplify"

    def run(self, program: F.Program, ctx: Any) -> F.Program:
        return program
