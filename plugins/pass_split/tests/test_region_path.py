"""LowerAutoVectorSplit's region path (docs/passes/lower_auto_vector_split.md): each `pl.split_aiv` region lowered in place by its body form,
every accepted program run before and after on the reference machine (two lanes), rejections by message."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

from .helpers import HEADER, function, lavs, parse


def outline_then_lavs(src: str, run: bool = True) -> ir.Program:
    """A region program written the way users write it: parsed, SSA, tile lowering, then the pass."""
    from pypto_core.testing import same_results

    program = pl.parse(HEADER + src)
    lowered = program
    for name in ("convert_to_ssa", "normalize_stmt_structure", "outline_incore_scopes", "convert_tensor_to_tile_ops",
                 "flatten_tile_nd_to_2d", "infer_tile_memory_space", "lower_auto_vector_split"):
        lowered = getattr(passes, name)()(lowered)
    if run:
        same_results(program, lowered)
    return lowered


def regions(func: ir.Function) -> list[ir.SplitAivScopeStmt]:
    found: list[ir.SplitAivScopeStmt] = []

    class Walk(ir.IRVisitor):
        def visit_split_aiv_scope_stmt(self, s):
            found.append(s)
            super().visit_split_aiv_scope_stmt(s)

    Walk().visit_stmt(func.body)
    return found


def region_ops(region: ir.SplitAivScopeStmt) -> list[str]:
    return [s.value.op.name for s in ir.flatten_to_stmts(region.body)
            if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)]


def shape(stmt) -> list[int]:
    return [d.value for d in stmt.var.type.shape]


FULL_WIDTH = '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.MODE):
                t = pl.load(a, [0, 0], [128, 64])
                out = pl.store(pl.exp(t), [0, 0], out)
        return out
'''


def test_a_full_width_region_is_halved_in_place_with_a_subblock_idx_of_its_own():
    after = outline_then_lavs(FULL_WIDTH.replace("MODE", "UP_DOWN"))
    k = function(after, "k")
    (region,) = regions(k)
    stmts = ir.flatten_to_stmts(region.body)
    assert region_ops(region) == ["tile.get_subblock_idx", "tile.get_subblock_idx", "tile.load", "tile.store"]
    assert stmts[1].var.name_hint == "subblock_idx"
    assert shape(stmts[2]) == [64, 64]
    assert ir.python_print(stmts[2].value.args[1]) == "[0 + subblock_idx * 64, 0]"
    assert ir.python_print(stmts[3].value.args[1]) == "[0 + subblock_idx * 64, 0]"
    assert k.attrs["split_aiv"] is True
    assert PropertyVerifierRegistry.verify(["AivSplitLoweredValid"], after) == []


def test_a_full_width_left_right_region_halves_columns():
    after = outline_then_lavs(FULL_WIDTH.replace("MODE", "LEFT_RIGHT"))
    (region,) = regions(function(after, "k"))
    load = ir.flatten_to_stmts(region.body)[2]
    assert shape(load) == [128, 32] and ir.python_print(load.value.args[1]) == "[0, 0 + subblock_idx * 32]"


def test_loads_before_a_full_width_region_are_made_again_per_lane_and_its_result_stores_move_inside():
    after = outline_then_lavs('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.exp(a)
        z = pl.add(y, 1.0)
        return z
''')
    k = function(after, "k")
    top = ir.flatten_to_stmts(k.body)
    assert not any(isinstance(s, ir.AssignStmt) for s in top), "the full-width load outside the region is gone"
    (region,) = regions(k)
    assert region_ops(region) == ["tile.get_subblock_idx", "tile.get_subblock_idx", "tile.load", "tile.exp",
                                  "tile.store"]


def test_a_task_parallel_none_region_passes_through_untouched():
    src = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True})
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            t = pl.load(a, [aiv_id * 32, 0], [32, 64])
            o = pl.store(pl.exp(t), [aiv_id * 32, 0], out)
        return o
'''
    before = parse(src)
    assert passes.lower_auto_vector_split()(before) is before


EXPLICIT = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, c: pl.Tile[[ROWS, 64], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[VALID, 64])], out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]) -> pl.Tensor[[ROWS, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(c)
            BODY
        return o
'''


def _explicit(rows: int, valid: str, body: str) -> str:
    return EXPLICIT.replace("ROWS", str(rows)).replace("VALID", valid).replace("BODY", body)


def test_an_explicit_boundary_region_is_passed_through_when_every_vector_op_is_per_lane():
    src = _explicit(32, "32", "e = pl.tile.exp(h)\n            o = pl.store(e, [aiv_id * 16, 0], out)")
    before = parse(src)
    after = lavs(src)
    ir.assert_structural_equal(after, before)


def _ragged_rows_stored(after: ir.Program, valid: int) -> None:
    """The lowered program stores exactly the valid rows of exp(c) (the program before the pass types the
    shard with the type rule's ceil guess for both lanes, which the pass corrects: no before/after match)."""
    import numpy as np

    from pypto_core.interp import make_inputs, run_program

    inputs = make_inputs(function(after, "k"), seed=3)
    got = run_program(after, inputs, "k")["out"]
    np.testing.assert_allclose(got[:valid], np.exp(inputs["c"][:valid]), rtol=1e-5)


def test_a_ragged_explicit_shard_carries_the_lane_extent_into_the_consumers_that_keep_it():
    after = lavs(_explicit(16, "13", "e = pl.tile.exp(h)\n            o = pl.store(e, [aiv_id * 8, 0], out)"),
                 run=False)
    (region,) = regions(function(after, "k"))
    stmts = ir.flatten_to_stmts(region.body)
    want = "pl.min(pl.max(13, aiv_id * 8) - aiv_id * 8, 8)"
    assert ir.python_print(stmts[1].var.type.tile_view.valid_shape[0]) == want
    assert ir.python_print(stmts[2].var.type.tile_view.valid_shape[0]) == want
    _ragged_rows_stored(after, 13)


def test_an_explicit_shard_whose_lane_can_be_empty_guards_its_store():
    after = lavs(_explicit(16, "5", "e = pl.tile.exp(h)\n            o = pl.store(e, [aiv_id * 8, 0], out)"),
                 run=False)
    (region,) = regions(function(after, "k"))
    guard = ir.flatten_to_stmts(region.body)[-1]
    assert isinstance(guard, ir.IfStmt) and ir.python_print(guard.condition).endswith("> 0")
    _ragged_rows_stored(after, 5)



def test_an_explicit_shard_whose_lane_can_be_empty_guards_a_store_written_as_a_statement():
    # A store from a lane that may be empty is guarded however it is written, not only when bound to a name
    # (docs/passes/lower_auto_vector_split.md, lane extents).
    after = lavs(_explicit(16, "5", "e = pl.tile.exp(h)\n            pl.tile.store(e, [aiv_id * 8, 0], out)").replace(
        "return o", "return out"), run=False)
    (region,) = regions(function(after, "k"))
    guard = ir.flatten_to_stmts(region.body)[-1]
    assert isinstance(guard, ir.IfStmt) and ir.python_print(guard.condition).endswith("> 0")
    _ragged_rows_stored(after, 5)



RUNTIME_ROWS = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, c0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})
        c = pl.tile.set_validshape(c0, n, 64)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(c)
            BODY
        return o
