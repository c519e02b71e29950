"""The crash reproducer: one file holding the program a failing pass was given and, in a header comment,
what is needed to rerun the failure from there -- the rest of the pipeline (the failing pass first) with
its options, the backend, the verification level and the check-run seed (MLIR's crash reproducer is the
model). `pypto compile --replay FILE` reruns it; `pypto reduce FILE` shrinks it.

    # pypto.reproducer v1
    # ... how it was made, how to replay and reduce it ...
    # pipeline: toy_crash,toy_mark{label = "x"}
    # backend: Ascend910B
    # verify: basic
    # seed: 0
    # disabled-plugins:
    # failure: internal-error
    # message: pass 'toy_crash' (ToyCrash, from plugin 'toy_passes' / <in-process>) failed: KeyError: 'missing'
    # pypto.program: Toy
    import pypto.language as pl
    ...

The header is `# key: value` lines; the program is printed `pl` text (parsed again, never executed).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pypto_core.errors import UserError

MAGIC = "# pypto.reproducer"
VERSION = 1
DEFAULT_NAME = "pypto-reproducer.py"
CHECK_RUN_SEED = 0  # the check-run instrument's inputs are made with this seed
FAILURE_KINDS = ("internal-error", "verification", "mismatch")


class ReproducerError(UserError):
    """A reproducer file that cannot be read (not one, or a header that is broken)."""


@dataclass
class Reproducer:
    pipeline: str
    program_text: str
    backend: str | None = None
    verify: str = "basic"
    seed: int = CHECK_RUN_SEED
    disabled_plugins: list[str] = field(default_factory=list)
    failure: str = "internal-error"
    message: str = ""
    failing_pass: str = ""
    source: str = ""
    until: str = ""  # a message substring `pypto reduce` keeps by default


    def header(self, path: str = DEFAULT_NAME) -> str:
        until = "--until-mismatch" if self.failure == "mismatch" else f"--until {json.dumps(self.until_text())}"
        lines = [
            f"{MAGIC} v{VERSION}",
            f"# Written by `pypto compile` when pass '{self.failing_pass}' failed"
            + (f" on {self.source}" if self.source else "") + ".",
            "# Below is the program that pass was given. Rerun the failure with",
            f"#     pypto compile --replay {path}",
            "# and shrink the program while it still fails with",
            f"#     pypto reduce {path} {until}",
            "#",
            f"# pipeline: {self.pipeline}",
            f"# backend: {self.backend or ''}",
            f"# verify: {self.verify}",
            f"# seed: {self.seed}",
            f"# disabled-plugins: {','.join(self.disabled_plugins)}",
            f"# failure: {self.failure}",
            f"# message: {_one_line(self.message)}",
            f"# until: {self.until_text()}",
        ]
        return "\n".join(lines) + "\n"

    def until_text(self) -> str:
        return _one_line(self.until or _short(self.message))

    def text(self, path: str = DEFAULT_NAME) -> str:
        return self.header(path) + self.program_text.rstrip("\n") + "\n"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _short(message: str) -> str:
    """A message substring worth reducing on: its first line, without the pass's plugin details."""
    first = (message.strip().splitlines() or [""])[0]
    return first[:160]


def is_reproducer(path: str | Path) -> bool:
    try:
        with open(path, encoding="utf-8") as f:
            return f.readline().startswith(MAGIC)
    except (OSError, UnicodeDecodeError):
        return False


def parse_reproducer(text: str, source: str = "<reproducer>") -> Reproducer:
    lines = text.splitlines()
    if not lines or not lines[0].startswith(MAGIC):
        raise ReproducerError(f"{source}: not a pypto reproducer (its first line is not '{MAGIC} v{VERSION}')")
    values: dict[str, str] = {}
    for line in lines[1:]:
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].strip().partition(":")
        if sep and key.strip() in _KEYS:
            values.setdefault(key.strip(), value.strip())
    if not values.get("pipeline"):
        raise ReproducerError(f"{source}: the reproducer's header has no '# pipeline: ...' line")
    try:
        seed = int(values.get("seed") or CHECK_RUN_SEED)
    except ValueError:
        raise ReproducerError(f"{source}: seed: '{values['seed']}' is not an integer") from None
    failure = values.get("failure") or "internal-error"
    if failure not in FAILURE_KINDS:
        raise ReproducerError(f"{source}: failure: '{failure}' is not one of {', '.join(FAILURE_KINDS)}")
    disabled = [n.strip() for n in (values.get("disabled-plugins") or "").split(",") if n.strip()]
    return Reproducer(pipeline=values["pipeline"], program_text=text, backend=values.get("backend") or None,
                      verify=values.get("verify") or "basic", seed=seed, disabled_plugins=disabled,
                      failure=failure, message=values.get("message", ""), until=values.get("until", ""))


