"""`pypto.toml`: the configuration model (pydantic), loading, and resolution against the registries.

    backend = "Ascend910B"            # a registered backend (default Ascend910B)
    verify = "basic"                  # none | basic | roundtrip | check-run
    [pipeline]
    preset = "default"                # or: passes = ["tile", "lower_auto_vector_split{synthesize_regions=true}"]
    [passes.lower_auto_vector_split]  # options of one pass, checked against its Options model
    synthesize_regions = true         # (`pypto list passes` shows every pass's options)
    [dump]                            # dir, print_after_all, print_after, print_after_change, timing,
                                      # print_before_all, print_before, print_changed, filter_func
    [plugins]
    disable = ["some_plugin"]

Every unknown key or name is an error naming the file (and line when it can be found: the line of the
entry of a multi-line array, of the option inside a `[passes.X]` table), the key, the offending value and
the closest known name; every `[passes.X]` table is checked against pass X's options whether or not X is
in the pipeline, so `pypto check` accepts exactly what `pypto compile` does. A TOML syntax error is shown
as `file:line:col` with the line and a caret. Command-line flags override the file (`CliOverrides`).
"""

from __future__ import annotations

import difflib
import functools
import re
import sys
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pypto_core.diagnostics import render_located
from pypto_core.errors import UserError
from pypto_core.ir.span import Span
from pypto_core.passes.pipeline_spec import PipelineSpecError, PipelineStep, parse_pipeline
from pypto_core.passes.verification_level import VERIFY_LEVELS
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
    verify: Literal[VERIFY_LEVELS] = "basic"  # type: ignore[valid-type]
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

    def error(self, path: Sequence[str], message: str, at: Sequence[str] | None = None) -> ConfigError:
        """`file:line: key: message`; the line is the one of `at` (default: `path`), e.g. an array entry."""
        line = _line_of(self.text, tuple(str(p) for p in (at if at is not None else path))) if self.text else None
        where = f"{self.source}:{line}" if line else self.source
        key = _dotted(path)
        return ConfigError(f"{where}: {key}: {message}" if key else f"{where}: {message}")


def _dotted(path: Sequence[Any]) -> str:
    """`dump.print_after[1]`: a key path, array indices in brackets."""
    out = ""
    for part in path:
        text = str(part)
        if isinstance(part, int) or text.isdigit():
            out += f"[{text}]"
        else:
            out += f".{text}" if out else text
    return out


def _line_of(text: str, path: tuple[str, ...]) -> int | None:
    """Best-effort line of a key (`[a.b]` header or `k = ...` inside the right table) or of an array entry
    (`(..., key, "1")`), else of the nearest enclosing key or table."""
    lines = _key_lines(text)
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None


_HEADER = re.compile(r"^\[\s*([^\]]+?)\s*\]")
_KEY = re.compile(r"""^((?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-]+)(?:\s*\.\s*(?:"[^"]*"|'[^']*'|[A-Za-z0-9_\-]+))*)\s*=""")
_KEY_PART = re.compile(r""""([^"]*)"|'([^']*)'|([A-Za-z0-9_\-]+)""")


def _key_parts(dotted: str) -> tuple[str, ...]:
    return tuple(next(g for g in m.groups() if g is not None) for m in _KEY_PART.finditer(dotted))


@functools.lru_cache(maxsize=8)
def _key_lines(text: str) -> dict[tuple[str, ...], int]:
    """Every table header, key and array entry of the text with its first line: one scan per text, so
    reporting many errors stays linear (5,000 unknown keys took 87 s when each error rescanned the file).
    An array entry is `key path + (str(index),)`, found through multi-line and nested arrays."""
    out: dict[tuple[str, ...], int] = {}
    table: tuple[str, ...] = ()
    arrays: list[list[Any]] = []  # open arrays: [path, index of the current entry, entry seen]
    for number, raw in enumerate(text.splitlines(), 1):
        pos = 0
        if not arrays:
            line = raw.strip()
            header = _HEADER.match(line)
            if header and not line.startswith("[["):
                table = _key_parts(header.group(1))
                out.setdefault(table, number)
                continue
            key = _KEY.match(line)
            if not key:
                continue
            path = table + _key_parts(key.group(1))
            out.setdefault(path, number)
            rest = raw[raw.index("=", len(raw) - len(raw.lstrip()) + len(key.group(1))) + 1:]
            pos = len(raw) - len(rest)
            stripped = rest.lstrip()
            if not stripped.startswith("["):
                continue
            pos += len(rest) - len(stripped) + 1
            arrays.append([path, 0, False])
        _scan_array(raw, pos, number, arrays, out)
    return out


