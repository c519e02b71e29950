"""The lane lattice inside a pl.split_aiv region (pypto_core/analysis/region_lanes.py): per lane from a
splitting shard and from lane-addressed reads and their consumers, neutral generators, full-width values and
the full-width vector ops on them, lane-varying scalars, loop carries, if merges."""

from __future__ import annotations

import pypto.language as pl
from pypto import ir
from pypto_core.analysis.region_lanes import Lane, RegionLanes, has_explicit_lanes, lane_values, lane_var

KERNEL = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, c: pl.Tile[[32, 64], pl.FP32, pl.Mem.Acc], x: pl.Tensor[[32, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.UP_DOWN})
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(c)
            base = aiv_id * 16
            own = pl.tile.load(x, [base, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            whole = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            ones = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
            s = pl.tile.add(h, ones)
            w = pl.tile.exp(whole)
            for i, (acc,) in pl.range(2, init_values=(ones,)):
                nxt = pl.tile.add(acc, own)
                acc2 = pl.yield_(nxt)
            o = pl.tile.store(s, [base, 0], out)
        return o
'''


def _region_and_vars():
    func = pl.parse(KERNEL).get_function("k")
    (region,) = [s for s in ir.flatten_to_stmts(func.body) if isinstance(s, ir.SplitAivScopeStmt)]
    defined = {}
    for s in ir.flatten_to_stmts(region.body):
        if isinstance(s, ir.AssignStmt):
            defined[s.var.name_hint] = s.var
        elif isinstance(s, ir.ForStmt):
            defined["acc"] = s.iter_args[0]
            defined["acc2"] = s.return_vars[0]
    return region, defined


def test_the_lattice_of_each_value():
    region, v = _region_and_vars()
    scan = RegionLanes(lane_values(region))
    scan.body(region.body)
    lanes = {name: scan.lane(var) for name, var in v.items() if name not in ("aiv_id", "base", "o")}
    assert lanes == {"h": Lane.PER_LANE, "own": Lane.PER_LANE, "whole": Lane.FULL_WIDTH, "ones": Lane.NEUTRAL,
                     "s": Lane.PER_LANE, "w": Lane.FULL_WIDTH, "acc": Lane.PER_LANE, "acc2": Lane.PER_LANE}
    # A carry that starts neutral and is given a per-lane value back is per lane, and so is its exit.
    # The whole-tile read and the exp of it are vector work the lanes would each do whole.
    assert [name for name, _ in scan.full_width] == ["tile.load", "tile.exp"]
    assert scan.carry_mismatches == []


def test_the_lane_varying_scalars_are_the_lane_index_and_what_is_computed_from_it():
    region, v = _region_and_vars()
    assert lane_var(region) is v["aiv_id"]
    assert lane_values(region) == frozenset({id(v["aiv_id"]), id(v["base"])})
    assert has_explicit_lanes(region)


STEERED = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.NONE})
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            for i, (row,) in pl.range(aiv_id, 4, 2, init_values=(0,)):
                t = pl.tile.load(x, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
                nxt = row + 16
                row2 = pl.yield_(nxt)
            whole = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            o = pl.tile.store(whole, [0, 0], out)
        return o
'''


def test_a_loop_variable_bounded_by_the_lane_index_varies_by_lane_and_addresses_per_lane_reads():
    func = pl.parse(STEERED).get_function("k")
    (region,) = [s for s in ir.flatten_to_stmts(func.body) if isinstance(s, ir.SplitAivScopeStmt)]
    (loop,) = [s for s in ir.flatten_to_stmts(region.body) if isinstance(s, ir.ForStmt)]
    lanes = lane_values(region)
    # The loop variable's iterations differ between the lanes, and so does the loop's result (the lanes run
    # their own trip counts). The carry inside the body counts iterations from 0 alike on both lanes.
    assert id(loop.loop_var) in lanes
    assert id(loop.return_vars[0]) in lanes
    assert id(loop.iter_args[0]) not in lanes
    scan = RegionLanes(lanes)
    scan.body(region.body)
    (t,) = [s.var for s in ir.flatten_to_stmts(loop.body) if isinstance(s, ir.AssignStmt) and s.var.name_hint == "t"]
    (whole,) = [s.var for s in ir.flatten_to_stmts(region.body)
                if isinstance(s, ir.AssignStmt) and s.var.name_hint == "whole"]
    assert scan.lane(t) is Lane.PER_LANE
    assert scan.lane(whole) is Lane.FULL_WIDTH
    assert has_explicit_lanes(region)
