"""`pypto check` and `pypto list`, and how optional commands are loaded."""

from __future__ import annotations

import pytest

from pypto_core.cli import main

from .default_preset import default_passes
from .test_pipeline_toys import support

toy_plugin = support.toy_plugin  # shared fixture


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- check -----------------------------------------------------------------------------------------
def test_check_accepts_the_defaults(capsys, toy_plugin, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "check")
    assert code == 0
    assert "Pipeline (preset 'default')" in out
    assert f"OK: <defaults>: backend Ascend910B, verify basic, {len(default_passes())} pass(es)" in out
    row = next(line for line in out.splitlines() if "outline_incore_scopes" in line)
    assert "OutlineIncoreScopes" in row and "SSAForm" in row


def test_check_rejects_a_pipeline_whose_properties_cannot_hold(capsys, toy_plugin, tmp_path):
    config = tmp_path / "pypto.toml"
    config.write_text('[pipeline]\npasses = ["toy_mark", "toy_unmark", "toy_needs_mark"]\n')
    code, out, err = run(capsys, "check", str(config))
    assert (code, out) == (1, "")
    assert ("pass 'toy_needs_mark' (ToyNeedsMark, step 3) requires property ToyMarked, which does not hold "
            "there: pass 'toy_unmark' (step 2) invalidated it. Registered passes that produce ToyMarked: "
            "toy_liar, toy_mark") in err


def test_check_pipeline_flag_names_the_producers(capsys, toy_plugin, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "check", "--pipeline", "outline_incore_scopes")
    assert code == 1
    assert "pass 'outline_incore_scopes' (OutlineIncoreScopes, step 1) requires property SSAForm" in err
    assert "Registered passes that produce SSAForm: convert_to_ssa" in err


def test_check_reports_config_errors(capsys, toy_plugin, tmp_path):
    config = tmp_path / "pypto.toml"
    config.write_text('[pipeline]\npreset = "defualt"\n')
    code, _, err = run(capsys, "check", str(config))
    assert code == 1 and "pipeline.preset: unknown preset 'defualt'; did you mean 'default'?" in err


