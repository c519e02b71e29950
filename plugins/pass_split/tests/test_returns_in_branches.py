"""`return` inside if branches (a program may write one there) through ExpandMixedKernel (docs/passes/expand_mixed_kernel.md, what it does and
frees).

A mixed kernel whose only `return` stands in an if branch must not get a Group function returning nothing (a
return lineage looking at the body's last statement only), or the caller's output is lost. And a tile popped
from the cube whose last use stands in a returning branch must not be freed only after the if, a statement the
returning path never reaches, or the FIFO slot is never released.

Rules (plugins/pass_split/mixed_kernel/group.py, tfree.py): the Group returns, for each result, the parameter
the kernel returns at every one of its returns (else the AIV function's result); a popped tile is also freed
right before each return nested in its last use; a branch returning the popped tile itself is a located
ValueError. Each program goes through the whole `default` pipeline with check-run and the round trip after
every pass, on both backends, and its outputs are compared with the program as written.
"""

from __future__ import annotations

import pytest

from pypto import ir, passes
from pypto_core.ir.enums import FunctionType
from pypto_core.language.api import parse as parse_text
from pypto_plugins.pass_split.tests.pipeline_checks import compile_and_compare

BACKENDS = ("Ascend910B", "Ascend950")
HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n"

_MATMUL = '''        am = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [32, 64], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        v = pl.move(acc, target_memory=pl.Mem.Vec)
'''
_KERNEL = ('''    @pl.function(type=pl.FunctionType.InCore)
    def k(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
          out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
''' + _MATMUL)
_MAIN = '''    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[32, 32], pl.FP16], y: pl.Tensor[[32, 64], pl.FP16],
             o: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        o = self.k(n, x, y, o)
        return o
'''

ONLY_RETURN_IN_A_BRANCH = HEAD + _KERNEL + '''        s = pl.store(v, [0, 0], out)
        if n < 100:
            return out
''' + _MAIN

RETURN_IN_BOTH_BRANCHES_AFTER_THE_LAST_USE = HEAD + _KERNEL + '''        if n < 4:
            s = pl.store(pl.exp(v), [0, 0], out)
            return s
        else:
            s2 = pl.store(v, [0, 0], out)
            return s2
''' + _MAIN

EARLY_RETURN_THEN_FALL_THROUGH = HEAD + _KERNEL + '''        if n < 4:
            s = pl.store(pl.neg(v), [0, 0], out)
            return s
        s3 = pl.store(pl.exp(v), [0, 0], out)
        return s3
''' + _MAIN

NESTED_IFS = HEAD + _KERNEL + '''        if n < 8:
            if n < 4:
                s = pl.store(pl.neg(v), [0, 0], out)
                return s
        s3 = pl.store(v, [0, 0], out)
        return s3
''' + _MAIN

VECTOR_KERNEL_RETURNING_IN_BRANCHES = HEAD + '''    @pl.function(type=pl.FunctionType.InCore)
    def k(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],
          out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        t = pl.cast(pl.load(b, [0, 0], [32, 64]), pl.FP32)
        if n < 4:
            s = pl.store(pl.exp(t), [0, 0], out)
            return s
        else:
            s2 = pl.store(pl.neg(t), [0, 0], out)
            return s2
''' + _MAIN

PROGRAMS = {"only-return-in-a-branch": ONLY_RETURN_IN_A_BRANCH,
            "return-in-both-branches": RETURN_IN_BOTH_BRANCHES_AFTER_THE_LAST_USE,
            "early-return-then-fall-through": EARLY_RETURN_THEN_FALL_THROUGH,
            "nested-ifs": NESTED_IFS,
            "vector-kernel": VECTOR_KERNEL_RETURNING_IN_BRANCHES}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_returns_in_branches_compile_and_compute_the_same(name: str, backend: str) -> None:
    compile_and_compare(PROGRAMS[name], backend)


def test_the_group_returns_the_output_parameter_of_a_branch_return() -> None:
    after = compile_and_compare(ONLY_RETURN_IN_A_BRANCH, "Ascend950")
    group = next(f for f in after.functions.values() if f.func_type is FunctionType.Group)
    last = ir.flatten_to_stmts(group.body)[-1]
    assert isinstance(last, ir.ReturnStmt) and [v.name_hint for v in last.value] == [group.params[-1].name_hint]


def test_the_popped_tile_is_freed_before_each_return_of_its_last_use() -> None:
    after = compile_and_compare(RETURN_IN_BOTH_BRANCHES_AFTER_THE_LAST_USE, "Ascend950")
    aiv = next(f for f in after.functions.values() if f.func_type is FunctionType.AIV)
    text = ir.python_print(aiv, format=False)
    for branch in text.split("else:"):
        assert branch.index("tfree_to_aic") < branch.index("return"), text


def test_a_branch_returning_the_popped_tile_is_a_located_error() -> None:
    # ConvertTensorToTileOps already refuses a kernel returning a tile; ExpandMixedKernel itself, given one
    # (directly built tile code), names the return in the branch.
    src = HEAD + '''    @pl.function(type=pl.FunctionType.InCore)
    def k(self, n: pl.Scalar[pl.INDEX], a: pl.Tensor[[32, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16]) -> pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec]:
''' + _MATMUL + '''        if n < 4:
            return v
        else:
            w = pl.exp(v)
            return w
'''
    program = passes.convert_to_ssa()(parse_text(src, "returns.py"))
    with pytest.raises(ValueError, match=r"'v__ssa_v0' \(or a view of it\) leaves its block through a return") as caught:
        passes.expand_mixed_kernel()(program)
    assert caught.value.span.begin_line == 12  # type: ignore[attr-defined]
