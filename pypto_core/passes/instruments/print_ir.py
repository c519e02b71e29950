"""Print the program around passes, like LLVM's `-print-before/-print-after/-print-changed`:

* before all passes, or before the named ones (`--print-before-all`, `--print-before NAME`);
* after all passes, or after the named ones (`--print-after-all`, `--print-after NAME`);
* only after passes that changed it, whole (`--print-changed`, `--print-after-change`) or as a unified
  diff against the pass's input (`--print-changed=diff`, coloured on a terminal unless NO_COLOR is set); with
  `--print-after` names, only those passes;
* restricted to some functions (`--filter-func NAME`, repeatable, shell-style patterns): the other
  functions are left out, a pass is "changed" only when a shown function changed, and nothing is
  printed for a pass when no function matches; a pattern that matched no function of any program the run
  printed is a warning at the end, listing the functions there were.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import sys
from collections.abc import Iterable
from typing import Any, Literal, TextIO

from pypto_core.passes.instruments.base import PassInstrument
from pypto_core.passes.naming import pass_label

ChangedMode = Literal["full", "diff"]
CHANGED_MODES: tuple[str, ...] = ("full", "diff")


def function_names(program: Any) -> list[str]:
    """The names of a program's functions (a lone function: its own)."""
    funcs = getattr(program, "function_list", None)
    return [f.name for f in funcs()] if funcs is not None else [getattr(program, "name", "")]


def render_program(program: Any, functions: Iterable[str] = ()) -> str | None:
    """`program` as pl text; with `functions` (names or shell patterns), only the functions matching one
    (None when none matches)."""
    from pypto_core.language.printer import python_print

    patterns = list(functions)
    if not patterns:
        return python_print(program)
    funcs = getattr(program, "function_list", None)
    if funcs is None:  # a lone function
        name = getattr(program, "name", "")
        return python_print(program) if any(fnmatch.fnmatchcase(name, p) for p in patterns) else None
    kept = [f for f in funcs() if any(fnmatch.fnmatchcase(f.name, p) for p in patterns)]
    if not kept:
        return None
    return python_print(program.with_functions(kept))


class PrintAfterInstrument(PassInstrument):
    """Prints the program before and/or after passes (module docstring); `only_changed` is the
    `--print-after-change` flag (the same as `changed="full"`)."""

    name = "PrintAfterInstrument"
    timing_label = "printing"

    def __init__(self, print_all: bool = False, pass_names: Iterable[str] = (), only_changed: bool = False,
                 stream: TextIO | None = None, *, changed: ChangedMode | None = None,
                 before_all: bool = False, before_names: Iterable[str] = (),
                 filter_funcs: Iterable[str] = ()) -> None:
        if changed is not None and changed not in CHANGED_MODES:
            raise ValueError(f"print-changed: '{changed}' is not one of {', '.join(CHANGED_MODES)}")
        self.print_all = print_all
        self.pass_names = set(pass_names)
        self.changed: ChangedMode | None = changed or ("full" if only_changed else None)
        self.only_changed = self.changed is not None
        self.before_all = before_all
        self.before_names = set(before_names)
        self.filter_funcs = list(filter_funcs)
        self.stream = stream
        self._before_texts: list[str | None] = []  # a stack: a pass may run passes itself
        self._names_seen: dict[str, None] = {}  # the functions of the programs this run rendered, in order

    @staticmethod
    def _named(p: Any, names: set[str]) -> bool:
        return pass_label(p) in names or p.get_name() in names

    def _selected_after(self, p: Any) -> bool:
        if self.print_all or (self.only_changed and not self.pass_names):
            return True
        return self._named(p, self.pass_names)

    def _selected_before(self, p: Any) -> bool:
        return self.before_all or self._named(p, self.before_names)

    def _colour(self) -> bool:
        """Colour a diff on a terminal, as `git diff` does; never in a file or pipe, nor with NO_COLOR set."""
        stream = self.stream or sys.stderr
        return bool(getattr(stream, "isatty", lambda: False)()) and not os.environ.get("NO_COLOR")

    def _emit(self, text: str) -> None:
        stream = self.stream or sys.stderr
        stream.write(text)
        stream.flush()

    def _render(self, program: Any) -> str | None:
        if self.filter_funcs:
            self._names_seen.update(dict.fromkeys(function_names(program)))
        return render_program(program, self.filter_funcs)

    def finish_run(self, program: Any) -> None:
        """Warn about each --filter-func pattern that matched no function the run printed (or its result)."""
        if not self.filter_funcs:
            return
        self._names_seen.update(dict.fromkeys(function_names(program)))
        names = list(self._names_seen)
        for pattern in self.filter_funcs:
            if not any(fnmatch.fnmatchcase(name, pattern) for name in names):
                close = difflib.get_close_matches(pattern, names, n=1)
                hint = f"; did you mean '{close[0]}'?" if close else ""
                self._emit(f"pypto: warning: --filter-func: no function matched '{pattern}'{hint} "
                           f"(functions: {', '.join(names)})\n")

    def before_pass(self, p: Any, program: Any) -> None:
        printing = self._selected_before(p)
        remembering = self.only_changed and self._selected_after(p)
        if not (printing or remembering):
            return
        text = self._render(program)
        if remembering:
            self._before_texts.append(text)
        if printing and text is not None:
            self._emit(f"# ---- IR before {pass_label(p)} ({p.get_name()}) ----\n{text}\n")

    def after_pass(self, p: Any, program: Any) -> None:
        if not self._selected_after(p):
            return
        text = self._render(program)
        before = self._before_texts.pop() if self.only_changed and self._before_texts else None
        if self.only_changed and text == before:
            return
        if text is None:
            if self.changed != "diff" or before is None:
                return
            text = ""  # the shown functions are gone: the diff removes them
        header = f"{pass_label(p)} ({p.get_name()})"
        if self.changed == "diff":
            diff = difflib.unified_diff(_lines(before), _lines(text), fromfile=f"before {pass_label(p)}",
                                        tofile=f"after {pass_label(p)}")
            body = "".join(line if line.endswith("\n") else line + "\n" for line in diff)
            if self._colour():
                body = colour_diff(body)
            self._emit(f"# ---- IR diff after {header} ----\n{body}")
            return
        self._emit(f"# ---- IR after {header} ----\n{text}\n")


_ANSI = {"+": "\x1b[32m", "-": "\x1b[31m", "@": "\x1b[36m"}
_RESET = "\x1b[0m"


def colour_diff(body: str) -> str:
    """A unified diff with ANSI colours: added lines green, removed red, hunk headers cyan (file headers plain)."""
    out = []
    for line in body.splitlines(keepends=True):
        colour = None if line.startswith(("+++", "---")) else _ANSI.get(line[:1])
        out.append(f"{colour}{line.rstrip(chr(10))}{_RESET}\n" if colour else line)
    return "".join(out)


def _lines(text: str | None) -> list[str]:
    return (text + "\n").splitlines(keepends=True) if text else []
