"""OutlineClusterScopes (docs/passes/outline_cluster_scopes.md): a program without pl.cluster scopes passes
unchanged; a hand-built cluster scope is a located error; ClusterOutlined's verifier finds one."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

TEXT = '''import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.add(x, x), [0])
        return out
'''



def _clustered() -> ir.Program:
    """The program with its scope's body wrapped in a ClusterScopeStmt (the parser has no pl.cluster)."""
    program = pl.parse(TEXT, "cluster.py")
    main = program.get_function("main")
    stmts = ir.flatten_to_stmts(main.body)
    wrapped = ir.ClusterScopeStmt(body=stmts[0], span=stmts[0].span)
    return program.with_functions([main.with_fields(body=ir.SeqStmts([wrapped, *stmts[1:]]))])


def test_a_program_without_cluster_scopes_passes_unchanged():
    program = pl.parse(TEXT, "cluster.py")
    assert passes.outline_cluster_scopes()(program) is program
    props = passes.IRPropertySet([passes.IRProperty.ClusterOutlined])
    assert not PropertyVerifierRegistry.verify(props, program)


@pytest.mark.unverified
def test_a_cluster_scope_is_a_located_error_and_the_verifier_names_it():
    program = _clustered()
    (diag,) = PropertyVerifierRegistry.verify(passes.IRPropertySet([passes.IRProperty.ClusterOutlined]), program)
    assert "function 'main' still holds a pl.cluster scope" in diag.message
    with pytest.raises(ValueError, match=r"function 'main' holds a pl.cluster scope, which pypto does not support") \
            as info:
        passes.outline_cluster_scopes()(program)
    assert "cluster.py:8" in str(info.value)