_KEYS = ("pipeline", "backend", "verify", "seed", "disabled-plugins", "failure", "message", "until")


# -- pipeline strings --------------------------------------------------------------------------------
def toml_value(value: Any) -> str:
    """`value` in the TOML syntax pipeline strings read (`{a = 1}`, `[1, 2]`, `"text"`, `true`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"
    if hasattr(value, "value"):  # an enum
        return toml_value(value.value)
    return json.dumps(str(value))


def step_spec(p: Any) -> str:
    """A pass instance as a pipeline-string step: its factory name and the options that differ from the
    defaults."""
    name = getattr(p, "factory_name", "") or p.get_name()
    options = getattr(p, "options", None)
    dumped: dict[str, Any] = {}
    if options is not None and hasattr(options, "model_dump"):
        dumped = {k: v for k, v in options.model_dump(mode="json", exclude_defaults=True).items() if v is not None}
    if not dumped:
        return name
    return name + "{" + ",".join(f"{k}={toml_value(v)}" for k, v in dumped.items()) + "}"


def pipeline_spec(passes: list[Any]) -> str:
    return ",".join(step_spec(p) for p in passes)


# -- writing -----------------------------------------------------------------------------------------
def reproducer_target(requested: str | Path | None) -> Path:
    """Where to write: `requested` (default ./pypto-reproducer.py) unless a file that is not a reproducer
    is there -- never overwritten: then the first free `NAME-1.py`, `NAME-2.py`, ..."""
    path = Path(requested) if requested else Path.cwd() / DEFAULT_NAME
    if not path.exists() or (path.is_file() and is_reproducer(path)):
        return path
    for n in range(1, 1000):
        candidate = path.with_name(f"{path.stem}-{n}{path.suffix or '.py'}")
        if not candidate.exists() or (candidate.is_file() and is_reproducer(candidate)):
            return candidate
    raise ReproducerError(f"{path}: exists and is not a reproducer; no free name next to it")


def write_reproducer(repro: Reproducer, requested: str | Path | None = None) -> Path:
    path = reproducer_target(requested)
    shown = str(path) if requested else path.name
    path.write_text(repro.text(shown), encoding="utf-8")
    return path


def failure_kind(exc: BaseException) -> str:
    from pypto_core.passes.manager import PassVerificationError

    try:
        from pypto_core.interp.errors import PassCheckRunError
    except ImportError:  # pragma: no cover - the reference machine is optional
        PassCheckRunError = ()  # type: ignore[assignment,misc]  # noqa: N806
    if PassCheckRunError and isinstance(exc, PassCheckRunError):
        return "mismatch"
    if isinstance(exc, PassVerificationError):
        return "verification"
    return "internal-error"


def reproducer_for(exc: BaseException, *, disabled_plugins: list[str] | None = None,
                   source: str = "") -> Reproducer | None:
    """The reproducer of a failure the PassManager noted on `exc` (None when no pass was running)."""
    from pypto_core.language.printer import python_print
    from pypto_core.passes.naming import pass_label
    from pypto_core.passes.runner import failed_step

    failed = failed_step(exc)
    if failed is None:
        return None
    return Reproducer(pipeline=pipeline_spec(failed.remaining_passes), program_text=python_print(failed.program),
                      backend=failed.backend, verify=failed.verify, seed=CHECK_RUN_SEED,
                      disabled_plugins=list(disabled_plugins or []), failure=failure_kind(exc),
                      message=_exc_message(exc), failing_pass=pass_label(failed.pass_), source=source,
                      until=_until_for(exc))


def _exc_message(exc: BaseException) -> str:
    from pypto_core.errors import Error, InternalError

    if isinstance(exc, (Error, InternalError, ValueError)):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _until_for(exc: BaseException) -> str:
    """The part of the failure worth matching while reducing: the original exception of a crash (its
    wrapper names the plugin and distribution too), else the message's first line."""
    from pypto_core.errors import InternalError

    cause = exc.__cause__
    if isinstance(exc, InternalError) and cause is not None:
        return _short(f"{type(cause).__name__}: {cause}")
    return _short(str(exc))
