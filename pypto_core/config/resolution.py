"""Resolving a configuration against the registries: which plugins load (first: blocking one changes what
is registered), the backend, the pipeline's passes with their options, the verification level and the
outputs; every name is checked and a bad one is an error at its line with the closest known name.
Command-line flags override the file (`CliOverrides`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from pypto_core.config.errors import (
    ConfigError,
    did_you_mean,
    dotted,
    shown_value,
    translate_validation_error,
)
from pypto_core.config.loading import LoadedConfig
from pypto_core.config.schema import DEFAULT_PRESET, DumpSection
from pypto_core.passes.pipeline_spec import PipelineSpecError, PipelineStep, parse_pipeline
from pypto_core.passes.verification_level import VERIFY_LEVELS


@dataclass
class CliOverrides:
    pipeline: str | None = None
    backend: str | None = None
    verify: str | None = None
    dump_dir: str | None = None
    print_after_all: bool = False
    print_after: list[str] = field(default_factory=list)
    print_after_change: bool = False
    timing: bool = False
    disable_plugins: list[str] = field(default_factory=list)
    print_before_all: bool = False
    print_before: list[str] = field(default_factory=list)
    print_changed: str | None = None  # "full" or "diff"
    filter_func: list[str] = field(default_factory=list)


@dataclass
class ResolvedConfig:
    source: str
    backend: str
    steps: list[PipelineStep]
    passes: list[Any]  # Pass instances, in pipeline order
    verify: str
    dump: DumpSection
    disabled_plugins: list[str]
    pipeline_origin: str  # where the pass list came from, for `pypto check`


def select_plugins(loaded: LoadedConfig, cli_blocks: Sequence[str] = ()) -> list[str]:
    """Load the plugins with those the file (`[plugins] disable`) and `-p no:NAME` name blocked: the first step
    of resolution, since blocking a plugin changes what is registered. Returns the blocked names."""
    from pypto_core.plugins.host import discovered_plugin_names, load_plugins

    known = discovered_plugin_names()
    for i, name in enumerate(loaded.model.plugins.disable):
        if name not in known:
            raise loaded.error(["plugins", "disable"], f"no plugin named '{name}'{did_you_mean(name, known)}",
                               at=["plugins", "disable", str(i)])
    for name in cli_blocks:
        if name not in known:
            raise ConfigError(f"-p no:{name}: no plugin named '{name}'{did_you_mean(name, known)}")
    disabled = list(dict.fromkeys(loaded.model.plugins.disable + list(cli_blocks)))
    load_plugins(disabled)
    return disabled


def _resolve_backend(loaded: LoadedConfig, cli: CliOverrides) -> str:
    from pypto_core.backend.selection import DEFAULT_BACKEND, resolve_backend_name

    if cli.backend is not None and not cli.backend.strip():
        raise ConfigError("--backend: an empty backend name; give one, e.g. --backend Ascend910B "
                          "(`pypto list backends` shows them)")
    name = cli.backend or loaded.model.backend or DEFAULT_BACKEND
    try:
        return resolve_backend_name(name)
    except ValueError as exc:
        if cli.backend:
            raise ConfigError(f"--backend: {exc}") from None
        raise loaded.error(["backend"], str(exc)) from None


def _pass_class(name: str, fail: Any, presets_allowed: bool = False) -> type:
    """The pass class a name stands for. In a pipeline (`presets_allowed`) a preset name is also accepted,
    so a misspelling is matched against both and the known presets are listed beside the passes."""
    from pypto_core.passes.registry import PASSES, PIPELINES

    cls = PASSES.get(name)
    if cls is None:
        from pypto_core.plugins.host import unavailable_provider_note

        if presets_allowed:
            hint = did_you_mean(name, PASSES.names() + PIPELINES.names())
            if hint.startswith(" (known"):
                hint = (f" (known passes: {', '.join(sorted(PASSES.names()))}; presets: "
                        f"{', '.join(sorted(PIPELINES.names()))})")
            kind = "pass or preset"
        else:
            hint, kind = did_you_mean(name, PASSES.names()), "pass"
        raise fail(f"unknown {kind} '{name}'{hint}{unavailable_provider_note('pass', name)}")
    return cls


def _expand_presets(steps: list[PipelineStep]) -> list[PipelineStep]:
    """A step naming a preset (and no pass) stands for the preset's passes: `--pipeline tile,run_verifier`."""
    from pypto_core.passes.registry import PASSES, PIPELINES

    out: list[PipelineStep] = []
    for step in steps:
        names = PIPELINES.get(step.name) if PASSES.get(step.name) is None and not step.options else None
        out.extend([PipelineStep(n) for n in names] if names is not None else [step])
    return out


