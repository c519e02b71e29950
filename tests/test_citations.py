"""Source and docs cite only the project's own docs/ pages: no document outside the repository, no issue or
fuzz-campaign number (git history keeps where a rule came from)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Documents outside the repository and the project's history.
OUTSIDE = re.compile(r"\b(?:OPS|API|DESIGN)\.md\b|\.\./shared|\bseeds?/|\bseed 00\d\b|\b[Ii]ssues?[ -]#?\d+\b|"
                     r"\bcampaign (?:\(?seed )?\d+")


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.py", "*.md", "*.toml"], cwd=ROOT, capture_output=True,
                            text=True)
    if listed.returncode != 0:  # not a git checkout (an sdist): every file of those kinds
        return [p for ext in ("py", "md", "toml") for p in ROOT.rglob(f"*.{ext}") if ".git" not in p.parts]
    return [ROOT / name for name in listed.stdout.split()]


def test_no_file_cites_a_document_outside_the_repository_or_an_issue():
    here = Path(__file__).resolve()
    found = []
    for path in _tracked_text_files():
        if path.resolve() == here or not path.is_file():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert found == [], "\n".join(found[:40])