'''


@pytest.mark.parametrize("body, stored", [
    ("e = pl.tile.exp(h)\n            o = pl.store(e, [aiv_id * 8, 0], out)", "exp"),
    ("o = pl.store(h, [aiv_id * 8, 0], out)", "shard"),
], ids=["through-a-consumer", "stored-straight"])
def test_an_explicit_shard_of_runtime_rows_gives_each_lane_its_extent(body: str, stored: str):
    # docs/passes/lower_auto_vector_split.md, lane extents: the shard keeps the whole box, the first consumer carries the lane's
    # extent (recorded on the shard call only, the extent would never reach a consumer).
    import numpy as np

    from pypto_core.interp import make_inputs, run_program

    after = lavs(RUNTIME_ROWS.replace("BODY", body), run=False)
    (region,) = regions(function(after, "k"))
    lane = "pl.min(pl.max(n, aiv_id * 8) - aiv_id * 8, 8)"
    carrier = next(s for s in ir.flatten_to_stmts(region.body)
                   if isinstance(s, ir.AssignStmt) and s.var.name_hint == ("e" if stored == "exp" else "h_lane"))
    assert ir.python_print(carrier.var.type.valid_shape[0]) == lane, ir.python_print(after)
    for n in (16, 13, 8, 5, 1):
        inputs = make_inputs(function(after, "k"), seed=4)
        inputs["n"] = n
        inputs["out"] = np.full((16, 64), 7.0, np.float32)
        got = run_program(after, inputs, "k")["out"]
        want = inputs["c0"] if stored == "shard" else np.exp(inputs["c0"])
        np.testing.assert_allclose(got[:n], want[:n], rtol=1e-5, err_msg=f"n = {n}")
        assert (got[n:] == 7.0).all(), f"n = {n}: rows past the valid ones were stored"


def test_a_consumer_changing_the_rectangle_of_a_ragged_explicit_shard_is_rejected():
    with pytest.raises(ValueError, match=r"tile.slice changes the logical rectangle of the ragged shard 'h'"):
        lavs(_explicit(16, "13", "e = pl.tile.slice(h, [4, 64], [0, 0])\n"
                                 "            o = pl.store(e, [aiv_id * 8, 0], out)"), run=False)


def test_an_explicit_region_mixing_full_width_vector_ops_lists_them():
    with pytest.raises(ValueError, match=r"mixes explicit per-lane work .* with full-width vector ops: tile.add\. "):
        lavs(_explicit(32, "32", "z = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)\n"
                                 "            w = pl.tile.add(z, z)\n"
                                 "            e = pl.tile.add(h, w)\n"
                                 "            o = pl.store(e, [aiv_id * 16, 0], out)"), run=False)


def test_a_generator_is_accepted_for_itself_only():
    with pytest.raises(ValueError, match=r"full-width vector ops: tile.add"):
        lavs(_explicit(32, "32", "z = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)\n"
                                 "            y = pl.tile.add(z, z)\n"
                                 "            o = pl.store(h, [aiv_id * 16, 0], out)"), run=False)


def test_a_lane_reference_outside_a_read_address_does_not_make_an_op_per_lane():
    with pytest.raises(ValueError, match=r"full-width vector ops: tile.set_validshape"):
        lavs(_explicit(32, "32", "z = pl.tile.create([32, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                                 "            w = pl.tile.set_validshape(z, 1, aiv_id * 16)\n"
                                 "            o = pl.store(h, [aiv_id * 16, 0], out)"), run=False)


def test_a_carry_mismatch_in_an_explicit_region_is_reported_before_full_width_ops():
    with pytest.raises(ValueError, match=r"the loop carries 'acc\w*' start per lane .* yields a full-width value"):
        lavs(_explicit(32, "32", "z = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                                 "            w = pl.tile.exp(z)\n"
                                 "            for i, (acc,) in pl.range(2, init_values=(h,)):\n"
                                 "                acc_rv = pl.yield_(z)\n"
                                 "            o = pl.store(acc_rv, [aiv_id * 16, 0], out)"), run=False)


def test_a_transpose_swapping_the_split_axis_in_a_full_width_region_is_rejected():
    with pytest.raises(ValueError, match=r"tile.transpose swaps the split axis \(dim 0 of the UP_DOWN split\)"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.load(a, [0, 0], [64, 64])
            u = pl.tile.transpose(t, 0, 1)
            o = pl.store(u, [0, 0], out)
        return o
''', run=False)


