"""pypto.toml: the model, loading, and the error for each kind of mistake in the file itself."""

from __future__ import annotations

import pytest

from pypto_core.config import DEFAULTS_SOURCE, ConfigError, PyptoConfig, load_config, parse_config_text

FULL = '''
backend = "Ascend950"
verify = "roundtrip"

[pipeline]
passes = ["convert_to_ssa", "outline_incore_scopes"]

[passes.convert_to_ssa]

[dump]
dir = "dumps"
print_after_all = true
print_after = "convert_to_ssa"
print_after_change = true
timing = true

[plugins]
disable = ["backend_ascend910b"]
'''


def error_text(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config_text(text, "pypto.toml")
    return str(info.value)


def test_every_key_is_read():
    model = parse_config_text(FULL, "pypto.toml").model
    assert model.backend == "Ascend950"
    assert model.verify == "roundtrip"
    assert model.pipeline.passes == ["convert_to_ssa", "outline_incore_scopes"]
    assert model.passes == {"convert_to_ssa": {}}
    assert (model.dump.dir, model.dump.print_after_all, model.dump.print_after, model.dump.print_after_change,
            model.dump.timing) == ("dumps", True, ["convert_to_ssa"], True, True)
    assert model.plugins.disable == ["backend_ascend910b"]


def test_defaults_without_a_file(tmp_path):
    loaded = load_config(search_dir=tmp_path)
    assert loaded.source == DEFAULTS_SOURCE
    assert loaded.model == PyptoConfig()
    assert (loaded.model.backend, loaded.model.verify, loaded.model.pipeline.preset) == (None, "basic", None)


def test_the_file_in_the_search_directory_is_used(tmp_path):
    (tmp_path / "pypto.toml").write_text('verify = "none"\n')
    loaded = load_config(search_dir=tmp_path)
    assert loaded.source.endswith("pypto.toml") and loaded.model.verify == "none"


def test_an_explicit_file_must_exist(tmp_path):
    with pytest.raises(ConfigError, match=r"missing\.toml: cannot read the configuration"):
        load_config(tmp_path / "missing.toml")


def test_unknown_top_level_key_with_line_and_suggestion():
    assert error_text('verify = "basic"\nbakcend = "Ascend950"\n') == (
        "pypto.toml:2: bakcend: unknown key 'bakcend'; did you mean 'backend'?")


def test_unknown_key_in_a_section():
    assert error_text('[dump]\ndir = "d"\nprint_after_al = true\n') == (
        "pypto.toml:3: dump.print_after_al: unknown key 'print_after_al' in [dump]; did you mean 'print_after_all'?")


def test_unknown_section():
    assert error_text("[plugin]\ndisable = []\n") == (
        "pypto.toml:1: plugin: unknown key 'plugin'; did you mean 'plugins'?")


def test_bad_verification_level():
    assert error_text('verify = "rountrip"\n') == (
        "pypto.toml:1: verify: 'rountrip' is not one of none, basic, roundtrip, check-run; did you mean 'roundtrip'?")


def test_wrong_value_type_names_the_key():
    assert error_text("[dump]\ntiming = \"yes\"\n").startswith("pypto.toml:2: dump.timing: Input should be a valid boolean")


def test_preset_and_passes_together():
    assert "give either 'preset' or 'passes', not both" in error_text(
        '[pipeline]\npreset = "default"\npasses = ["convert_to_ssa"]\n')


def test_invalid_toml():
    assert error_text("backend = \n").startswith("pypto.toml: not valid TOML:")


def test_several_mistakes_are_reported_together():
    text = error_text('verfy = "basic"\n[dump]\ndirr = "x"\n')
    assert text.splitlines() == ["pypto.toml:1: verfy: unknown key 'verfy'; did you mean 'verify'?",
                                 "pypto.toml:3: dump.dirr: unknown key 'dirr' in [dump]; did you mean 'dir'?"]
