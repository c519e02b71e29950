"""The pipeline string of `--pipeline` and of `[pipeline] passes` entries: `a,b{opt=1,mode="x"},c`.

Option values are TOML values (`1`, `true`, `"text"`, `[1, 2]`); a bare word is taken as a string.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Any

from pypto_core.errors import UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass
class PipelineStep:
    """One pass of a pipeline: its factory name and the options written for it."""

    name: str
    options: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        return self.name + "{" + ",".join(f"{k}={v!r}" for k, v in self.options.items()) + "}"


class PipelineSpecError(UserError):
    pass


def _fail(text: str, pos: int, what: str) -> PipelineSpecError:
    return PipelineSpecError(f"bad pipeline string: {what}\n  {text}\n  {' ' * pos}^")


def _split_top_level(text: str, sep: str, start: int, end: int) -> list[tuple[int, int]]:
    """Ranges of `text[start:end]` between separators outside brackets and quotes."""
    parts: list[tuple[int, int]] = []
    depth, quote, begin = 0, "", start
    for i in range(start, end):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth < 0:
                raise _fail(text, i, f"unbalanced '{ch}'")
        elif ch == sep and depth == 0:
            parts.append((begin, i))
            begin = i + 1
    if quote:
        raise _fail(text, end, "unterminated string")
    if depth:
        raise _fail(text, end, "missing '}' or ']'")
    parts.append((begin, end))
    return parts


def _value(raw: str) -> Any:
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw  # a bare word: `mode=fast`
    except RecursionError:
        raise PipelineSpecError(f"the option value {raw[:40]}... is nested too deeply to read") from None


def _step(text: str, begin: int, end: int) -> PipelineStep:
    item = text[begin:end]
    brace = item.find("{")
    name = (item if brace < 0 else item[:brace]).strip()
    if not name:
        raise _fail(text, begin, "a pass name is missing")
    if not name.replace("_", "a").isalnum():
        raise _fail(text, begin + item.find(name), f"'{name}' is not a pass name")
    options: dict[str, Any] = {}
    if brace >= 0:
        if not item.rstrip().endswith("}"):
            raise _fail(text, end, f"options of '{name}' must end with '}}'")
        open_at = begin + brace + 1
        close_at = begin + len(item.rstrip()) - 1
        if text[open_at:close_at].strip():
            for a, b in _split_top_level(text, ",", open_at, close_at):
                key, eq, raw = text[a:b].partition("=")
                if not eq or not key.strip():
                    raise _fail(text, a, f"expected 'option=value' in the options of '{name}'")
                options[key.strip()] = _value(raw.strip())
    return PipelineStep(name, options)


def parse_pipeline(text: str) -> list[PipelineStep]:
    steps = [_step(text, a, b) for a, b in _split_top_level(text, ",", 0, len(text)) if text[a:b].strip()]
    if not steps:
        raise PipelineSpecError("bad pipeline string: it names no pass")
    return steps
