"""The function-wide lane-dependence engine (pypto_core/analysis/lane_dependence.py): which definitions differ
between the two AIV lanes, through values, loop bounds and trip counts, carries and ifs; which control flow
the lane index steers."""

from __future__ import annotations

import pypto.language as pl
from pypto_core.analysis.lane_dependence import lane_regions, lane_sources, lane_steered, scan

KERNEL = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": pl.SplitMode.NONE})
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            same = 3 + 1
            for i, (count, dst) in pl.range(aiv_id, 3, 2, init_values=(0, out)):
                t = pl.tile.load(x, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
                more = count + 1
                d2 = pl.tile.store(t, [i * 16, 0], dst)
                count2, dst2 = pl.yield_(more, d2)
            first = aiv_id == 0
            if first:
                pl.system.syncall(core_type='aiv_only', mode='hard')
        return dst2
'''


def _facts():
    func = pl.parse(KERNEL).get_function("k")
    facts = scan(tuple(func.params), func.body)
    by_name: dict[str, list] = {}
    for d in facts.definitions:
        by_name.setdefault(d.var.name_hint, []).append(d)
    return facts, {name: ds[-1] for name, ds in by_name.items()}


def test_the_definitions_are_listed_in_program_order():
    facts, _ = _facts()
    names = [d.var.name_hint for d in facts.definitions]
    assert names.index("aiv_id") < names.index("same") < names.index("i") < names.index("t") < names.index("first")


def test_what_differs_between_the_lanes():
    _, d = _facts()
    varies = {name for name, definition in d.items() if lane_sources(definition)}
    # the loop variable (its bounds), a tile read at its offsets, the scalar carry's exit (the lanes run 2
    # and 1 iterations), the condition computed from the index
    assert {"aiv_id", "i", "t", "count2", "first"} <= varies
    # a constant; the counter inside the body (it counts from 0 alike); the GM tensor carried out (shared
    # memory: the same tensor whatever each lane wrote into it)
    assert not {"same", "count", "more", "dst2"} & varies
    assert len(lane_regions(d["first"])) == 1


def test_the_call_under_lane_steered_control_flow_names_the_innermost_steering():
    facts, _ = _facts()
    (sync,) = [site for site in facts.calls if site.call.op.name == "system.syncall"]
    steering = lane_steered(sync)
    assert steering is not None and type(steering.stmt).__name__ == "IfStmt"
    (load,) = [site for site in facts.calls if site.call.op.name == "tile.load"]
    assert type(lane_steered(load).stmt).__name__ == "ForStmt"
