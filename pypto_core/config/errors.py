"""Configuration errors a user can fix: where (file and line), which key, the offending value and the
closest known name; pydantic's validation errors and TOML syntax errors said in pypto's words."""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ValidationError

from pypto_core.config.schema import PyptoConfig
from pypto_core.diagnostics import render_located
from pypto_core.errors import UserError
from pypto_core.ir.span import Span


class ConfigError(UserError):
    """A configuration a user can fix; the message starts with `file[:line]: key:`."""


def did_you_mean(name: str, known: Sequence[str]) -> str:
    hint = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    if hint:
        return f"; did you mean '{hint[0]}'?"
    return f" (known: {', '.join(sorted(known)) or 'none'})"


def dotted(path: Sequence[Any]) -> str:
    """`dump.print_after[1]`: a key path, array indices in brackets."""
    out = ""
    for part in path:
        text = str(part)
        if isinstance(part, int) or text.isdigit():
            out += f"[{text}]"
        else:
            out += f".{text}" if out else text
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
            text = f"unknown key '{loc[-1]}'{section}{did_you_mean(str(loc[-1]), known)}"
        elif len(errors) > 1:
            text = f"expected {_expected_words(errors)}, got {shown_value(first.get('input'))}"
        else:
            text = describe_validation_error(first)
        messages.append(report(list(loc), text))
    return messages


def toml_syntax_error(text: str, source: str, exc: Exception) -> ConfigError:
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
