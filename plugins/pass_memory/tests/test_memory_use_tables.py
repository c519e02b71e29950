"""Each placed kernel's on-chip memory against the backend's capacity (docs/memory_planning.md, the memory table):
a table under `pypto run`'s comparison, a bar per space on the `pypto trace` page, nothing before placement."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from pypto import ir, passes
from pypto_core.analysis.memory_use import memory_use
from pypto_core.backend.registry import get_backend
from pypto_core.cli import main
from pypto_core.ir.enums import MemorySpace
from pypto_plugins.pass_memory.tests import programs as P
from pypto_plugins.pass_memory.tests.helpers import HEADER, program, run_pass


def placed(text: str, backend: str = "Ascend910B") -> ir.Program:
    return run_pass(passes.allocate_memory_addr, program(text), backend)


def placed_text(text: str, backend: str = "Ascend910B") -> str:
    return ir.python_print(placed(text, backend))


def test_the_high_water_mark_of_each_space_of_each_placed_kernel():
    rows = memory_use(placed(P.declared()), get_backend("Ascend910B"))
    assert [(r.kernel, r.space, r.used, r.capacity) for r in rows] == [("k", MemorySpace.Vec, 40960, 188416)]
    cube = placed(P.cube_kernel("k", func_type="InCore"))
    assert [(r.space.name, r.used) for r in memory_use(cube, get_backend("Ascend950"))] == \
        [("Mat", 1024), ("Left", 512), ("Right", 512), ("Acc", 1024)]
    assert memory_use(cube, get_backend("Ascend950"))[-1].capacity == 262144


def test_nothing_before_placement():
    assert memory_use(program(P.declared()), get_backend("Ascend910B")) == []  # InitMemRef's unplaced form
    assert memory_use(program(P.vec_kernel(16, 64).replace(
        "pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), ", "")), get_backend("Ascend910B")) == []


@pytest.fixture
def kernel_file(tmp_path: Path) -> Path:
    path = tmp_path / "kernel.py"
    path.write_text(placed_text(P.declared()), encoding="utf-8")
    return path


@pytest.mark.parametrize(("backend", "share"), [("Ascend910B", "21.7%"), ("Ascend950", "16.7%")])
def test_pypto_run_prints_the_memory_table(kernel_file, capsys, backend, share):
    code = main(["run", str(kernel_file), "--pipeline", "", "--backend", backend])
    out = capsys.readouterr().out
    assert code == 0
    assert f"on-chip memory per kernel ({backend})" in out
    row = next(line for line in out.splitlines() if "│ k " in line and "Vec" in line)
    assert "40960" in row and str(get_backend(backend).capacity(MemorySpace.Vec)) in row and share in row


def test_pypto_run_prints_no_memory_table_before_placement(tmp_path, capsys):
    path = tmp_path / "unplaced.py"
    path.write_text(HEADER + P.CHAIN, encoding="utf-8")
    assert main(["run", str(path), "--pipeline", ""]) == 0
    assert "on-chip memory per kernel" not in capsys.readouterr().out


def test_pypto_trace_draws_a_bar_per_space(kernel_file, tmp_path):
    out = tmp_path / "trace.html"
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["trace", str(kernel_file), "--pipeline", "normalize_stmt_structure", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert '<div class="mem-row" data-kernel="k" data-space="Vec">' in page
    assert 'style="width:21.7%"' in page and "40960 / 188416 B (21.7%)" in page


def test_an_overflowing_space_is_marked():
    # a hand-placed tile beyond Ascend910B's Vec: the table says OVER (the machine then refuses to run it)
    from pypto_core.trace.render import _memory_bars

    rows = memory_use(placed(P.vec_kernel(64, 752), "Ascend950"), get_backend("Ascend910B"))
    assert not rows[0].fits
    assert 'class="mem-bar over"' in _memory_bars(rows)