def _scan_array(raw: str, pos: int, number: int, arrays: list[list[Any]],
                out: dict[tuple[str, ...], int]) -> None:
    """Record the entries of the open arrays found on this line from `pos` on (strings, nested arrays and
    inline tables are skipped whole; a comment ends the line)."""
    n = len(raw)
    while pos < n and arrays:
        ch = raw[pos]
        current = arrays[-1]
        if ch in " \t\r":
            pos += 1
        elif ch == "#":
            return
        elif ch == ",":
            current[1] += 1
            current[2] = False
            pos += 1
        elif ch == "]":
            arrays.pop()
            pos += 1
        else:
            if not current[2]:
                out.setdefault(current[0] + (str(current[1]),), number)
                current[2] = True
            if ch == "[":
                arrays.append([current[0] + (str(current[1]),), 0, False])
                pos += 1
            elif ch in "\"'":
                close = raw.find(ch, pos + 1)
                while ch == '"' and close > 0 and _escaped(raw, close):
                    close = raw.find(ch, close + 1)
                pos = n if close < 0 else close + 1
            elif ch == "{":
                close = raw.find("}", pos + 1)
                pos = n if close < 0 else close + 1
            else:
                while pos < n and raw[pos] not in ",]# \t":
                    pos += 1


def _escaped(raw: str, index: int) -> bool:
    backslashes = 0
    while index - 1 - backslashes >= 0 and raw[index - 1 - backslashes] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


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


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _clean_loc(loc: Sequence[Any], model: type[BaseModel] | None) -> list[Any]:
    """A pydantic location without the tags it adds for the members of a union (`print_changed.bool`)."""
    out: list[Any] = []
    parts = list(loc)
    i = 0
    while i < len(parts):
        part = parts[i]
        out.append(part)
        i += 1
        if model is None or isinstance(part, int):
            model = None
            continue
        info = model.model_fields.get(str(part))
        annotation = getattr(info, "annotation", None)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
            continue
        model = None
        if _is_union(annotation) and i < len(parts) and not isinstance(parts[i], int):
            i += 1  # the union member pydantic tried
    return out


def shown_value(value: Any, limit: int = 60) -> str:
    """A value as a user wrote it in TOML: `'yes'`, `true`, `3`, `[1, 2]` (long ones shortened)."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, list):
        text = "[" + ", ".join(shown_value(v, limit) for v in value) + "]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k} = {shown_value(v, limit)}" for k, v in value.items()) + "}"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


_TYPE_WORDS = {"bool": "true or false", "string": "a string", "int": "an integer", "float": "a number",
               "list": "an array", "dict": "a table", "model": "a table"}


def describe_validation_error(err: Any) -> str:
    """One pydantic error in pypto's words: no `Value error, ` prefix, and the offending value shown."""
    kind = str(err.get("type", ""))
    msg = str(err.get("msg", "invalid value"))
    value = err.get("input")
    if kind == "value_error":
        inner = (err.get("ctx") or {}).get("error")
        return str(inner) if inner is not None else re.sub(r"^Value error, ", "", msg)
    if kind == "literal_error":
        choices = re.findall(r"'([^']+)'", str((err.get("ctx") or {}).get("expected", msg)))
        hint = difflib.get_close_matches(str(value), choices, n=1, cutoff=0.5)
        return (f"{shown_value(value)} is not one of {', '.join(choices)}"
                + (f"; did you mean '{hint[0]}'?" if hint else ""))
    msg = re.sub(r"^(Value|Assertion) error, ", "", msg)
    return f"{msg} (got {shown_value(value)})" if "input" in err else msg


