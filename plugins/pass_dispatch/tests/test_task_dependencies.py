"""AutoDeriveTaskDependencies (docs/passes/auto_derive_task_dependencies.md): pypto has no runtime
scopes, so the pass leaves every program as it is; its option is checked like any pass option."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import passes


@pytest.mark.parametrize("path", ["examples/basic.py", "examples/mixed_matmul_bias.py"])
def test_programs_pass_unchanged(path: str):
    program = pl.parse(open(path).read(), path)
    assert passes.auto_derive_task_dependencies(analyze_auto_scopes=False)(program) is program
    assert passes.auto_derive_task_dependencies(analyze_auto_scopes=True)(program) is program


def test_an_unknown_option_is_named():
    with pytest.raises(ValueError, match="invalid options for pass auto_derive_task_dependencies: bogus"):
        passes.auto_derive_task_dependencies(bogus=1)
