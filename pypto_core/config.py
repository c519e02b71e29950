"""`pypto.toml`: the configuration model (pydantic), loading, and resolution against the registries.

    backend = "Ascend910B"            # a registered backend (default Ascend910B)
    verify = "basic"                  # none | basic | roundtrip | check-run
    [pipeline]
    preset = "default"                # or: passes = ["convert_to_ssa", "outline_incore_scopes{opt=1}"]
    [passes.outline_incore_scopes]    # options of one pass, checked against its Options model
    [dump]                            # dir, print_after_all, print_after, print_after_change, timing,
                                      # print_before_all, print_before, print_changed, filter_func
    [plugins]
    disable = ["some_plugin"]

Every unknown key or name is an error naming the file (and line when it can be found), the key, and
the closest known name. Command-line flags override the file (`CliOverrides`).
"""

from __future__ import annotations

import difflib
import functools
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pypto_core.errors import UserError
from pypto_core.passes.pipeline_spec import PipelineSpecError, PipelineStep, parse_pipeline
from pypto_core.textfile import MAX_CONFIG_BYTES, TextFileError, read_text_bounded

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONFIG_FILE_NAME = "pypto.toml"
DEFAULTS_SOURCE = "<defaults>"
DEFAULT_PRESET = "default"


# -- the model --------------------------------------------------------------------------------------
class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class PipelineSection(_Section):
    preset: str | None = None
    passes: list[str] | None = None

    @model_validator(mode="after")
    def _one_source(self) -> PipelineSection:
        if self.preset is not None and self.passes is not None:
            raise ValueError("give either 'preset' or 'passes', not both")
        return self


class DumpSection(_Section):
    dir: str | None = None
    print_after_all: bool = False
    print_after: list[str] = Field(default_factory=list)
    print_after_change: bool = False
    print_before_all: bool = False
    print_before: list[str] = Field(default_factory=list)
    print_changed: bool | Literal["full", "diff"] = False  # true = "full": the whole program; "diff": a diff
    filter_func: list[str] = Field(default_factory=list)  # print only these functions (names or patterns)
    timing: bool = False

    @field_validator("print_after", "print_before", "filter_func", mode="before")
    @classmethod
    def _one_name_is_a_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    def changed_mode(self) -> str | None:
        """How to print passes that changed the program: None, "full" or "diff"."""
        if self.print_changed is True:
            return "full"
        if self.print_changed:
            return str(self.print_changed)
        return "full" if self.print_after_change else None

    def prints(self) -> bool:
        return bool(self.print_after_all or self.print_after or self.print_before_all or self.print_before
                    or self.changed_mode())


class PluginsSection(_Section):
    disable: list[str] = Field(default_factory=list)


class PyptoConfig(_Section):
    backend: str | None = None
    verify: Literal["none", "basic", "roundtrip", "check-run"] = "basic"
    pipeline: PipelineSection = Field(default_factory=PipelineSection)
    passes: dict[str, dict[str, Any]] = Field(default_factory=dict)
    dump: DumpSection = Field(default_factory=DumpSection)
    plugins: PluginsSection = Field(default_factory=PluginsSection)


# -- errors -----------------------------------------------------------------------------------------
class ConfigError(UserError):
    """A configuration a user can fix; the message starts with `file[:line]: key:`."""


def _did_you_mean(name: str, known: Sequence[str]) -> str:
    hint = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    if hint:
        return f"; did you mean '{hint[0]}'?"
    return f" (known: {', '.join(sorted(known)) or 'none'})"


@dataclass
class LoadedConfig:
    model: PyptoConfig
    source: str  # the file name, or <defaults>
    text: str = ""

    def error(self, path: Sequence[str], message: str) -> ConfigError:
        line = _line_of(self.text, tuple(path)) if self.text else None
        where = f"{self.source}:{line}" if line else self.source
        key = ".".join(path)
        return ConfigError(f"{where}: {key}: {message}" if key else f"{where}: {message}")


def _line_of(text: str, path: tuple[str, ...]) -> int | None:
    """Best-effort line of a key (`[a.b]` header or `k = ...` inside the right table), else of its table."""
    lines = _key_lines(text)
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None


