"""The tile-lowering corpus again, each `pl.at` scope written with `optimizations=[pl.split(MODE)]`, through
the `tile` preset plus `lower_auto_vector_split` (round trip + check-run + the verifiers after every pass).

The mixed kernels become split_aiv functions whose vector work the two AIV lanes share; pure-cube and
pure-vector kernels pass through (docs/passes/lower_auto_vector_split.md, scope). A kernel the split must reject (a reduction over
the split axis) is listed with the reason and its error is matched.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from pypto_core.config import parse_config_text, resolve_config
from pypto_core.language.api import parse
from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
from pypto_core.passes.manager import PassManager

from .test_tile_corpus import KERNELS, assert_same_results

MODES = ("UP_DOWN", "LEFT_RIGHT")
# (kernel, mode) -> the documented rejection.
REJECTED = {
    ("mm_attention_softmax", "LEFT_RIGHT"): r"reduce op 'tile.row_max' reduces on the split axis \(dim 1\)",
}
MIN_SPLIT_KERNELS = 10


@cache
def split_pass_manager() -> PassManager:
    loaded = parse_config_text('verify = "check-run"\n[pipeline]\npasses = ["tile", "lower_auto_vector_split"]\n',
                               "<split corpus>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend, verify="check-run",
                       instruments=[make_roundtrip_instrument()])


def with_split(text: str, mode: str) -> str:
    return re.sub(r"pl\.at\(level=pl\.Level\.CORE_GROUP",
                  f"pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.{mode})]", text)


@cache
def compile_split(path: Path, mode: str):
    before = parse(with_split(path.read_text(encoding="utf-8"), mode), str(path))
    return before, split_pass_manager().run(before)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", KERNELS, ids=[p.stem for p in KERNELS])
def test_split_corpus(path: Path, mode: str):
    rejected = REJECTED.get((path.stem, mode))
    if rejected is not None:
        with pytest.raises(ValueError, match=rejected):
            compile_split(path, mode)
        return
    before, after = compile_split(path, mode)
    assert_same_results(before, after, "Ascend910B")


@pytest.mark.parametrize("mode", MODES)
def test_the_split_corpus_splits_enough_mixed_kernels(mode: str):
    split = 0
    for path in KERNELS:
        if (path.stem, mode) in REJECTED:
            continue
        _, after = compile_split(path, mode)
        split += any(f.attrs.get("split_aiv") for f in after.functions.values())
    assert split >= MIN_SPLIT_KERNELS, f"only {split} kernels became split_aiv under {mode}"


EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples").glob("*.py"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_through_the_tile_preset_and_lower_auto_vector_split(path: Path):
    before = parse(path.read_text(encoding="utf-8"), str(path))
    after = split_pass_manager().run(before)
    assert_same_results(before, after, "Ascend910B")
