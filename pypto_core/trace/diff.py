"""Line diffs of printed programs, function by function (difflib).

A printed program is a header (the `# pypto.program` line, the import, `@pl.program`, `class Name:`)
followed by its functions, each starting at its `@pl.function` decorator. `diff_programs(before, after)`
splits both texts that way and diffs each function with its namesake, so a function that moved or was
added shows as one block and not as noise spread over the others. Each diff line carries its line numbers
in the whole printed program, and changed lines paired with their old version carry the changed
characters (intra-line highlighting).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Literal

HEADER_SECTION = ""  # the name of the program header's section
CONTEXT_LINES = 3  # unchanged lines kept around a change in the "changes only" view
_MAX_INTRALINE_CHARS = 2000
_MAX_INTRALINE_BLOCK = 200
_PAIR_RATIO = 0.4

_FUNCTION_START = re.compile(r"^\s*@\w+\.function\b")
_DEF = re.compile(r"^\s*def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(")

LineKind = Literal["ctx", "add", "del"]
SectionStatus = Literal["added", "removed", "changed", "unchanged"]


@dataclass
class Section:
    name: str  # the function's name, HEADER_SECTION for the program header
    start: int  # 0-based index of its first line in the whole text
    lines: list[str]


@dataclass
class DiffLine:
    kind: LineKind
    text: str
    old_no: int | None = None  # 1-based line numbers in the printed program before / after
    new_no: int | None = None
    segments: list[tuple[bool, str]] | None = None  # (changed, text) pieces when paired with its counterpart
    far: bool = False  # an unchanged line more than CONTEXT_LINES away from any change


@dataclass
class SectionDiff:
    name: str
    status: SectionStatus
    lines: list[DiffLine] = field(default_factory=list)

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.kind == "add")

    @property
    def removed(self) -> int:
        return sum(1 for line in self.lines if line.kind == "del")


def split_sections(text: str | None) -> list[Section]:
    """The header and the functions of a printed program (a text without functions is all header)."""
    if text is None:
        return []
    lines = text.splitlines()
    starts: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        if _FUNCTION_START.match(lines[i]):
            j = i
            while j < len(lines) and not _DEF.match(lines[j]) and j - i < 8:  # a decorator may span lines
                j += 1
            m = _DEF.match(lines[j]) if j < len(lines) else None
            if m:
                starts.append((i, m.group(1)))
                i = j
        i += 1
    sections = [Section(HEADER_SECTION, 0, lines[:starts[0][0]] if starts else lines)]
    seen: dict[str, int] = {}
    for k, (start, name) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        seen[name] = seen.get(name, 0) + 1
        unique = name if seen[name] == 1 else f"{name}#{seen[name]}"  # a malformed program may repeat a name
        sections.append(Section(unique, start, lines[start:end]))
    return sections


def function_names(text: str | None) -> list[str]:
    return [s.name for s in split_sections(text) if s.name != HEADER_SECTION]


_WORD = re.compile(r"\w+|\s+|[^\w\s]")


def _segments(old: str, new: str) -> tuple[list[tuple[bool, str]], list[tuple[bool, str]]] | None:
    """The (changed, text) pieces of two versions of a line, word by word; None when they hardly match."""
    a, b = _WORD.findall(old), _WORD.findall(new)
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    if matcher.real_quick_ratio() < _PAIR_RATIO or matcher.quick_ratio() < _PAIR_RATIO:
        return None
    opcodes = matcher.get_opcodes()
    same = sum(sum(len(t) for t in a[i1:i2]) for tag, i1, i2, _, _ in opcodes if tag == "equal")
    if 2 * same < _PAIR_RATIO * (len(old) + len(new)):
        return None
    old_parts: list[tuple[bool, str]] = []
    new_parts: list[tuple[bool, str]] = []
    for tag, i1, i2, j1, j2 in opcodes:
        if i2 > i1:
            old_parts.append((tag != "equal", "".join(a[i1:i2])))
        if j2 > j1:
            new_parts.append((tag != "equal", "".join(b[j1:j2])))
    return old_parts, new_parts


def _pair(olds: list[DiffLine], news: list[DiffLine]) -> None:
    """Intra-line highlighting of a replaced block: pair its lines in order while they look alike."""
    if len(olds) > _MAX_INTRALINE_BLOCK or len(news) > _MAX_INTRALINE_BLOCK:
        return
    for old, new in zip(olds, news):
        if len(old.text) > _MAX_INTRALINE_CHARS or len(new.text) > _MAX_INTRALINE_CHARS:
            continue
        pieces = _segments(old.text, new.text)
        if pieces is not None:
            old.segments, new.segments = pieces


def _mark_far(lines: list[DiffLine]) -> None:
    distance = [len(lines) + CONTEXT_LINES + 1] * len(lines)
    last = -(10**9)
    for i, line in enumerate(lines):
        if line.kind != "ctx":
            last = i
        distance[i] = i - last
    last = 10**9
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].kind != "ctx":
            last = i
        distance[i] = min(distance[i], last - i)
    for i, line in enumerate(lines):
        line.far = line.kind == "ctx" and distance[i] > CONTEXT_LINES


def diff_section(old: Section | None, new: Section | None) -> SectionDiff:
    """The line diff of one function (or the header) between two printed programs."""
    name = (new or old).name if (new or old) else HEADER_SECTION
    a = old.lines if old else []
    b = new.lines if new else []
    a0 = old.start if old else 0
    b0 = new.start if new else 0
    out: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(DiffLine("ctx", b[j1 + k], a0 + i1 + k + 1, b0 + j1 + k + 1) for k in range(i2 - i1))
            continue
        olds = [DiffLine("del", a[i], old_no=a0 + i + 1) for i in range(i1, i2)]
        news = [DiffLine("add", b[j], new_no=b0 + j + 1) for j in range(j1, j2)]
        if tag == "replace":
            _pair(olds, news)
        out.extend(olds)
        out.extend(news)
    _mark_far(out)
    if old is None:
        status: SectionStatus = "added"
    elif new is None:
        status = "removed"
    else:
        status = "unchanged" if a == b else "changed"
    return SectionDiff(name, status, out)


def diff_programs(before: str | None, after: str | None) -> list[SectionDiff]:
    """Section by section diff (module docstring). `before=None` shows `after` as all unchanged (the input);
    `after=None` shows nothing (a pass that produced no program)."""
    new_sections = split_sections(after)
    if before is None:
        return [diff_section(s, s) for s in new_sections]
    old_sections = split_sections(before)
    old_by_name = {s.name: s for s in old_sections}
    new_names = {s.name for s in new_sections}
    result = [diff_section(old_by_name.get(s.name), s) for s in new_sections]
    # A removed function goes after the section that preceded it in the old program.
    for k, s in enumerate(old_sections):
        if s.name in new_names:
            continue
        previous = next((o.name for o in reversed(old_sections[:k]) if o.name in new_names), None)
        at = next((i + 1 for i, d in enumerate(result) if d.name == previous), 0) if previous is not None else 0
        while at < len(result) and result[at].status == "removed":
            at += 1
        result.insert(at, diff_section(s, None))
    return result


def changed_sections(before: str | None, after: str | None) -> list[str]:
    """Names of the functions whose text differs between two printed programs (added and removed ones too)."""
    old = {sec.name: sec.lines for sec in split_sections(before)}
    new = {sec.name: sec.lines for sec in split_sections(after)}
    names = list(new) + [n for n in old if n not in new]
    return [n for n in names if n != HEADER_SECTION and old.get(n) != new.get(n)]


def count_changes(before: str | None, after: str | None) -> tuple[int, int]:
    """(added, removed) lines between two texts, as a unified diff counts them."""
    if before is None or after is None or before == after:
        return 0, 0
    added = removed = 0
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before.splitlines(), after.splitlines(),
                                                        autojunk=False).get_opcodes():
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return added, removed
