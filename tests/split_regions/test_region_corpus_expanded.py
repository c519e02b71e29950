"""The region-program corpus through the whole `default` pipeline on both backends (the tile lowering,
LowerAutoVectorSplit, ExpandMixedKernel, SplitVectorKernel; round trip + check-run + the verifiers after every pass). Every region is consumed (no
SplitAivScopeStmt and no InCore function is left) and the program computes what the source computes."""

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

from ..tile.test_tile_corpus import assert_same_results
from .test_region_corpus import BACKENDS, KNOWN_DEFECTS, PROGRAMS, regions_of


@cache
def compile_expanded(path: Path, backend: str) -> tuple[Program, Program]:
    loaded = parse_config_text(f'backend = "{backend}"\nverify = "check-run"\n[pipeline]\n'
                               'passes = ["default"]\n',
                               "<split regions expanded>")
    resolved = resolve_config(loaded)
    manager = PassManager(resolved.passes, backend=resolved.backend, verify="check-run",
                          instruments=[make_roundtrip_instrument()])
    source = parse(path.read_text(encoding="utf-8"), str(path))
    return source, manager.run(source)


def _param(path: Path):
    reason = KNOWN_DEFECTS.get(path.stem)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("path", [_param(p) for p in PROGRAMS])
def test_region_program_through_expand_mixed_kernel(path: Path, backend: str):
    source, after = compile_expanded(path, backend)
    assert not [f.name for f in after.functions.values() if f.func_type is FunctionType.InCore]
    assert not [f.name for f in after.functions.values() if regions_of(f)], "a region was not consumed"
    assert_same_results(source, after, backend)
