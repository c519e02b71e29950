"""The tile-lowering corpus and the examples through the whole `default` pipeline, on both backends: each
kernel as written (unsplit) and with `optimizations=[pl.split(MODE)]`, through the tile lowering,
LowerAutoVectorSplit, ExpandMixedKernel and SplitVectorKernel (round trip + check-run + the verifiers after
every pass). No InCore function is left, and every Group computes what the source program computes.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from pypto_core.config import parse_config_text, resolve_config
from pypto_core.ir.enums import FunctionType
from pypto_core.ir.function import Program
from pypto_core.language.api import parse
from pypto_core.passes.instruments.roundtrip import make_roundtrip_instrument
from pypto_core.passes.manager import PassManager

from .test_tile_corpus import BACKENDS, KERNELS, assert_same_results
from .test_tile_split_corpus import EXAMPLES, REJECTED, with_split

MODES = ("none", "UP_DOWN", "LEFT_RIGHT")
# The default pipeline plans on-chip memory: a kernel that loads a whole dynamic-row tensor as one tile has no
# buffer size to plan (docs/passes/init_mem_ref.md, errors), whatever the split.
EXPAND_REJECTED = {**REJECTED, **{("dyn_rows_elementwise", mode): r"InitMemRef requires static shape for variable "
                                                                  r"'a__tile'.*load the tensor in blocks"
                                  for mode in ("none", "UP_DOWN", "LEFT_RIGHT")}}
MIN_EXPANDED = 30  # (kernel, mode) pairs that become AIC + AIV + Group (the region corpus adds 46 programs)


@cache
def expand_pass_manager(backend: str) -> PassManager:
    loaded = parse_config_text(f'backend = "{backend}"\nverify = "check-run"\n[pipeline]\n'
                               'passes = ["default"]\n',
                               "<expand corpus>")
    resolved = resolve_config(loaded)
    return PassManager(resolved.passes, backend=resolved.backend, verify="check-run",
                       instruments=[make_roundtrip_instrument()])


@cache
def compile_expanded(path: Path, mode: str, backend: str) -> tuple[Program, Program]:
    text = path.read_text(encoding="utf-8")
    before = parse(text if mode == "none" else with_split(text, mode), str(path))
    return before, expand_pass_manager(backend).run(before)


def check_expanded(before: Program, after: Program, backend: str) -> None:
    left = [f.name for f in after.functions.values() if f.func_type is FunctionType.InCore]
    assert not left, f"InCore functions left after ExpandMixedKernel: {left}"
    assert_same_results(before, after, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("path", KERNELS, ids=[p.stem for p in KERNELS])
def test_expand_corpus(path: Path, mode: str, backend: str):
    rejected = EXPAND_REJECTED.get((path.stem, mode))
    if rejected is not None:
        with pytest.raises(ValueError, match=rejected):
            compile_expanded(path, mode, backend)
        return
    before, after = compile_expanded(path, mode, backend)
    check_expanded(before, after, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_corpus_expands_enough_mixed_kernels(backend: str):
    expanded = 0
    for path in KERNELS:
        for mode in MODES:
            if (path.stem, mode) in EXPAND_REJECTED:
                continue
            _, after = compile_expanded(path, mode, backend)
            expanded += any(f.func_type is FunctionType.Group for f in after.functions.values())
    assert expanded >= MIN_EXPANDED, f"only {expanded} kernels became AIC + AIV + Group on {backend}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_every_example_through_expand_mixed_kernel(path: Path, backend: str):
    before = parse(path.read_text(encoding="utf-8"), str(path))
    check_expanded(before, expand_pass_manager(backend).run(before), backend)
