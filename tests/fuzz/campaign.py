"""A long fuzz campaign: generate valid programs, mutate them, check every promise, keep minimal reproducers.

Run it from the repository root:

    python -m tests.fuzz.campaign --minutes 30 --out /tmp/fuzz-findings [--seed 1] [--mutated 0.6]
                                  [--timeout 10] [--backend both] [--suite-share 0.3]

For N minutes it draws programs with the generator of `tests/fuzz/strategies.py` (the valid-program
generator; its docstring states the DSL coverage), checks each one, then checks 1-3 mutants of it made by
`tests/fuzz/mutators.py` (text-level and `ast`-level corruptions), all with `tests/fuzz/oracle.py`:
parse (never executed) -> a program or a located ValueError; print -> parse of the input; the `default`
pipeline under verify = "check-run" with the round-trip instrument on Ascend910B or Ascend950 -> a
compiled program or a ValueError, never an InternalError / other exception / hang / round-trip failure /
mismatch. With `--suite-share P`, a share P of the rounds starts instead from a program text of the test
suite itself (`tests/fuzz/suite_texts.py`: hand-written AIC / AIV / Group kernels and cross-core pipes the
generator does not write), checked and mutated the same way.

Findings are deduplicated by signature (exception type, first line of the message with numbers and
quoted names blanked, pass). The first reproducer of each new signature is minimised (lines deleted one
at a time, then blocks, while the same signature persists, within `--minimise-seconds`) and written to
`DIR/finding_NNN.py` with the signature, promise, backend and full message in a leading comment;
`DIR/summary.md` lists every signature with its count, and `DIR/stats.json` the outcome counts, the
generator's feature counts and the most common rejections of generated (valid) programs -- those are
not findings, but a valid program the compiler rejects is worth a look.

Signatures in `test_generated_programs.KNOWN` are marked "known" in the summary.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tests.fuzz.mutators import mutate
from tests.fuzz.oracle import BACKENDS, Finding, Outcome, check_text, normalise
from tests.fuzz.strategies import generate
from tests.fuzz.suite_texts import suite_program_texts


@dataclass
class Record:
    finding: Finding
    backend: str
    origin: str  # "generated" | "mutated: <mutators>"
    text: str
    count: int = 1
    minimal: str = ""
    known: bool = False


@dataclass
class Campaign:
    out: Path
    seed: int = 0
    mutated_share: float = 0.6
    timeout: float = 10.0
    backends: tuple[str, ...] = BACKENDS
    minimise_seconds: float = 60.0
    suite_share: float = 0.0  # the share of rounds that start from a test-suite program text
    records: dict[tuple[str, str, str], Record] = field(default_factory=dict)
    stats: Counter[str] = field(default_factory=Counter)
    features: Counter[str] = field(default_factory=Counter)
    rejections: Counter[str] = field(default_factory=Counter)

    def check(self, text: str, backend: str) -> Outcome:
        return check_text(text, backend, self.timeout)

    def note(self, text: str, backend: str, origin: str, outcome: Outcome) -> None:
        self.stats[f"{origin.split(':')[0]} {outcome.status}"] += 1
        if outcome.status in ("pipeline-rejected", "input-rejected", "parse-rejected") and origin == "generated":
            self.rejections[normalise((outcome.detail.strip().splitlines() or ["(parse)"])[0])] += 1
        f = outcome.finding
        if f is None:
            return
        sig = f.signature
        rec = self.records.get(sig)
        if rec is not None:
            rec.count += 1
            return
        rec = Record(f, backend, origin, text, known=is_known(f))
        self.records[sig] = rec
        print(f"[campaign] new finding #{len(self.records)}: {f.describe()[:200]}", flush=True)
        rec.minimal = minimise(text, sig, backend, self.timeout, self.minimise_seconds)
        self.write_finding(len(self.records), rec)
        self.write_summary()

    def write_finding(self, k: int, rec: Record) -> None:
        f = rec.finding
        head = [f"# fuzz finding {k:03d} ({'known' if rec.known else 'new'})",
                f"# promise: {f.promise}", f"# signature: {f.signature!r}", f"# backend: {rec.backend}",
                f"# origin: {rec.origin}", "# message:"]
        head += [f"#   {line}" for line in f.message.strip().splitlines()[:40]]
        body = rec.minimal or rec.text
        (self.out / f"finding_{k:03d}.py").write_text("\n".join(head) + "\n\n" + body, encoding="utf-8",
                                                      errors="backslashreplace")

    def write_summary(self) -> None:
        lines = ["# Fuzz campaign summary", "", f"seed {self.seed}; outcomes: {dict(sorted(self.stats.items()))}", "",
                 "| # | count | known | promise | exception | pass | first line |", "|---|---|---|---|---|---|---|"]
        for k, rec in enumerate(self.records.values(), 1):
            f = rec.finding
            first = f.first_line.replace("|", "\\|")[:140]
            lines.append(f"| {k:03d} | {rec.count} | {'yes' if rec.known else 'no'} | {f.promise} | {f.exc_type} | "
                         f"{f.pass_name} | {first} |")
        (self.out / "summary.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (self.out / "stats.json").write_text(json.dumps({
            "outcomes": dict(self.stats), "features": dict(self.features.most_common()),
            "rejections_of_generated_programs": dict(self.rejections.most_common(30))}, indent=1),
            encoding="utf-8")

    def run(self, minutes: float) -> None:
        self.out.mkdir(parents=True, exist_ok=True)
        rng = random.Random(self.seed)
        deadline = time.monotonic() + minutes * 60
        n = 0
        while time.monotonic() < deadline:
            n += 1
            backend = rng.choice(self.backends)
            suite = suite_program_texts() if self.suite_share > 0 else ()
            if suite and rng.random() < self.suite_share:
                seed_text, origin = rng.choice(suite), "suite"
            else:
                spec = generate(random.Random(rng.getrandbits(64)))
                self.features.update(spec.features)
                seed_text, origin = spec.text, "generated"
            self.note(seed_text, backend, origin, self.check(seed_text, backend))
            for _ in range(rng.choice((1, 2, 3))):
                if rng.random() >= self.mutated_share or time.monotonic() >= deadline:
                    continue
                text, applied = mutate(seed_text, rng, rng.choice((1, 1, 2, 3)))
                self.note(text, backend, "mutated: " + ", ".join(applied), self.check(text, backend))
            if n % 25 == 0:
                self.write_summary()
                print(f"[campaign] {n} programs, {sum(self.stats.values())} inputs, {len(self.records)} findings",
                      flush=True)
        self.write_summary()
        print(f"[campaign] done: {n} programs, {sum(self.stats.values())} inputs, {len(self.records)} distinct "
              f"findings -> {self.out}", flush=True)


def is_known(f: Finding) -> bool:
    try:
        from tests.fuzz.test_generated_programs import KNOWN
    except ImportError:
        return False
    return any(k.matches(f) for k in KNOWN)


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """(start, end) of every indented block headed by a line ending in ':' (header included)."""
    out = []
    for i, line in enumerate(lines):
        if line.rstrip().endswith(":"):
            indent = len(line) - len(line.lstrip())
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
                j += 1
            out.append((i, j))
    return out


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    items, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    return items


def _item_deletions(line: str) -> list[str]:
    """`line` with one parameter of a `def` removed, or one element of a returned tuple (and of the
    `-> tuple[...]` annotation when the return line is the caller's)."""
    out = []
    if line.lstrip().startswith("def ") and "(" in line and ")" in line:
        head, rest = line.split("(", 1)
        params, tail = rest.rsplit(") ->", 1) if ") ->" in rest else rest.rsplit("):", 1)
        sep = ") ->" if ") ->" in rest else "):"
        items = _split_top(params)
        for k in range(len(items)):
            if items[k].strip() != "self":
                out.append(head + "(" + ",".join(items[:k] + items[k + 1:]).lstrip() + sep + tail)
    return out


def minimise(text: str, sig: tuple[str, str, str], backend: str, timeout: float, budget: float) -> str:
    """Delete blocks, then lines, while the finding keeps signature `sig` (bounded by `budget` seconds)."""
    end = time.monotonic() + budget

    def same(candidate: str) -> bool:
        o = check_text(candidate, backend, timeout)
        return o.finding is not None and o.finding.signature == sig

    lines = text.split("\n")
    changed = True
    while changed and time.monotonic() < end:
        changed = False
        for start, stop in sorted(_blocks(lines), key=lambda b: b[0] - b[1]):
            if time.monotonic() >= end or stop > len(lines):
                break
            cand = lines[:start] + lines[stop:]
            if same("\n".join(cand)):
                lines, changed = cand, True
                break
        if changed:
            continue
        for i in range(len(lines)):
            progress = True
            while progress and time.monotonic() < end:
                progress = False
                for cand_line in _item_deletions(lines[i]):
                    cand = lines[:i] + [cand_line] + lines[i + 1:]
                    if same("\n".join(cand)):
                        lines[i] = cand_line
                        changed = progress = True
                        break
        i = len(lines) - 1
        while i >= 0 and time.monotonic() < end:
            if lines[i].strip():
                cand = lines[:i] + lines[i + 1:]
                if same("\n".join(cand)):
                    lines, changed = cand, True
            i -= 1
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--mutated", type=float, default=0.6, help="chance of each of 1-3 mutants per program")
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per input before it counts as a hang")
    ap.add_argument("--backend", choices=("both", *BACKENDS), default="both")
    ap.add_argument("--minimise-seconds", type=float, default=60.0)
    ap.add_argument("--suite-share", type=float, default=0.0,
                    help="share of rounds that start from a program text of the test suite instead of the generator")
    args = ap.parse_args(argv)
    backends = BACKENDS if args.backend == "both" else (args.backend,)
    Campaign(args.out, args.seed, args.mutated, args.timeout, backends, args.minimise_seconds,
             suite_share=args.suite_share).run(args.minutes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
