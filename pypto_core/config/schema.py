"""The schema of `pypto.toml` (docs/architecture.md, configuration): one pydantic model per table; an
unknown key anywhere is an error (`extra="forbid"`).

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
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from pypto_core.passes.verification_level import VERIFY_LEVELS

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
