"""Parameter directions from the registry, split attrs, cache policy, and the pass's user errors."""

from __future__ import annotations

import pytest

import pypto
import pypto.language as pl
from pypto import ir, passes

from .helpers import function, outline

HEADER = "import pypto.language as pl\n\n"


def _directions(after: ir.Program, name: str) -> dict[str, ir.ParamDirection]:
    f = function(after, name)
    return {p.name_hint.split("__")[0]: d for p, d in zip(f.params, f.param_directions)}


def test_write_only_is_out_read_and_write_is_inout_atomic_accumulate_is_inout():
    after = outline(HEADER + '''
@pl.program
class D:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], w: pl.Out[pl.Tensor[[64], pl.FP32]], rw: pl.InOut[pl.Tensor[[64], pl.FP32]], acc: pl.InOut[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0], [64])
            w = pl.store(t, [0], w)
            old = pl.load(rw, [0], [64])
            rw = pl.store(pl.add(old, t), [0], rw)
            acc = pl.store(t, [0], acc, atomic=pl.AtomicType.Add)
        return w
''')
    assert _directions(after, "main_incore_0") == {
        "a": ir.ParamDirection.In, "w": ir.ParamDirection.Out, "rw": ir.ParamDirection.InOut,
        "acc": ir.ParamDirection.InOut}


def test_reading_an_alias_of_the_written_buffer_is_a_read():
    after = outline(HEADER + '''
@pl.program
class D:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], c: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0], [32])
            c2 = pl.store(t, [0], c)
            back = pl.load(c2, [32], [32])
            c3 = pl.store(back, [32], c2)
        return c3
''')
    assert _directions(after, "main_incore_0")["c"] is ir.ParamDirection.InOut


def test_returns_follow_parameter_order_when_every_return_is_a_distinct_param():
    after = outline(HEADER + '''
@pl.program
class D:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], p: pl.Out[pl.Tensor[[64], pl.FP32]], q: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0], [64])
            u = pl.load(p, [0], [64])
            q2 = pl.store(t, [0], q)
            p2 = pl.store(u, [0], p)
        r = pl.add(q2, p2)
        return r
''')
    k = function(after, "main_incore_0")
    assert [p.name_hint for p in k.params] == ["a__ssa_v0", "p__ssa_v0", "q__ssa_v0"]
    ret = ir.flatten_to_stmts(k.body)[-1]
    # SSA order would be q2, p2; every return is a distinct Out/InOut param, so parameter order wins.
    assert [v.name_hint for v in ret.value] == ["p__ssa_v0", "q__ssa_v0"]
    main = ir.flatten_to_stmts(function(after, "main").body)
    assert [s.var.name_hint for s in main[1:3]] == ["p__ssa_v1", "q__ssa_v1"]


def test_split_attrs_follow_the_region_modes():
    def attrs_for(modes: list[str]) -> dict:
        regions = "".join(
            f"            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.{m}):\n"
            f"                t{i} = pl.load(a, [aiv_id * 32, 0], [32, 64])\n"
            f"                out = pl.store(t{i}, [aiv_id * 32, 0], out)\n" for i, m in enumerate(modes))
        after = outline(HEADER + "@pl.program\nclass S:\n    @pl.function\n"
                        "    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]])"
                        " -> pl.Tensor[[64, 64], pl.FP32]:\n"
                        "        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=4)]):\n"
                        + regions + "        return out\n")
        return dict(function(after, "main_incore_0").attrs)

    assert attrs_for(["UP_DOWN", "UP_DOWN"]) == {"slot_num": 4, "split_aiv": True, "split": 1}
    assert attrs_for(["NONE"]) == {"slot_num": 4, "split_aiv": True}
    assert attrs_for(["UP_DOWN", "LEFT_RIGHT"]) == {"slot_num": 4, "split_aiv": True}


def test_auto_split_and_regions_are_mutually_exclusive_for_ir_not_from_the_parser():
    program = passes.convert_to_ssa()(pl.parse(HEADER + '''
@pl.program
class S:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [aiv_id * 32, 0], [32, 64])
                out = pl.store(t, [aiv_id * 32, 0], out)
        return out
'''))

    class AddAutoSplit(ir.IRMutator):
        def visit_in_core_scope_stmt(self, s):
            return s.with_fields(split=ir.SplitMode.UP_DOWN)

    program = AddAutoSplit().visit_program(program)
    with pytest.raises(ValueError, match="mutually exclusive"):
        passes.outline_incore_scopes()(program)


def test_cache_policy_becomes_sorted_param_index_pairs():
    after = outline(HEADER + '''
@pl.program
class C:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(b, pl.CachePolicy.BYPASS)
            pl.set_cache_policy(a, pl.CachePolicy.BYPASS)
            t = pl.add(pl.load(a, [0], [64]), pl.load(b, [0], [64]))
            out = pl.store(t, [0], out)
        return out
''')
    assert function(after, "main_incore_0").attrs["cache_policy"] == [(0, 1), (1, 1)]


@pytest.mark.parametrize("body, message", [
    ("            pl.set_cache_policy(b, pl.CachePolicy.BYPASS)\n"
     "            out = pl.store(pl.load(a, [0], [64]), [0], out)\n",
     r"names 'b__ssa_v0', which this scope neither reads nor writes"),
    ("            pl.set_cache_policy(out, pl.CachePolicy.BYPASS)\n"
     "            out = pl.store(pl.load(a, [0], [64]), [0], out)\n",
     r"BYPASS\) on 'out__ssa_v0', which the kernel writes \(Out\)"),
])
def test_cache_policy_errors(body: str, message: str):
    with pytest.raises(ValueError, match=message):
        outline(HEADER + "@pl.program\nclass C:\n    @pl.function\n"
                "    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], "
                "out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:\n"
                "        with pl.at(level=pl.Level.CORE_GROUP):\n" + body + "        return out\n")


SHARED_SRC = HEADER + '''
@pl.program
class Raw:
    @pl.function
    def main(self, t: pl.Tensor[[128, 128], pl.FP32], c: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            x = pl.load(t, [0, 0], [128, 128])
            c = pl.store(x, [0, 0], c)
        return c
'''


@pytest.mark.unverified
def test_non_ssa_store_rebinding_gets_the_c__store_form():
    """Without ConvertToSSA the store target is live-in and its result binds `c__store`."""
    after = passes.outline_incore_scopes()(pl.parse(SHARED_SRC))
    k = function(after, "main_incore_0")
    text = ir.python_print(k)
    assert "c__store: pl.Tensor[[128, 128], pl.FP32] = pl.tile.store(x, [0, 0], c)" in text
    assert text.endswith("return c")
    assert k.param_directions == (ir.ParamDirection.In, ir.ParamDirection.Out)


@pytest.mark.unverified
def test_a_capture_rebound_by_something_other_than_a_store_asks_for_convert_to_ssa():
    src = SHARED_SRC.replace("c = pl.store(x, [0, 0], c)", "c = pl.add(c, 1.0)\n            c = pl.store(x, [0, 0], c)")
    with pytest.raises(pypto.InternalError, match="run ConvertToSSA"):
        passes.outline_incore_scopes()(pl.parse(src))
