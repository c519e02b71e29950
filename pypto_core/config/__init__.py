"""`pypto.toml`: the configuration of a pipeline run (docs/architecture.md, configuration), one job per module:

* schema.py: the tables and keys (pydantic models; an unknown key is an error);
* loading.py: reading the file, TOML syntax errors at `file:line:col`, schema errors at their lines;
* positions.py: the line of each key and array entry (the tree-sitter TOML grammar);
* errors.py: ConfigError and pydantic's errors said in pypto's words, with the closest known name;
* resolution.py: which plugins load, then every name checked against the registries: backend, passes and
  their options, verification level, outputs (command-line flags override the file);
* building.py: the PassManager a resolved configuration describes.

Every `[passes.X]` table is checked against pass X's options whether or not X is in the pipeline, so
`pypto check` accepts exactly what `pypto compile` does.
"""

from pypto_core.config.building import build_pass_manager
from pypto_core.config.errors import (
    ConfigError,
    describe_validation_error,
    did_you_mean,
    shown_value,
    translate_validation_error,
)
from pypto_core.config.loading import LoadedConfig, load_config, parse_config_text
from pypto_core.config.positions import key_lines, line_of
from pypto_core.config.resolution import CliOverrides, ResolvedConfig, resolve_config, select_plugins
from pypto_core.config.schema import (
    CONFIG_FILE_NAME,
    DEFAULT_PRESET,
    DEFAULTS_SOURCE,
    DumpSection,
    PipelineSection,
    PluginsSection,
    PyptoConfig,
)

__all__ = ["CONFIG_FILE_NAME", "DEFAULTS_SOURCE", "DEFAULT_PRESET", "CliOverrides", "ConfigError", "DumpSection",
           "LoadedConfig", "PipelineSection", "PluginsSection", "PyptoConfig", "ResolvedConfig", "select_plugins",
           "build_pass_manager", "describe_validation_error", "did_you_mean", "key_lines", "line_of",
           "load_config", "parse_config_text", "resolve_config", "shown_value", "translate_validation_error"]
