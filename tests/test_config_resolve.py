"""pypto.toml resolved against the registries: backends, presets, passes, options, plugins, overrides."""

from __future__ import annotations

import pytest

from pypto_core.config import (
    CliOverrides,
    ConfigError,
    build_pass_manager,
    load_config,
    parse_config_text,
    resolve_config,
)
from pypto_core.passes.instruments import IRDumpInstrument, PrintAfterInstrument
from pypto_core.plugins.host import plugin_host

from .default_preset import default_passes
from .test_pipeline_toys import support

toy_plugin = support.toy_plugin  # shared fixture


def resolve(text: str, cli: CliOverrides | None = None):
    return resolve_config(parse_config_text(text, "pypto.toml"), cli)


def error_of(text: str, cli: CliOverrides | None = None) -> str:
    with pytest.raises(ConfigError) as info:
        resolve(text, cli)
    return str(info.value)


def test_no_file_means_default_preset_and_ascend910b(toy_plugin, tmp_path):
    resolved = resolve_config(load_config(search_dir=tmp_path))
    assert resolved.backend == "Ascend910B"
    assert [s.name for s in resolved.steps] == default_passes()
    assert resolved.steps[0].name == "inline_functions" and "split_vector_kernel" in default_passes()
    assert resolved.pipeline_origin == "preset 'default'"
    assert resolved.verify == "basic"


def test_passes_and_their_option_tables(toy_plugin):
    resolved = resolve('[pipeline]\npasses = ["toy_mark", "toy_needs_mark"]\n[passes.toy_mark]\nlabel = "L"\n')
    assert [p.factory_name for p in resolved.passes] == ["toy_mark", "toy_needs_mark"]
    assert resolved.passes[0].options.label == "L"


def test_inline_options_override_the_table(toy_plugin):
    resolved = resolve('[pipeline]\npasses = ["toy_mark{times=3}"]\n[passes.toy_mark]\nlabel = "L"\ntimes = 2\n')
    assert (resolved.passes[0].options.label, resolved.passes[0].options.times) == ("L", 3)


def test_a_preset_from_a_plugin(toy_plugin):
    resolved = resolve('[pipeline]\npreset = "toy_marking"\n')
    assert [p.factory_name for p in resolved.passes] == ["toy_mark", "toy_needs_mark"]


def test_backend_names_are_case_insensitive(toy_plugin):
    assert resolve('backend = "ascend950"\n').backend == "Ascend950"


# -- each kind of unknown name -------------------------------------------------------------------------
def test_unknown_backend(toy_plugin):
    assert error_of('backend = "Ascend91B"\n') == (
        "pypto.toml:1: backend: unknown backend 'Ascend91B'; did you mean 'Ascend910B'?")


def test_unknown_preset(toy_plugin):
    assert error_of('[pipeline]\npreset = "defualt"\n') == (
        "pypto.toml:2: pipeline.preset: unknown preset 'defualt'; did you mean 'default'?")


def test_preset_naming_an_unregistered_pass(toy_plugin):
    assert error_of('[pipeline]\npreset = "toy_dangling"\n').startswith(
        "pipeline preset 'toy_dangling' (from plugin 'toy_passes'): unknown pass 'toy_no_such_pass'")


def test_unknown_pass_in_the_pipeline(toy_plugin):
    assert error_of('[pipeline]\npasses = ["toy_mark", "toy_mrak"]\n') == (
        "pypto.toml:2: pipeline.passes: unknown pass or preset 'toy_mrak'; did you mean 'toy_mark'?")


def test_unknown_pass_table(toy_plugin):
    assert error_of("[passes.toy_mrak]\nlabel = 1\n") == (
        "pypto.toml:1: passes.toy_mrak: unknown pass 'toy_mrak'; did you mean 'toy_mark'?")


def test_unknown_pass_option(toy_plugin):
    assert error_of('[passes.toy_mark]\nlabell = "x"\n') == (
        "pypto.toml:2: passes.toy_mark: pass 'toy_mark' has no option 'labell'; did you mean 'label'?")  # its line


