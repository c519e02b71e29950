"""Print -> parse checks: the printer's contract is that its text parses back to the same IR (docs/dsl.md, the printed form)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from pypto_core.ir.function import Function, Program
from pypto_core.ir.structural import assert_structural_equal
from pypto_core.language import printer
from pypto_core.language.parser.program_parser import parse_text


@dataclass
class Roundtrip:
    """The IR, its printed text, and the IR parsed back from that text."""

    ir: Function | Program
    text: str
    reparsed: Function | Program


class RoundtripError(ValueError):
    """Print -> parse -> structural equality failed at `stage` ("print", "parse" or "equality"); `text` is the
    printed program when printing succeeded."""

    def __init__(self, stage: str, detail: str, text: str | None = None) -> None:
        super().__init__(detail)
        self.stage, self.detail, self.text = stage, detail, text


def roundtrip(node: Function | Program, filename: str = "<roundtrip>") -> Roundtrip:
    """Print `node` (raw, `format=False`), parse the text back and compare structurally: the one
    implementation of the round trip, used by the round-trip instrument and by `assert_roundtrip`."""
    try:
        text = printer.python_print(node, format=False)  # looked up per call: tests replace the printer
    except Exception as exc:
        raise RoundtripError("print", str(exc)) from exc
    try:
        reparsed = parse_text(text, filename)
    except Exception as exc:
        raise RoundtripError("parse", str(exc), text) from exc
    if isinstance(node, Program) and not isinstance(reparsed, Program):
        raise RoundtripError("parse", f"the printed program parsed as a {type(reparsed).__name__}, not a Program",
                             text)
    try:
        assert_structural_equal(node, reparsed)
    except ValueError as exc:
        raise RoundtripError("equality", str(exc), text) from exc
    return Roundtrip(node, text, reparsed)


def assert_roundtrip(source: str | Function | Program, filename: str = "<roundtrip>") -> Roundtrip:
    """For tests: parse(print(p)) must equal p structurally, and printing it again must give the same text.

    `source` is DSL text or already-built IR. Raises ValueError describing the first difference (an error
    parsing the printed text is raised as the parser raised it).
    """
    node = parse_text(source, filename) if isinstance(source, str) else source
    try:
        result = roundtrip(node, "<printed>")
    except RoundtripError as exc:
        if exc.stage == "equality":
            raise ValueError(f"print -> parse changed the IR:\n{exc.detail}\n--- printed text ---\n{exc.text}") from None
        raise (exc.__cause__ or exc) from None
    again = printer.python_print(result.reparsed, format=False)
    if again != result.text:
        diff = "\n".join(difflib.unified_diff(result.text.splitlines(), again.splitlines(), "printed", "re-printed",
                                              lineterm=""))
        raise ValueError(f"printing is not a fixpoint:\n{diff}")
    return result


def text_diff(expected: str, actual: str) -> str:
    """A unified diff for assertion messages (empty when equal)."""
    return "\n".join(difflib.unified_diff(expected.splitlines(), actual.splitlines(), "expected", "actual",
                                          lineterm=""))


def missing_ops(*names: str) -> list[str]:
    """Names among `names` the loaded plugins do not provide (tests skip on them instead of failing).

    `tile.load` needs both the op and its DSL name `pl.tile.load`; a bare name (`assemble`) only the DSL name.
    """
    from pypto_core.ops.registry import op_registry

    registry = op_registry()
    return [n for n in names if n not in registry.dsl or ("." in n and n not in registry.ops)]