# -- list ------------------------------------------------------------------------------------------
def row_of(out: str, first_cell: str) -> str:
    """A table row, with the continuation lines of its multi-line cells."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"│ {first_cell} "))
    block = [lines[start]]
    for line in lines[start + 1:]:
        if not line.startswith("│") or line.split("│")[1].strip():
            break
        block.append(line)
    return "\n".join(block)


def test_list_passes_shows_origin_properties_and_options(capsys, toy_plugin, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")  # wide enough that no cell of the row wraps, whatever the plugin names
    code, out, _ = run(capsys, "list", "passes")
    assert code == 0
    row = row_of(out, "toy_mark")
    assert "ToyMark" in row and "toy_passes" in row and "<registered in process>" in row and "ToyMarked" in row
    assert "label: str = 'on'" in row
    assert "times: int = 1" in out
    core = row_of(out, "run_verifier")
    assert "IRVerifier" in core and "<core>" in core and "pypto (core)" in core


def test_list_ops_shows_the_plugin_and_distribution(capsys, toy_plugin):
    code, out, _ = run(capsys, "list", "ops")
    assert code == 0
    assert "ops_tile" in row_of(out, "tile.add") and "pypto 0.1.0" in row_of(out, "tile.add")


def test_list_ops_shows_the_dsl_spellings_beside_each_op(capsys, toy_plugin, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "list", "ops")
    assert code == 0
    assert "pl.add, pl.tile.add" in row_of(out, "tile.add ")
    assert "pl.add, pl.adds, pl.tile.add, pl.tile.adds" in row_of(out, "tile.adds")
    assert "pld.system.notify" in row_of(out, "pld.system.notify")  # the distributed module's own spelling


def test_list_ops_json_carries_the_spellings(capsys, toy_plugin):
    import json

    code, out, _ = run(capsys, "list", "ops", "--json")
    records = {r["op"]: r for r in json.loads(out)}
    assert records["tensor.add"]["dsl"] == ["pl.add", "pl.tensor.add"]
    assert records["tile.exp"]["plugin"] == "ops_tile"


@pytest.mark.parametrize("argv", [("list", "ops", "tile.adds"), ("list", "ops", "--json", "tile.adds")])
def test_list_ops_name_gives_the_whole_reference(capsys, monkeypatch, argv):
    import json

    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    if "--json" in argv:
        (record,) = json.loads(out)
        assert record["reference"]["args"] == "(lhs, rhs)"
        assert record["reference"]["input memory"] == "lhs Vec"
        assert record["defined_at"].startswith("plugins/ops_tile/families/")
        return
    for field in ("plugin", "args", "DSL", "kwargs", "effects", "input memory", "output memory", "result rule",
                  "defined at"):
        assert field in out, field
    assert "pl.add, pl.adds, pl.tile.add, pl.tile.adds" in out


def test_list_ops_with_an_unknown_name_suggests_near_ones(capsys):
    code, _, err = run(capsys, "list", "ops", "tile.ad")
    assert code == 2
    assert "no op named 'tile.ad'; did you mean" in err and "'tile.add'" in err


def test_names_are_for_ops_only(capsys):
    code, _, err = run(capsys, "list", "passes", "convert_to_ssa")
    assert code == 2 and "list passes: takes no names" in err


def test_list_backends_shows_capabilities(capsys, toy_plugin):
    code, out, _ = run(capsys, "list", "backends")
    assert code == 0
    assert "backend_ascend910b" in row_of(out, "Ascend910B") and "yes" in row_of(out, "Ascend910B")
    assert "requires_no_split_dual_aiv_dispatch = true" in row_of(out, "Ascend910B")
    assert "requires_no_split_dual_aiv_dispatch = false" in row_of(out, "Ascend950")
    assert "1 AIC + 2 AIV" in row_of(out, "Ascend950")


def test_list_properties_marks_unverified_ones(capsys, toy_plugin):
    code, out, _ = run(capsys, "list", "properties")
    assert code == 0
    assert "verified" in row_of(out, "SSAForm") and "<core>" in row_of(out, "SSAForm")
    assert "declared, unverified" in row_of(out, "ToyOrphan") and "toy_passes" in row_of(out, "ToyOrphan")
    assert "verified" in row_of(out, "ToyMarked") and "unverified" not in row_of(out, "ToyMarked")
    assert "declared, unverified" in row_of(out, "PipelineResolved")
    assert "pass_prefix" in row_of(out, "NoNestedCalls")  # verified by the plugin of flatten_call_expr
    assert "yes" in row_of(out, "UseAfterDef")  # structural


def test_list_plugins(capsys, toy_plugin):
    code, out, _ = run(capsys, "list", "plugins")
    assert code == 0
    assert "passes: toy_mark" in row_of(out, "toy_passes")
    assert "pipelines: default" in row_of(out, "pipeline_presets")


def test_list_needs_a_known_kind(capsys, toy_plugin):
    assert run(capsys, "list", "widgets")[0] == 2


# -- help ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["--help"], ["compile", "--help"], ["run", "--help"], ["new-plugin", "--help"]])
def test_help_exits_zero(capsys, argv):
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "usage: pypto" in out


def test_check_accepts_the_tile_preset_and_list_shows_the_tile_passes(capsys):
    code, out, _ = run(capsys, "check", "--pipeline", "tile")
    assert code == 0
    for name in ("convert_tensor_to_tile_ops", "flatten_tile_nd_to_2d", "infer_tile_memory_space"):
        assert name in out
    assert "6 pass(es)" in out
    code, out, _ = run(capsys, "list", "passes")
    assert code == 0
    assert "InferTileMemorySpace" in out and "TileMemoryInferred" in out and "AccToGmStoreValid" in out


def test_list_pipelines_shows_each_preset_and_its_passes(capsys):
    from pypto_core import cli

    assert cli.main(["list", "pipelines"]) == 0
    out = capsys.readouterr().out
    assert "default" in out and "outline" in out and "tile" in out
    assert "split_vector_kernel" in out and "pipeline_presets" in out


@pytest.mark.parametrize("width", [60, 80, 100, 140])
def test_list_never_cuts_a_name_and_says_which_columns_it_left_out(capsys, monkeypatch, width):
    from pypto_core.passes.registry import PASSES

    monkeypatch.setenv("COLUMNS", str(width))
    code, out, _ = run(capsys, "list", "passes")
    assert code == 0
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= width
    for name in PASSES.names():
        assert any(f" {name} " in line for line in lines), name  # whole, on one line
    if width < 140:
        assert "left out at this width:" in out and "distribution" in out.split("left out at this width:")[1]


def test_list_at_80_columns_is_short(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "list", "passes")
    from pypto_core.passes.registry import PASSES

    # every column squeezed in ran 12.6 lines a pass (252 for 20); the dropped columns leave about 4
    assert code == 0 and len(out.splitlines()) < 6 * len(PASSES.names())
