"""Print -> parse checks: the printer's contract is that its text parses back to the same IR (docs/dsl.md, the printed form)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from pypto_core.ir.function import Function, Program
from pypto_core.ir.structural import assert_structural_equal
from pypto_core.language.parser.program_parser import parse_text
from pypto_core.language.printer import python_print


@dataclass
class Roundtrip:
    """The IR parsed from the source, its printed text, and the IR parsed back from that text."""

    ir: Function | Program
    text: str
    reparsed: Function | Program


def check_roundtrip(source: str | Function | Program, filename: str = "<roundtrip>") -> Roundtrip:
    """parse(print(p)) must equal p structurally, and printing it again must give the same text.

    `source` is DSL text or already-built IR. Raises ValueError describing the first difference.
    """
    node = parse_text(source, filename) if isinstance(source, str) else source
    text = python_print(node, format=False)
    reparsed = parse_text(text, "<printed>")
    try:
        assert_structural_equal(node, reparsed)
    except ValueError as exc:
        raise ValueError(f"print -> parse changed the IR:\n{exc}\n--- printed text ---\n{text}") from None
    again = python_print(reparsed, format=False)
    if again != text:
        diff = "\n".join(difflib.unified_diff(text.splitlines(), again.splitlines(), "printed", "re-printed",
                                              lineterm=""))
        raise ValueError(f"printing is not a fixpoint:\n{diff}")
    return Roundtrip(node, text, reparsed)


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
