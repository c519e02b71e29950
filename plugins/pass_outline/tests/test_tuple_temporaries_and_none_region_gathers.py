"""OutlineIncoreScopes on programs the program generator (tests/fuzz) wrote: two multi-result kernel calls, and
the gather of a NONE region used after the region."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.errors import UserError
from pypto_core.ir import stmt as S
from pypto_core.ir.utils import collect_def_vars
from tests.fuzz.oracle import check_text

# Two multi-result kernel calls, one in a nested scope (an if), both bound `_tuple_tmp`.
_TWO_TUPLE_CALLS = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 16], pl.FP32], n: pl.Scalar[pl.INT32],
             o1: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o2: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
             o3: pl.Out[pl.Tensor[[16, 16], pl.FP32]], o4: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
             ) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32],
                        pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            o1 = pl.assemble(o1, pl.neg(x), [0, 0])
            o2 = pl.assemble(o2, pl.abs(x), [0, 0])
        if n == 5:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
                o3 = pl.assemble(o3, pl.neg(x), [0, 0])
                o4 = pl.assemble(o4, pl.abs(x), [0, 0])
        return o1, o2, o3, o4
'''

# A NONE region's aic_gather hands each lane its own part back; used after the region.
_NONE_GATHER_USED_AFTER = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                s = pl.slice(a, [16, 32], [aiv * 16, 0])
                full = pl.aic_gather(pl.neg(s))
            c = pl.matmul(full, a)
            out = pl.assemble(out, c, [0, 0])
        return out
'''


def _outline(src: str) -> ir.Program:
    return passes.outline_incore_scopes()(passes.convert_to_ssa()(pl.parse(src)))


def test_two_multi_result_kernel_calls_pass_the_fuzz_oracle() -> None:
    assert check_text(_TWO_TUPLE_CALLS, "Ascend910B").finding is None


def test_the_tuple_temporaries_of_two_kernel_calls_have_distinct_names() -> None:
    after = _outline(_TWO_TUPLE_CALLS)
    main = after.get_function("main")
    names = [v.name_hint for v in collect_def_vars(main.body) if v.name_hint.startswith("_tuple_tmp")]
    assert names == ["_tuple_tmp", "_tuple_tmp_1"]
    text = ir.python_print(after)
    assert "_tuple_tmp_1" in text and "self.k(" in text
    ir.assert_structural_equal(after, pl.parse(text))


def test_a_none_region_gather_used_after_the_region_is_refused_by_the_machine() -> None:
    outcome = check_text(_NONE_GATHER_USED_AFTER, "Ascend910B")
    assert outcome.finding is None
    # The scope runs on both lanes as the split kernel it becomes (pypto_core/interp/stmts.py), so under check-run
    # the machine refuses the input first: the lanes store different products (the pass's own error is below).
    assert outcome.status == "input-rejected"
    assert "GM race on tensor 'out'" in outcome.detail and "write different values" in outcome.detail


def test_a_none_region_gather_used_after_the_region_is_a_located_error_naming_the_fix() -> None:
    with pytest.raises(UserError) as err:
        _outline(_NONE_GATHER_USED_AFTER)
    message = err.value.message
    assert "'full'" in message and "mode=pl.SplitMode.NONE" in message
    assert "UP_DOWN or LEFT_RIGHT" in message and "inside the region" in message
    assert err.value.span is not None and err.value.span.begin_line == 11


def test_a_splitting_gather_used_after_the_region_outlines() -> None:
    src = _NONE_GATHER_USED_AFTER.replace("NONE", "UP_DOWN")
    assert check_text(src, "Ascend910B").finding is None
    kernel = _outline(src).get_function("main_incore_0")
    assert kernel.attrs.get("split_aiv") is True
    assert any(isinstance(s, S.SplitAivScopeStmt) for s in kernel.body.stmts)


def test_a_lane_addressed_write_in_a_none_region_is_fine() -> None:
    src = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                s = pl.slice(a, [16, 32], [aiv * 16, 0])
                out = pl.assemble(out, pl.neg(s), [aiv * 16, 0])
        return out
'''
    _outline(src)  # the assemble's result is the shared destination, not a per-lane value