def _expected_words(errors: list[Any]) -> str:
    """What a union field accepts, from the errors of each member: `true or false, or one of full, diff`."""
    words: list[str] = []
    for err in errors:
        kind = str(err.get("type", ""))
        if kind == "literal_error":
            choices = re.findall(r"'([^']+)'", str((err.get("ctx") or {}).get("expected", err.get("msg", ""))))
            words.append(f"one of {', '.join(choices)}")
        else:
            words.append(_TYPE_WORDS.get(kind.split("_")[0], kind.replace("_", " ")))
    return ", or ".join(dict.fromkeys(words))


def translate_validation_error(exc: ValidationError, model: type[BaseModel] | None,
                               report: Callable[[list[Any], str], tuple[int, str]]) -> list[tuple[int, str]]:
    """(line, message) of every error of `exc`, several errors of one union field merged into one;
    `report(loc, message)` places a message (loc relative to `model`)."""
    grouped: dict[tuple[Any, ...], list[Any]] = {}
    for err in exc.errors():
        grouped.setdefault(tuple(_clean_loc(err.get("loc", ()), model)), []).append(err)
    messages: list[tuple[int, str]] = []
    for loc, errors in grouped.items():
        first = errors[0]
        if first.get("type") == "extra_forbidden":
            owner = _model_at(loc) if model is PyptoConfig else model
            known = list(owner.model_fields) if owner is not None else []
            section = f" in [{'.'.join(str(p) for p in loc[:-1])}]" if loc[:-1] and model is PyptoConfig else ""
            text = f"unknown key '{loc[-1]}'{section}{_did_you_mean(str(loc[-1]), known)}"
        elif len(errors) > 1:
            text = f"expected {_expected_words(errors)}, got {shown_value(first.get('input'))}"
        else:
            text = describe_validation_error(first)
        messages.append(report(list(loc), text))
    return messages


def _translate(loaded_text: str, source: str, exc: ValidationError) -> ConfigError:
    loaded = LoadedConfig(PyptoConfig(), source, loaded_text)

    def place(loc: list[Any], text: str) -> tuple[int, str]:
        at = [str(p) for p in loc]
        return _line_of(loaded_text, tuple(at)) or 0, str(loaded.error(at, text))

    messages = translate_validation_error(exc, PyptoConfig, place)
    return ConfigError("\n".join(text for _, text in sorted(messages, key=lambda m: m[0])))


def _toml_syntax_error(text: str, source: str, exc: Exception) -> ConfigError:
    """`not valid TOML: <what>` with `--> file:line:col`, the line and a caret."""
    message = str(exc)
    found = re.search(r"\s*\(at line (\d+), column (\d+)\)\s*$", message)
    lines = text.splitlines()
    if found:
        line, column = int(found.group(1)), int(found.group(2))
        message = message[:found.start()]
    elif message.endswith("(at end of document)"):
        message = message[:-len("(at end of document)")].rstrip()
        line = max(1, len(lines))
        column = len(lines[-1]) + 1 if lines else 1
    else:
        return ConfigError(f"{source}: not valid TOML: {message}")
    if message[:1].isupper() and not message[1:2].isupper():
        message = message[0].lower() + message[1:]
    span = Span(source, line, column, line, column + 1)
    return ConfigError(render_located(f"{source}: not valid TOML: {message}", span, lines))


# -- loading ----------------------------------------------------------------------------------------
def parse_config_text(text: str, source: str) -> LoadedConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _toml_syntax_error(text, source, exc) from None
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
    for i, name in enumerate(loaded.model.plugins.disable):
        if name not in known:
            raise loaded.error(["plugins", "disable"], f"no plugin named '{name}'{_did_you_mean(name, known)}",
                               at=["plugins", "disable", str(i)])
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
        from pypto_core.plugins.host import unavailable_provider_note

        raise fail(f"unknown pass '{name}'{_did_you_mean(name, PASSES.names())}"
                   f"{unavailable_provider_note('pass', name)}")
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
                           f"unknown preset '{preset}'{_did_you_mean(preset, PIPELINES.names())}")
    owner = PIPELINES.owner(preset)

    def fail_preset(msg: str) -> ConfigError:
        return ConfigError(f"pipeline preset '{preset}' (from plugin '{owner}'): {msg}")

    return [PipelineStep(n) for n in names], f"preset '{preset}'", fail_preset


