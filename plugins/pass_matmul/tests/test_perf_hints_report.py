"""AutoTileMatmulL0's PH-AT-* hints go through the core perf-hint channel: with a `passes.ReportInstrument` in the
context they land in `<dir>/perf_hints.log` instead of stderr (docs/passes/auto_tile_matmul_l0.md, hints)."""

from __future__ import annotations

from pypto import passes
from pypto_plugins.pass_matmul.tests.helpers import matmul_kernel


def test_a_matmul_hint_is_written_to_the_report_log(tmp_path, capfd):
    before = matmul_kernel(32, 128, 1000)
    with passes.PassContext([passes.ReportInstrument(tmp_path)], backend="Ascend910B"):
        assert passes.auto_tile_matmul_l0()(before) is before
    log = (tmp_path / "perf_hints.log").read_text()
    assert "[perf_hint PH-AT-007] AutoTileMatmulL0: tile.matmul: K=1000 is not a multiple of the cube fractal 16" \
        in log
    assert "PH-AT-007" not in capfd.readouterr().err