def _steps(loaded: LoadedConfig, cli: CliOverrides) -> tuple[list[PipelineStep], str, Any]:
    """The pipeline steps, where they came from, and how to report an error about one of them (one
    function for all, or a list with one per step)."""
    from pypto_core.passes.registry import PIPELINES

    if cli.pipeline is not None:
        def fail_cli(msg: str) -> ConfigError:
            return ConfigError(f"--pipeline: {msg}")

        if not cli.pipeline.strip():  # `--pipeline ''`: no pass; the program is parsed, verified, printed
            return [], "--pipeline", fail_cli
        try:
            return _expand_presets(parse_pipeline(cli.pipeline)), "--pipeline", fail_cli
        except PipelineSpecError as exc:
            raise ConfigError(f"--pipeline: {exc.message}") from None

    section = loaded.model.pipeline
    if section.passes is not None:
        steps: list[PipelineStep] = []
        fails: list[Any] = []  # per step: an error at the line of the entry that wrote it
        for i, entry in enumerate(section.passes):
            def fail_entry(msg: str, _i: int = i) -> ConfigError:
                return loaded.error(["pipeline", "passes"], msg, at=["pipeline", "passes", str(_i)])

            try:
                parsed = parse_pipeline(entry)
            except PipelineSpecError as exc:
                raise fail_entry(exc.message) from None
            expanded = _expand_presets(parsed)
            steps.extend(expanded)
            fails.extend([fail_entry] * len(expanded))
        if not steps:
            raise loaded.error(["pipeline", "passes"], "the pipeline names no pass")
        return steps, f"{loaded.source} [pipeline] passes", fails
    preset = section.preset or DEFAULT_PRESET
    names = PIPELINES.get(preset)
    if names is None:
        raise loaded.error(["pipeline", "preset"],
                           f"unknown preset '{preset}'{did_you_mean(preset, PIPELINES.names())}")
    owner = PIPELINES.owner(preset)

    def fail_preset(msg: str) -> ConfigError:
        return ConfigError(f"pipeline preset '{preset}' (from plugin '{owner}'): {msg}")

    return [PipelineStep(n) for n in names], f"preset '{preset}'", fail_preset


def _check_options(cls: type, options: dict[str, Any], fail: Any) -> None:
    known = list(cls.Options.model_fields)  # type: ignore[attr-defined]
    for key in options:
        if key not in known:
            hint = (did_you_mean(key, known) if known
                    else " (it takes no options; `pypto list passes` shows each pass's options)")
            raise fail(f"pass '{cls.factory_name}' has no option '{key}'{hint}", key)  # type: ignore[attr-defined]


def _check_property_names(names: Any, fail: Any) -> None:
    """`run_verifier`'s `properties`: every name must be a registered IR property."""
    from pypto_core.passes.properties import IRProperty

    known = [p.name for p in IRProperty]
    for i, name in enumerate(names or []):
        if IRProperty.lookup(str(name)) is None:
            raise fail(f"unknown IR property {shown_value(name)}{did_you_mean(str(name), known)}",
                       "properties", i)


# Checks of option values beyond their types, per pass: what the pass itself would reject later.
_OPTION_VALUE_CHECKS: dict[str, dict[str, Callable[[Any, Any], None]]] = {
    "run_verifier": {"properties": _check_property_names},
}


def _validated_options(cls: type, options: dict[str, Any], fail: Any) -> Any:
    """The pass's Options object for `options`; `fail(msg, *path)` makes the error of a bad one (the path
    is the option and, for an array option, the entry)."""
    _check_options(cls, options, fail)
    factory = getattr(cls, "factory_name", "") or getattr(cls, "name", "")
    try:
        model = cls.Options.model_validate(options)  # type: ignore[attr-defined]
    except ValidationError as exc:
        first: list[Any] = []

        def place(loc: list[Any], text: str) -> tuple[int, str]:
            first.append((loc, text))
            return 0, text

        translate_validation_error(exc, cls.Options, place)  # type: ignore[attr-defined]
        loc, text = first[0]
        raise fail(f"invalid options for pass {factory}: {dotted(loc)}: {text}", *loc) from None
    for key, check in _OPTION_VALUE_CHECKS.get(factory, {}).items():
        if key in options:
            check(getattr(model, key),
                  lambda msg, *path: fail(f"invalid options for pass {factory}: {dotted(path)}: {msg}", *path))
    return model