def _check_options(cls: type, options: dict[str, Any], fail: Any) -> None:
    known = list(cls.Options.model_fields)  # type: ignore[attr-defined]
    for key in options:
        if key not in known:
            hint = (_did_you_mean(key, known) if known
                    else " (it takes no options; `pypto list passes` shows each pass's options)")
            raise fail(f"pass '{cls.factory_name}' has no option '{key}'{hint}", key)  # type: ignore[attr-defined]


def _check_property_names(names: Any, fail: Any) -> None:
    """`run_verifier`'s `properties`: every name must be a registered IR property."""
    from pypto_core.passes.properties import IRProperty

    known = [p.name for p in IRProperty]
    for i, name in enumerate(names or []):
        if IRProperty.lookup(str(name)) is None:
            raise fail(f"unknown IR property {shown_value(name)}{_did_you_mean(str(name), known)}",
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
        raise fail(f"invalid options for pass {factory}: {_dotted(loc)}: {text}", *loc) from None
    for key, check in _OPTION_VALUE_CHECKS.get(factory, {}).items():
        if key in options:
            check(getattr(model, key),
                  lambda msg, *path: fail(f"invalid options for pass {factory}: {_dotted(path)}: {msg}", *path))
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
            raise fail(f"unknown pass '{name}'{_did_you_mean(name, known)}", i)


def resolve_config(loaded: LoadedConfig, cli: CliOverrides | None = None) -> ResolvedConfig:
    """Check every name in the configuration against the registries and build the passes."""
    cli = cli or CliOverrides()
    disabled = apply_plugin_blocks(loaded, cli.disable_plugins)  # first: it changes what is registered
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
    passes = []
    for i, step in enumerate(steps):
        fail_step = fails[i] if isinstance(fails, list) else fails

        def fail(msg: str, *at: Any, _fail: Any = fail_step, _step: PipelineStep = step) -> ConfigError:
            if at and str(at[0]) not in _step.options:  # the option came from the [passes.X] table
                return loaded.error(["passes", _step.name], msg,
                                    at=["passes", _step.name, *(str(a) for a in at)])
            return _fail(msg)

        cls = _pass_class(step.name, fail)
        passes.append(_instantiate(cls, {**file_options.get(step.name, {}), **step.options}, fail))
    verify = cli.verify or loaded.model.verify
    if verify not in VERIFY_LEVELS:
        raise ConfigError(f"--verify: '{verify}' is not one of {', '.join(VERIFY_LEVELS)}"
                          f"{_did_you_mean(verify, VERIFY_LEVELS)}")
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
    for key, flag, cli_names in (("print_after", "--print-after", cli.print_after),
                                 ("print_before", "--print-before", cli.print_before)):
        _check_print_after(getattr(loaded.model.dump, key),
                           lambda msg, i, _key=key: loaded.error(["dump", _key], msg, at=["dump", _key, str(i)]))
        _check_print_after(cli_names, lambda msg, i, _flag=flag: ConfigError(f"{_flag}: {msg}"))
    return ResolvedConfig(loaded.source, backend, steps, passes, verify, dump, disabled, origin)


def build_pass_manager(resolved: ResolvedConfig, stream: Any = None) -> Any:
    """The PassManager a resolved configuration describes (dumps and prints go to `stream`)."""
    from pypto_core.passes.instruments.assemble import OutputOptions
    from pypto_core.passes.manager import PassManager

    dump = resolved.dump
    outputs = OutputOptions(dump_dir=dump.dir, print_after_all=dump.print_after_all, print_after=dump.print_after,
                            print_before_all=dump.print_before_all, print_before=dump.print_before,
                            print_changed=dump.changed_mode(), filter_func=dump.filter_func, timing=dump.timing,
                            stream=stream)
    return PassManager(resolved.passes, backend=resolved.backend, verify=resolved.verify, outputs=outputs)
