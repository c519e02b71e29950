"""StampTfreeSplit (docs/passes/stamp_tfree_split.md): each free gets its pop's split code and pipe id; a free
of no pop, of a pop of the other direction, or on another pipe is a located error."""

from __future__ import annotations

from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.ops.opdef import CrossCoreRole
from pypto_core.ops.registry import opdef_of
from pypto_core.testing import same_results

from .helpers import expect, parse
from .pipeline_checks import default_pipeline

ROOT = Path(__file__).resolve().parents[3]


def aiv(body: str, pop: str = "pl.tile.tpop_from_aic(split=1, id=3)") -> str:
    return f'''@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        pp: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = {pop}
        e: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(pp)
{body}
        o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return o
'''


def _role(value: ir.Expr) -> CrossCoreRole | None:
    opdef = opdef_of(value)
    return opdef.cross_core_role if opdef is not None else None


def stamp(src: str) -> ir.Program:
    return passes.stamp_tfree_split()(parse(src))


def test_the_free_takes_the_pops_split_and_id():
    expect(stamp(aiv("        pl.system.tfree_to_aic(pp)")), aiv("        pl.system.tfree_to_aic(pp, split=1, id=3)"))


@pytest.mark.parametrize("written", ["pl.system.tfree_to_aic(pp, split=2)", "pl.system.tfree_to_aic(pp, id=3, split=1)",
                                     "pl.system.tfree_to_aic(pp, split=1, id=3)"])
def test_other_kwargs_are_replaced_by_split_then_id(written: str):
    after = stamp(aiv(f"        {written}"))
    free = [s for s in ir.flatten_to_stmts(after.get_function("k").body) if isinstance(s, ir.EvalStmt)][0]
    assert list(free.expr.kwargs.items()) == [("split", 1), ("id", 3)]


def test_a_pop_without_split_or_id_gives_split_zero_and_no_id():
    src = aiv("        pl.system.tfree_to_aic(pp)", pop="pl.tile.tpop_from_aic()")
    expect(stamp(src), aiv("        pl.system.tfree_to_aic(pp, split=0)", pop="pl.tile.tpop_from_aic()"))


def test_an_id_on_the_free_alone_must_be_zero_and_is_kept():
    src = aiv("        pl.system.tfree_to_aic(pp, id=0)", pop="pl.tile.tpop_from_aic(split=2)")
    expect(stamp(src), aiv("        pl.system.tfree_to_aic(pp, split=2, id=0)", pop="pl.tile.tpop_from_aic(split=2)"))


def test_a_pop_inside_a_loop_is_traced_to_its_free():
    src = '''@pl.program
class P:
    @pl.function(type=pl.FunctionType.AIV)
    def k(self, out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        for i in pl.range(4):
            pp: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=2)
            e: pl.Tile[[32, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(pp)
            pl.system.tfree_to_aic(pp)
            o: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return out
'''
    expect(stamp(src), src.replace("tfree_to_aic(pp)", "tfree_to_aic(pp, split=2)"))


def test_a_program_already_stamped_is_returned_as_it_is():
    before = parse(aiv("        pl.system.tfree_to_aic(pp, split=1, id=3)"))
    assert passes.stamp_tfree_split()(before) is before


@pytest.mark.parametrize("free, message", [
    ("pl.system.tfree_to_aiv(pp)",
     r"system.tfree_to_aiv requires its tile argument to come from tile.tpop_from_aiv, got tile.tpop_from_aic"),
    ("pl.system.tfree_to_aic(pp, id=2)",
     r"system.tfree_to_aic pipe id 2 does not match originating tile.tpop_from_aic pipe id 3"),
    ("pl.system.tfree_to_aic(e)",
     r"system.tfree_to_aic requires its tile argument to come from a matching tile.tpop_from_aic, but no "
     r"originating tpop was found"),
])
def test_a_free_that_does_not_match_its_pop_is_a_located_error(free: str, message: str):
    with pytest.raises(ValueError, match=message) as info:
        stamp(aiv(f"        {free}"))
    assert "<string>:9:9" in str(info.value)


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
@pytest.mark.parametrize("example", ["mixed_matmul_bias.py", "split_auto.py"])
def test_after_the_default_pipeline_every_free_carries_its_pops_split_and_computes_the_same(backend, example):
    path = ROOT / "examples" / example
    before = pl.parse(path.read_text(), filename=str(path))
    split = default_pipeline(backend).run(before)
    after = passes.stamp_tfree_split()(split)
    same_results(split, after)
    frees = 0
    for func in after.functions.values():
        stmts = ir.flatten_to_stmts(func.body)
        pops = {id(s.var): s.value.kwargs.get("split", 0) for s in stmts
                if isinstance(s, ir.AssignStmt) and _role(s.value) is CrossCoreRole.POP}
        for s in stmts:
            if isinstance(s, ir.EvalStmt) and _role(s.expr) is CrossCoreRole.FREE:
                frees += 1
                assert s.expr.kwargs["split"] == pops[id(s.expr.args[0])]
    assert frees, "the compiled example frees no slot"