def test_regions_nested_in_loops_and_ifs_are_lowered_and_siblings_get_distinct_lane_names():
    after = outline_then_lavs('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
             out2: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        # Each region writes its own output: the lanes do not wait for each other between regions.
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            for i in pl.range(2):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    t = pl.load(a, [0, 0], [64, 64])
                    out = pl.store(pl.mul(t, 2.0), [0, 0], out)
            if n > 1:
                for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                    u = pl.load(a, [0, 0], [64, 64])
                    out2 = pl.store(pl.exp(u), [0, 0], out2)
        return out
''')
    found = regions(function(after, "k"))
    assert len(found) == 2
    names = [ir.flatten_to_stmts(r.body)[1].var.name_hint for r in found]
    assert names == ["subblock_idx", "subblock_idx_1"]
    assert shape(ir.flatten_to_stmts(found[0].body)[2]) == [32, 64]
    assert shape(ir.flatten_to_stmts(found[1].body)[2]) == [64, 32]


def test_a_region_behind_a_scope_that_was_not_outlined_is_rejected_at_the_region():
    with pytest.raises(ValueError, match=r"this pl.split_aiv region is nested inside a scope \(InCoreScopeStmt\).*"
                                         r"delete the extra scope, or write the function as a plain @pl.function"):
        lavs('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True})
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                t = pl.load(a, [aiv_id * 32, 0], [32, 64])
                o = pl.store(pl.exp(t), [aiv_id * 32, 0], out)
        return o
''', run=False)


