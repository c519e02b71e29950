"""The `tile` preset on a corpus of tensor-level kernels (tests/tile/kernels/*.py), on both backends.

Each kernel is parsed (never executed) and compiled with the `tile` preset (convert_to_ssa,
normalize_stmt_structure, outline_incore_scopes, convert_tensor_to_tile_ops, flatten_tile_nd_to_2d,
infer_tile_memory_space) under verify = "check-run" plus the round-trip instrument: every pass is
printed and re-parsed, and the program is run on the reference machine before and after every pass.
The final program is then run once more against the input program, and its InCore functions are
checked structurally: tensor ops are gone (except tensor.read / write / dim), every tile variable
has a memory space, and no tile has rank > 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pypto_core.interp import Machine, compare_outputs, make_inputs, run_program, shape_from_backend
from pypto_core.ir import expr as E
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.function import Program
from pypto_core.ir.types import TileType
from pypto_core.ir.visitor import IRVisitor
from pypto_core.language.api import parse
from pypto_core.passes.manager import PassManager
from pypto_core.testing import checked_pipeline

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"
KERNELS = sorted(KERNEL_DIR.glob("*.py"))
BACKENDS = ("Ascend910B", "Ascend950")
MIN_KERNELS = 36
# Seeds of the final before/after comparison: scalar parameters (if conditions, trip counts) differ.
SEEDS = (0, 1)

INCORE_KINDS = (FunctionType.InCore, FunctionType.AIC, FunctionType.AIV)
TENSOR_OPS_ALLOWED_IN_KERNELS = frozenset({"tensor.read", "tensor.write", "tensor.dim"})


def tile_pass_manager(backend: str) -> PassManager:
    """The `tile` preset resolved the way `pypto.toml` would (preset name -> pass objects)."""
    return checked_pipeline(backend, "tile")


def compile_kernel(path: Path, backend: str) -> tuple[Program, Program]:
    program = parse(path.read_text(encoding="utf-8"), str(path))
    return program, tile_pass_manager(backend).run(program)


class _TileFacts(IRVisitor):
    """What one InCore function still holds that the tile passes should have removed."""

    def __init__(self, func_name: str) -> None:
        self.func_name = func_name
        self.problems: list[str] = []

    def visit_call(self, call: E.Call) -> None:
        name = getattr(call.op, "name", "")
        if isinstance(call.op, E.Op) and name.startswith("tensor.") and name not in TENSOR_OPS_ALLOWED_IN_KERNELS:
            self.problems.append(f"{self.func_name}: tensor op {name} left in an InCore function")
        if isinstance(call.type, TileType) and len(call.type.shape) > 2:
            self.problems.append(f"{self.func_name}: {name} produces a rank-{len(call.type.shape)} tile")
        self.visit_node(call)

    def visit_var_like(self, var: E.Var) -> None:
        t = var.type
        if isinstance(t, TileType):
            if t.memory_space is None:
                self.problems.append(f"{self.func_name}: tile variable {var.name_hint} has no memory space")
            if len(t.shape) > 2:
                self.problems.append(f"{self.func_name}: tile variable {var.name_hint} has rank {len(t.shape)}")
        super().visit_var_like(var)


def tile_problems(program: Program) -> list[str]:
    problems: list[str] = []
    for func in program.functions.values():
        if func.func_type in INCORE_KINDS:
            facts = _TileFacts(func.name)
            facts.visit_function(func)
            problems.extend(dict.fromkeys(facts.problems))
    return problems


def assert_same_results(before: Program, after: Program, backend: str) -> None:
    shape = shape_from_backend(backend)
    compared = 0
    for entry in Machine(before, shape=shape).roots():
        for seed in SEEDS:
            inputs = make_inputs(entry, seed=seed)
            checks = compare_outputs(run_program(before, inputs, entry.name, shape),
                                     run_program(after, inputs, entry.name, shape))
            compared += len(checks)
            bad = [f"{c.label}: {c.comparison.describe()}" for c in checks if not c.comparison.ok]
            assert not bad, f"{entry.name} (seed {seed}) computes something else after the tile preset: " \
                            + "; ".join(bad)
    assert compared, "no output was compared"


def test_corpus_size():
    assert len(KERNELS) >= MIN_KERNELS, f"only {len(KERNELS)} kernels in {KERNEL_DIR}"


def test_every_kernel_says_what_it_exercises():
    for path in KERNELS:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# ") and len(first) > 10, f"{path.name}: first line must be a comment"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", KERNELS, ids=[p.stem for p in KERNELS])
def test_tile_preset(path: Path, backend: str):
    before, after = compile_kernel(path, backend)
    assert any(f.func_type in INCORE_KINDS for f in after.functions.values()), "no InCore function after outlining"
    assert_same_results(before, after, backend)
    problems = tile_problems(after)
    assert not problems, "\n".join(problems)