@functools.lru_cache(maxsize=8)
def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Every table header and key of the text with its first line: one scan per text, so reporting many
    errors stays linear (5,000 unknown keys took 87 s when each error rescanned the file)."""
    out: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        header = re.match(r"^\[\s*([^\]]+?)\s*\]", line)
        if header:
            table = tuple(part.strip().strip("\"'") for part in header.group(1).split("."))
            out.setdefault(table, number)
            continue
        key = re.match(r"^[\"']?([A-Za-z0-9_\-]+)[\"']?\s*=", line)
        if key:
            out.setdefault(table + (key.group(1),), number)
    return out


def _model_at(loc: Sequence[Any]) -> type[BaseModel] | None:
    """The model class that owns the last key of a pydantic error location."""
    model: type[BaseModel] = PyptoConfig
    for part in loc[:-1]:
        info = model.model_fields.get(str(part))
        annotation = getattr(info, "annotation", None)
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        model = annotation
    return model


def _translate(loaded_text: str, source: str, exc: ValidationError) -> ConfigError:
    messages: list[tuple[int, str]] = []
    loaded = LoadedConfig(PyptoConfig(), source, loaded_text)
    for err in exc.errors():
        loc = [str(p) for p in err.get("loc", ())]
        kind = err.get("type", "")
        if kind == "extra_forbidden":
            model = _model_at(loc)
            known = list(model.model_fields) if model is not None else []
            section = f" in [{'.'.join(loc[:-1])}]" if loc[:-1] else ""
            messages.append((_line_of(loaded_text, tuple(loc)) or 0,
                             str(loaded.error(loc, f"unknown key '{loc[-1]}'{section}{_did_you_mean(loc[-1], known)}"))))
        elif kind == "literal_error":
            choices = re.findall(r"'([^']+)'", err.get("msg", ""))
            value = err.get("input")
            messages.append((_line_of(loaded_text, tuple(loc)) or 0,
                             str(loaded.error(loc, f"{value!r} is not one of {', '.join(choices)}"
                                                   f"{_did_you_mean(str(value), choices)}"))))
        else:
            messages.append((_line_of(loaded_text, tuple(loc)) or 0,
                             str(loaded.error(loc, err.get("msg", "invalid value")))))
    return ConfigError("\n".join(text for _, text in sorted(messages, key=lambda m: m[0])))


# -- loading ----------------------------------------------------------------------------------------
def parse_config_text(text: str, source: str) -> LoadedConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{source}: arrays or inline tables are nested too deeply to read") from None
    try:
        model = PyptoConfig.model_validate(data)
    except ValidationError as exc:
        raise _translate(text, source, exc) from None
    return LoadedConfig(model, source, text)


def load_config(path: str | Path | None = None, search_dir: str | Path | None = None) -> LoadedConfig:
    """`path` if given (it must exist), else `pypto.toml` in `search_dir` (default: cwd), else defaults."""
    if path is None:
        candidate = Path(search_dir or ".") / CONFIG_FILE_NAME
        if not candidate.is_file():
            return LoadedConfig(PyptoConfig(), DEFAULTS_SOURCE)
        path = candidate
    path = Path(path)
    try:
        text = read_text_bounded(path, MAX_CONFIG_BYTES, "configuration")
    except TextFileError as exc:
        raise ConfigError(str(exc)) from None
    return parse_config_text(text, str(path))


# -- command-line overrides -------------------------------------------------------------------------
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


# -- resolution against the registries --------------------------------------------------------------
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


def apply_plugin_blocks(loaded: LoadedConfig, cli_blocks: Sequence[str] = ()) -> list[str]:
    """Block the plugins the file and `-p no:NAME` name (reloading the host if that changes anything)."""
    from pypto_core.plugins.host import current_disabled, discovered_plugin_names, reload_plugins

    known = discovered_plugin_names()
    for name in loaded.model.plugins.disable:
        if name not in known:
            raise loaded.error(["plugins", "disable"], f"no plugin named '{name}'{_did_you_mean(name, known)}")
    for name in cli_blocks:
        if name not in known:
            raise ConfigError(f"-p no:{name}: no plugin named '{name}'{_did_you_mean(name, known)}")
    disabled = list(dict.fromkeys(loaded.model.plugins.disable + list(cli_blocks)))
    if set(disabled) != set(current_disabled()):
        reload_plugins(disabled=disabled)
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


def _pass_class(name: str, fail: Any) -> type:
    from pypto_core.passes.registry import PASSES

    cls = PASSES.get(name)
    if cls is None:
        raise fail(f"unknown pass '{name}'{_did_you_mean(name, PASSES.names())}")
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
    """The pipeline steps, where they came from, and how to report an error about one of them."""
    from pypto_core.passes.registry import PIPELINES

    if cli.pipeline is not None:
        def fail_cli(msg: str) -> ConfigError:
            return ConfigError(f"--pipeline: {msg}")

        try:
            return _expand_presets(parse_pipeline(cli.pipeline)), "--pipeline", fail_cli
        except PipelineSpecError as exc:
            raise ConfigError(f"--pipeline: {exc.message}") from None

    def fail_file(msg: str, path: Sequence[str] = ("pipeline", "passes")) -> ConfigError:
        return loaded.error(path, msg)

    section = loaded.model.pipeline
    if section.passes is not None:
        steps: list[PipelineStep] = []
        for entry in section.passes:
            try:
                parsed = parse_pipeline(entry)
            except PipelineSpecError as exc:
                raise fail_file(exc.message) from None
            steps.extend(_expand_presets(parsed))
        if not steps:
            raise fail_file("the pipeline names no pass")
        return steps, f"{loaded.source} [pipeline] passes", fail_file
    preset = section.preset or DEFAULT_PRESET
    names = PIPELINES.get(preset)
    if names is None:
        raise loaded.error(["pipeline", "preset"],
                           f"unknown preset '{preset}'{_did_you_mean(preset, PIPELINES.names())}")
    owner = PIPELINES.owner(preset)

    def fail_preset(msg: str) -> ConfigError:
        return ConfigError(f"pipeline preset '{preset}' (from plugin '{owner}'): {msg}")

    return [PipelineStep(n) for n in names], f"preset '{preset}'", fail_preset


def _check_options(cls: type, options: dict[str, Any], fail: Any) -> None:
    known = list(cls.Options.model_fields)  # type: ignore[attr-defined]
    for key in options:
        if key not in known:
            raise fail(f"pass '{cls.factory_name}' has no option '{key}'{_did_you_mean(key, known)}")  # type: ignore[attr-defined]


def _instantiate(cls: type, options: dict[str, Any], fail: Any) -> Any:
    _check_options(cls, options, fail)
    try:
        return cls(**options)
    except ValueError as exc:
        raise fail(str(exc)) from None


def _check_print_after(names: list[str], fail: Any) -> None:
    from pypto_core.passes.registry import PASSES

    known = PASSES.names() + [cls.name for _, cls in PASSES.items()]
    for name in names:
        if name not in known:
            raise fail(f"unknown pass '{name}'{_did_you_mean(name, known)}")


def resolve_config(loaded: LoadedConfig, cli: CliOverrides | None = None) -> ResolvedConfig:
    """Check every name in the configuration against the registries and build the passes."""
    from pypto_core.passes.manager import VERIFY_MODES

    cli = cli or CliOverrides()
    disabled = apply_plugin_blocks(loaded, cli.disable_plugins)  # first: it changes what is registered
    backend = _resolve_backend(loaded, cli)
    file_options: dict[str, dict[str, Any]] = {}
    for name, options in loaded.model.passes.items():
        def fail_table(msg: str, _name: str = name) -> ConfigError:
            return loaded.error(["passes", _name], msg)

        cls = _pass_class(name, fail_table)
        _check_options(cls, options, fail_table)
        file_options[name] = options
    steps, origin, fail = _steps(loaded, cli)
    passes = []
    for step in steps:
        cls = _pass_class(step.name, fail)
        passes.append(_instantiate(cls, {**file_options.get(step.name, {}), **step.options}, fail))
    verify = cli.verify or loaded.model.verify
    if verify not in VERIFY_MODES:
        raise ConfigError(f"--verify: '{verify}' is not one of {', '.join(VERIFY_MODES)}"
                          f"{_did_you_mean(verify, VERIFY_MODES)}")
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
                          f"{_did_you_mean(cli.print_changed, ['full', 'diff'])}")
    _check_print_after(loaded.model.dump.print_after,
                       lambda msg: loaded.error(["dump", "print_after"], msg))
    _check_print_after(cli.print_after, lambda msg: ConfigError(f"--print-after: {msg}"))
    _check_print_after(loaded.model.dump.print_before,
                       lambda msg: loaded.error(["dump", "print_before"], msg))
    _check_print_after(cli.print_before, lambda msg: ConfigError(f"--print-before: {msg}"))
    return ResolvedConfig(loaded.source, backend, steps, passes, verify, dump, disabled, origin)


def build_pass_manager(resolved: ResolvedConfig, stream: Any = None) -> Any:
    """The PassManager a resolved configuration describes (dumps and prints go to `stream`)."""
    from pypto_core.passes.instruments import IRDumpInstrument, PrintAfterInstrument
    from pypto_core.passes.manager import PassManager

    dump = resolved.dump
    instruments: list[Any] = []
    if dump.dir:
        instruments.append(IRDumpInstrument(dump.dir))
    if dump.prints():
        instruments.append(PrintAfterInstrument(dump.print_after_all, dump.print_after, False, stream,
                                                changed=dump.changed_mode(),  # type: ignore[arg-type]
                                                before_all=dump.print_before_all, before_names=dump.print_before,
                                                filter_funcs=dump.filter_func))
    return PassManager(resolved.passes, backend=resolved.backend, verify=resolved.verify,  # type: ignore[arg-type]
                       instruments=instruments, timing=dump.timing, timing_stream=stream)