def test_a_region_in_a_kernel_declared_incore_without_split_aiv_is_rejected_before_the_pass():
    program = parse('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            t = pl.load(a, [aiv_id * 32, 0], [32, 64])
            o = pl.store(pl.exp(t), [aiv_id * 32, 0], out)
        return o
''')
    diags = PropertyVerifierRegistry.verify(["AivSplitValid"], program)
    assert diags and "CORE_GROUP-level region" in diags[0].message


def test_the_region_and_auto_paths_both_produce_aiv_split_lowered_valid():
    for program in (lavs(FULL_WIDTH_INCORE), lavs(_explicit(32, "32", "o = pl.store(h, [aiv_id * 16, 0], out)"))):
        assert PropertyVerifierRegistry.verify(["AivSplitLoweredValid"], program) == []


FULL_WIDTH_INCORE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.load(a, [0, 0], [64, 64])
            o = pl.store(pl.exp(t), [0, 0], out)
        return o
'''


# -- a value halved by one full-width region, used by the next -------------------------------------------------

CHAINED = '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.exp(a)
            for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.SECOND):
                BODY
        return out
'''


def _chained(second: str = "UP_DOWN", body: str = "z = pl.add(y, b)\n                out = pl.assemble(out, z, [0, 0])") -> str:
    return CHAINED.replace("SECOND", second).replace("BODY", body)


def test_a_half_computed_by_one_full_width_region_is_what_the_next_region_of_the_same_split_uses():
    after = outline_then_lavs(_chained())
    first, second = regions(function(after, "k"))
    (y,) = [s for s in ir.flatten_to_stmts(first.body) if isinstance(s, ir.AssignStmt)
            and isinstance(s.value, ir.Call) and s.value.op.name == "tile.exp"]
    assert shape(y) == [16, 64]
    (add,) = [s for s in ir.flatten_to_stmts(second.body) if isinstance(s, ir.AssignStmt)
              and isinstance(s.value, ir.Call) and s.value.op.name == "tile.add"]
    assert add.value.args[0] is y.var and shape(add) == [16, 64]  # each lane adds its own half of y
    assert "tile.exp" not in region_ops(second)  # not computed again


def test_a_half_used_by_a_later_region_written_per_lane_is_a_located_error():
    # That region is passed through as written: its offsets are the author's, for the whole value.
    with pytest.raises(ValueError, match=r"'y' is halved by the UP_DOWN pl.split_aiv region at line 10 and used by "
                                         r"this region at line 12, which is written per lane .* write this region "
                                         r"full width \(no aiv_id addressing\)"):
        outline_then_lavs(_chained(body="t = pl.slice(b, [16, 64], [aiv_id2 * 16, 0])\n"
                                        "                out = pl.assemble(out, t, [aiv_id2 * 16, 0])\n"
                                        "                out = pl.assemble(out, y, [0, 0])"), run=False)


@pytest.mark.parametrize("second, why", [("LEFT_RIGHT", r"which splits dim 1, so neither lane holds the part"),
                                         ("NONE", r"where each AIV lane runs the whole body and needs the whole tile")])
def test_a_half_used_by_a_region_of_another_split_is_a_located_error_naming_it(second: str, why: str):
    with pytest.raises(ValueError, match=rf"'y' is halved by the UP_DOWN pl.split_aiv region at line 10 .* used by "
                                         rf"this {second} region at line 12, {why}.*give both regions the same mode "
                                         rf"\(pl.SplitMode.UP_DOWN\), or compute 'y' inside the region that uses it"
                                         ) as info:
        outline_then_lavs(_chained(second), run=False)
    assert "12 |" in str(info.value)  # the source line of the region that uses it, with a caret


def test_a_half_used_outside_every_region_is_a_located_error():
    # The store depends on the NONE region's store into `out`, so it cannot move into the first region.
    with pytest.raises(ValueError, match=r"'y' is halved by the UP_DOWN pl.split_aiv region at line 10 .* used here, "
                                         r"outside every region.* or store it inside the region that computes it"):
        outline_then_lavs(_chained("NONE", "out = pl.assemble(out, pl.exp(b), [0, 0])\n"
                                           "            out = pl.assemble(out, y, [0, 0])"), run=False)


# -- a per-lane loop carry that starts from a generator ---------------------------------------------------------

LANE_ACC = '''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[128, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                init = pl.tile.full([16, 32], dtype=pl.FP32, value=0.0)
                for i, (acc,) in pl.range(4, init_values=(init,)):
                    blk = pl.load(x, [ROWS, 0], [16, 32])
                    nxt = pl.tile.add(acc, blk)
                    acc_out = pl.yield_(nxt)
                out = pl.store(acc_out, [aiv_id * 16, 0], out)
        return out
'''


def test_a_carry_starting_from_a_generator_and_accumulating_per_lane_values_is_per_lane():
    after = outline_then_lavs(LANE_ACC.replace("ROWS", "i * 32 + aiv_id * 16"))
    (region,) = regions(function(after, "k"))
    assert "tile.get_subblock_idx" not in region_ops(region)[1:]  # passed through, not halved
    loop = next(s for s in ir.flatten_to_stmts(region.body) if isinstance(s, ir.ForStmt))
    (blk,) = [s for s in ir.flatten_to_stmts(loop.body) if isinstance(s, ir.AssignStmt)
              and isinstance(s.value, ir.Call) and s.value.op.name == "tile.load"]
    assert shape(blk) == [16, 32]  # the lane's block, as written


def test_a_carry_given_back_a_full_width_value_is_named_with_where_it_starts():
    with pytest.raises(ValueError, match=r"full-width vector ops: tile\.load, tile\.add, tile\.store\. Full-width "
                                         r"values they take: loop carry 'acc' \(starts from 'init' = tile\.full, a "
                                         r"generator that is per lane for itself only; given back 'nxt' = tile\.add, "
                                         r"full width\); 'blk' = tile\.load, whose read address does not use aiv_id"):
        # `lane` keeps the region per lane; the block it accumulates is the same for both lanes.
        outline_then_lavs(LANE_ACC.replace("blk = pl.load(x, [ROWS, 0], [16, 32])",
                                           "lane = pl.load(x, [aiv_id * 16, 0], [16, 32])\n"
                                           "                    blk = pl.load(x, [i * 32, 0], [16, 32])"), run=False)


# -- a lane index placing full-width work (AivSplitValid accepts it, as PyPTO's does) ----------------------

LANE_PLACED_STORE = '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]) -> pl.Tensor[[128, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.MODE):
                t = pl.load(a, [0, 0], [64, 64])
                out = pl.store(pl.exp(t), OFFSETS, out)
        return out
'''


@pytest.mark.parametrize(("mode", "offsets"), [("UP_DOWN", "[aiv_id * 64, 0]"), ("LEFT_RIGHT", "[0, aiv_id * 64]"),
                                               ("UP_DOWN", "[aiv_id * 32 + 64, 64]")])
def test_a_full_width_region_whose_lane_index_places_a_store_is_a_located_error(mode: str, offsets: str):
    # As written each lane stores the whole tile at its own place; halved, each would store half of it there.
    src = LANE_PLACED_STORE.replace("MODE", mode).replace("OFFSETS", offsets)
    assert PropertyVerifierRegistry.verify(["AivSplitValid"], pl.parse(HEADER + src)) == []
    with pytest.raises(ValueError, match=rf"LowerAutoVectorSplit: InCore function 'k': tile.store uses the lane index "
                                         rf"\('aiv_id'\) of this {mode} pl.split_aiv region, whose reads are not "
                                         r"addressed by it") as caught:
        outline_then_lavs(src, run=False)
    assert caught.value.span.begin_line == 11  # type: ignore[attr-defined]


def test_a_lane_placed_store_of_per_lane_reads_is_lowered_as_written():
    # The near miss: reads addressed by aiv_id make the body per lane, and the store keeps its lane offset.
    after = outline_then_lavs(LANE_PLACED_STORE.replace("MODE", "UP_DOWN").replace("OFFSETS", "[aiv_id * 32, 0]")
                              .replace("pl.load(a, [0, 0], [64, 64])", "pl.load(a, [aiv_id * 32, 0], [32, 64])"))
    (region,) = regions(function(after, "k"))
    assert region_ops(region) == ["tile.get_subblock_idx", "tile.load", "tile.store"]
