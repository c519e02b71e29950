"""Shared steps of the InitMemRef / MaterializeSemanticAliases tests: run a pass under the verified context,
read MemRefs per variable (structural equality ignores them, docs/memory_planning.md), compare printed lines."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir, passes
from pypto_core.analysis.walk import statements
from pypto_core.passes.instruments.assemble import pass_test_instruments
from pypto_core.testing import same_results

HEADER = "import pypto.language as pl\n\n"


def run_pass(factory: str, program: ir.Program, backend: str = "Ascend910B", planner: object = None,
             check: bool = True) -> ir.Program:
    """`factory` on `program` with verification + round trip, on `backend`; the outputs must not change."""
    with passes.PassContext(pass_test_instruments(), backend=backend, memory_planner=planner):
        after = getattr(passes, factory)()(program)
    if check:
        same_results(program, after)
    return after


def parse(src: str, ssa: bool = False) -> ir.Program:
    program = pl.parse(src if src.lstrip().startswith("import") else HEADER + src)
    return passes.convert_to_ssa()(program) if ssa else program


def tile_vars(program: ir.Program, func: str = "k") -> dict[str, ir.Var]:
    """Every variable a function defines or takes, by name (parameters, assignments, carries, results)."""
    f = program.get_function(func)
    out = {p.name_hint: p for p in f.params}
    for stmt in statements(f.body):
        if isinstance(stmt, ir.AssignStmt):
            out[stmt.var.name_hint] = stmt.var
        for name in ("iter_args", "return_vars"):
            for v in getattr(stmt, name, ()) or ():
                out[v.name_hint] = v
    return out


def memref(program: ir.Program, name: str, func: str = "k") -> ir.MemRef:
    return getattr(tile_vars(program, func)[name].type, "memref", None)


def layout(program: ir.Program, func: str = "k") -> dict[str, tuple[str, object, int]]:
    """name -> (allocation name, offset, size) for every variable with a MemRef."""
    out = {}
    for name, var in tile_vars(program, func).items():
        m = getattr(var.type, "memref", None)
        if m is not None:
            offset = m.byte_offset_.value if isinstance(m.byte_offset_, ir.ConstInt) else m.byte_offset_
            out[name] = (m.base_.name_hint, offset, m.size_)
    return out


def allocs(program: ir.Program, func: str = "k") -> list[tuple[str, str, int, bool]]:
    """(name, space, size, pinned) of the function's allocation statements, in order."""
    out = []
    for stmt in program.get_function(func).body.stmts:
        if isinstance(stmt, ir.AssignStmt) and isinstance(stmt.var.type, ir.PtrType):
            call = stmt.value
            out.append((stmt.var.name_hint, pl.Mem(call.args[0].value).name, call.args[1].value,
                        bool(call.kwargs.get("pinned", False))))
    return out


def body_lines(text: str) -> list[str]:
    """The typed statement lines of printed text, stripped (the header and decorators left out)."""
    return [line.strip() for line in text.splitlines()
            if (": pl." in line or line.strip().startswith(("if ", "else", "for ", "pl.", "return")))
            and "def " not in line and "@pl." not in line]


def printed(program: ir.Program) -> str:
    return ir.python_print(program, format=False)