def _instantiate(cls: type, options: dict[str, Any], fail: Any) -> Any:
    _validated_options(cls, options, fail)
    try:
        return cls(**options)
    except ValueError as exc:
        raise fail(str(exc)) from None


def _check_print_after(names: list[str], fail: Any) -> None:
    """Every name is a pass (factory or class name); `fail(msg, index)` makes the error of entry `index`."""
    from pypto_core.passes.registry import PASSES

    known = PASSES.names() + [cls.name for _, cls in PASSES.items()]
    for i, name in enumerate(names):
        if name not in known:
            raise fail(f"unknown pass '{name}'{did_you_mean(name, known)}", i)


def resolve_config(loaded: LoadedConfig, cli: CliOverrides | None = None) -> ResolvedConfig:
    """Check every name in the configuration against the registries and build the passes."""
    cli = cli or CliOverrides()
    disabled = select_plugins(loaded, cli.disable_plugins)  # first: it changes what is registered
    backend = _resolve_backend(loaded, cli)
    file_options: dict[str, dict[str, Any]] = {}
    for name, options in loaded.model.passes.items():
        # Every table, whether or not its pass is in the pipeline: `check` and `compile` must agree.
        def fail_table(msg: str, *at: Any, _name: str = name) -> ConfigError:
            return loaded.error(["passes", _name], msg, at=["passes", _name, *(str(a) for a in at)])

        cls = _pass_class(name, fail_table)
        _validated_options(cls, options, fail_table)
        file_options[name] = options
    steps, origin, fails = _steps(loaded, cli)
    # A step written by the user (--pipeline, [pipeline] passes) may name a preset; a preset's own list may not.
    names_presets = cli.pipeline is not None or loaded.model.pipeline.passes is not None
    passes = []
    for i, step in enumerate(steps):
        fail_step = fails[i] if isinstance(fails, list) else fails

        def fail(msg: str, *at: Any, _fail: Any = fail_step, _step: PipelineStep = step) -> ConfigError:
            if at and str(at[0]) not in _step.options:  # the option came from the [passes.X] table
                return loaded.error(["passes", _step.name], msg,
                                    at=["passes", _step.name, *(str(a) for a in at)])
            return _fail(msg)

        cls = _pass_class(step.name, fail, presets_allowed=names_presets and not step.options)
        passes.append(_instantiate(cls, {**file_options.get(step.name, {}), **step.options}, fail))
    verify = cli.verify or loaded.model.verify
    if verify not in VERIFY_LEVELS:
        raise ConfigError(f"--verify: '{verify}' is not one of {', '.join(VERIFY_LEVELS)}"
                          f"{did_you_mean(verify, VERIFY_LEVELS)}")
    dump = loaded.model.dump.model_copy(update={
        "dir": cli.dump_dir or loaded.model.dump.dir,
        "print_after_all": cli.print_after_all or loaded.model.dump.print_after_all,
        "print_after": list(dict.fromkeys(loaded.model.dump.print_after + cli.print_after)),
        "print_after_change": cli.print_after_change or loaded.model.dump.print_after_change,
        "timing": cli.timing or loaded.model.dump.timing,
        "print_before_all": cli.print_before_all or loaded.model.dump.print_before_all,
        "print_before": list(dict.fromkeys(loaded.model.dump.print_before + cli.print_before)),
        "print_changed": cli.print_changed or loaded.model.dump.print_changed,
        "filter_func": list(dict.fromkeys(loaded.model.dump.filter_func + cli.filter_func)),
    })
    if cli.print_changed is not None and cli.print_changed not in ("full", "diff"):
        raise ConfigError(f"--print-changed: '{cli.print_changed}' is not one of full, diff"
                          f"{did_you_mean(cli.print_changed, ['full', 'diff'])}")
    for key, flag, cli_names in (("print_after", "--print-after", cli.print_after),
                                 ("print_before", "--print-before", cli.print_before)):
        _check_print_after(getattr(loaded.model.dump, key),
                           lambda msg, i, _key=key: loaded.error(["dump", _key], msg, at=["dump", _key, str(i)]))
        _check_print_after(cli_names, lambda msg, i, _flag=flag: ConfigError(f"{_flag}: {msg}"))
    return ResolvedConfig(loaded.source, backend, steps, passes, verify, dump, disabled, origin)
