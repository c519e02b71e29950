"""Reading `pypto.toml`: the file (bounded in size), TOML, then the schema; a LoadedConfig remembers the
text so that a later error can name the line of the key it is about."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from pypto_core.config.errors import ConfigError, dotted, toml_syntax_error, translate_validation_error
from pypto_core.config.positions import line_of
from pypto_core.config.schema import CONFIG_FILE_NAME, DEFAULTS_SOURCE, PyptoConfig
from pypto_core.textfile import MAX_CONFIG_BYTES, TextFileError, read_text_bounded

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass
class LoadedConfig:
    model: PyptoConfig
    source: str  # the file name, or <defaults>
    text: str = ""

    def error(self, path: Sequence[str], message: str, at: Sequence[str] | None = None) -> ConfigError:
        """`file:line: key: message`; the line is the one of `at` (default: `path`), e.g. an array entry."""
        line = line_of(self.text, tuple(str(p) for p in (at if at is not None else path))) if self.text else None
        where = f"{self.source}:{line}" if line else self.source
        key = dotted(path)
        return ConfigError(f"{where}: {key}: {message}" if key else f"{where}: {message}")


def _schema_errors(loaded_text: str, source: str, exc: ValidationError) -> ConfigError:
    """Every schema error of the file, each at its line, in line order."""
    loaded = LoadedConfig(PyptoConfig(), source, loaded_text)

    def place(loc: list[Any], text: str) -> tuple[int, str]:
        at = [str(p) for p in loc]
        return line_of(loaded_text, tuple(at)) or 0, str(loaded.error(at, text))

    messages = translate_validation_error(exc, PyptoConfig, place)
    return ConfigError("\n".join(text for _, text in sorted(messages, key=lambda m: m[0])))


def parse_config_text(text: str, source: str) -> LoadedConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(text, source, exc) from None
    except RecursionError:
        raise ConfigError(f"{source}: arrays or inline tables are nested too deeply to read") from None
    try:
        model = PyptoConfig.model_validate(data)
    except ValidationError as exc:
        raise _schema_errors(text, source, exc) from None
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