def test_ill_typed_pass_option(toy_plugin):
    message = error_of('[pipeline]\npasses = ["toy_mark"]\n[passes.toy_mark]\ntimes = "many"\n')
    assert message.startswith(
        "pypto.toml:4: passes.toy_mark: invalid options for pass toy_mark: times: Input should be a valid integer")
    assert message.endswith("(got 'many')")  # the option's own line and the offending value


def test_bad_pipeline_string_in_the_file(toy_plugin):
    assert "pipeline.passes: bad pipeline string: missing '}' or ']'" in error_of(
        '[pipeline]\npasses = ["toy_mark{times=1"]\n')


def test_unknown_print_after_pass(toy_plugin):
    assert error_of('[dump]\nprint_after = ["toy_mak"]\n') == (
        "pypto.toml:2: dump.print_after: unknown pass 'toy_mak'; did you mean 'toy_mark'?")


def test_unknown_plugin_to_disable(toy_plugin):
    assert error_of('[plugins]\ndisable = ["backend_ascend91b"]\n') == (
        "pypto.toml:2: plugins.disable: no plugin named 'backend_ascend91b'; did you mean 'backend_ascend910b'?")


# -- command-line overrides ---------------------------------------------------------------------------
def test_cli_pipeline_overrides_the_file_and_keeps_its_option_tables(toy_plugin):
    resolved = resolve('[pipeline]\npreset = "default"\n[passes.toy_mark]\nlabel = "file"\n',
                       CliOverrides(pipeline="toy_mark{times=2},toy_needs_mark"))
    assert [p.factory_name for p in resolved.passes] == ["toy_mark", "toy_needs_mark"]
    assert (resolved.passes[0].options.label, resolved.passes[0].options.times) == ("file", 2)
    assert resolved.pipeline_origin == "--pipeline"


def test_cli_errors_name_the_flag(toy_plugin):
    assert error_of("", CliOverrides(pipeline="toy_mrak")) == "--pipeline: unknown pass or preset 'toy_mrak'; did you mean 'toy_mark'?"
    assert error_of("", CliOverrides(pipeline="toy_mark{x=1}")).startswith(
        "--pipeline: pass 'toy_mark' has no option 'x'")
    assert error_of("", CliOverrides(backend="nope")).startswith("--backend: unknown backend 'nope'")
    assert error_of("", CliOverrides(print_after=["toy_mak"])).startswith("--print-after: unknown pass 'toy_mak'")
    assert error_of("", CliOverrides(disable_plugins=["toy_pases"])) == (
        "-p no:toy_pases: no plugin named 'toy_pases'; did you mean 'toy_passes'?")


def test_cli_flags_override_scalar_settings(toy_plugin):
    resolved = resolve('backend = "Ascend950"\nverify = "none"\n[dump]\nprint_after = ["toy_mark"]\n',
                       CliOverrides(backend="Ascend910B", verify="roundtrip", dump_dir="d", timing=True,
                                    print_after=["ToyNeedsMark"]))
    assert (resolved.backend, resolved.verify, resolved.dump.dir, resolved.dump.timing) == (
        "Ascend910B", "roundtrip", "d", True)
    assert resolved.dump.print_after == ["toy_mark", "ToyNeedsMark"]


def test_disabling_a_plugin_removes_what_it_registered(toy_plugin):
    with pytest.raises(ConfigError, match="unknown backend 'Ascend950'"):
        resolve('backend = "Ascend950"\n[plugins]\ndisable = ["backend_ascend950"]\n')
    assert [b.name for b in plugin_host().blocked] == ["backend_ascend950"]


def test_the_manager_gets_the_dump_and_print_instruments(toy_plugin, tmp_path):
    resolved = resolve(f'[pipeline]\npasses = ["toy_mark"]\n[dump]\ndir = "{tmp_path}"\nprint_after_change = true\n')
    manager = build_pass_manager(resolved)
    from pypto_core.passes.instruments.assemble import assemble

    assembly = assemble(manager.level, outputs=manager.outputs, extra=manager.instruments)
    assert [type(i) for i in assembly.context] == [IRDumpInstrument, PrintAfterInstrument]
    assert manager.backend == "Ascend910B" and assembly.timing is None
