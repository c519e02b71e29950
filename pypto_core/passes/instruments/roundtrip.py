"""The round-trip instrument: print -> parse -> structural equality after a pass, with PyPTO's messages
(docs/architecture.md, the pass manager)."""

from __future__ import annotations

import warnings
from typing import Any

from pypto_core.passes.instruments.callback import CallbackInstrument

# A printer limit PyPTO tolerates with a warning instead of an error.
_TOLERATED_PRINTER_LIMIT = "does not support iter_args"
_STAGE = {"print": "Printer failed", "parse": "Parse failed", "equality": "Structural equality failed"}


def check_roundtrip(pass_name: str, program: Any) -> None:
    """Raise RuntimeError when the printed form of `program` does not parse back to an equal program."""
    from pypto_core.language.roundtrip import RoundtripError, roundtrip

    try:
        roundtrip(program)
    except RoundtripError as exc:
        first_line = (exc.detail.splitlines() or [""])[0]
        if exc.stage == "print" and _TOLERATED_PRINTER_LIMIT in first_line:
            warnings.warn(f"[RoundtripInstrument] skipped after pass '{pass_name}': {first_line}", stacklevel=2)
            return
        shown = f"\n--- printed program ---\n{exc.text}" if exc.stage == "parse" and exc.text is not None else ""
        raise RuntimeError(f"[RoundtripInstrument] {_STAGE[exc.stage]} after pass '{pass_name}': {exc.detail}"
                           f"{shown}") from exc


def make_roundtrip_instrument() -> CallbackInstrument:
    return CallbackInstrument(after_pass=lambda p, program: check_roundtrip(p.get_name(), program),
                              name="RoundtripInstrument")
