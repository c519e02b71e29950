"""The round-trip check: print -> parse -> structural equality after a pass (docs/architecture.md, the pass manager)."""

from __future__ import annotations

import warnings
from typing import Any

from pypto_core.passes.instruments.callback import CallbackInstrument

_TOLERATED_PRINTER_LIMIT = "does not support iter_args"


def check_roundtrip(pass_name: str, program: Any) -> None:
    """Raise RuntimeError when the printed form of `program` does not parse back to an equal program."""
    from pypto_core.ir.function import Program
    from pypto_core.ir.structural import assert_structural_equal
    from pypto_core.language.api import parse
    from pypto_core.language.printer import python_print

    try:
        text = python_print(program, format=False)
    except Exception as exc:
        first_line = (str(exc).splitlines() or [""])[0]
        if _TOLERATED_PRINTER_LIMIT in first_line:
            warnings.warn(f"[RoundtripInstrument] skipped after pass '{pass_name}': {first_line}", stacklevel=2)
            return
        raise RuntimeError(f"[RoundtripInstrument] Printer failed after pass '{pass_name}': {exc}") from exc
    try:
        reparsed = parse(text, filename="<roundtrip>")
    except Exception as exc:
        raise RuntimeError(f"[RoundtripInstrument] Parse failed after pass '{pass_name}': {exc}\n"
                           f"--- printed program ---\n{text}") from exc
    if isinstance(program, Program) and not isinstance(reparsed, Program):
        raise RuntimeError(f"[RoundtripInstrument] Parse failed after pass '{pass_name}': the printed program "
                           f"parsed as a {type(reparsed).__name__}, not a Program")
    try:
        assert_structural_equal(program, reparsed)
    except ValueError as exc:
        raise RuntimeError(f"[RoundtripInstrument] Structural equality failed after pass '{pass_name}': "
                           f"{exc}") from exc


def make_roundtrip_instrument() -> CallbackInstrument:
    return CallbackInstrument(after_pass=lambda p, program: check_roundtrip(p.get_name(), program),
                              name="RoundtripInstrument")
