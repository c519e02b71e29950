"""CanonicalizeIOOrder (docs/passes/canonicalize_io_order.md): the reference's worked example (the printed output),
stage / tier ordering, stores demoted by pipeline_overlap_stores, loops outside pipelines untouched, and every
program run before and after on the reference machine."""

from __future__ import annotations

from pypto import ir, passes

from .memref_helpers import body_lines, parse, printed, run_pass

BEFORE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a__ssa_v0: pl.Tensor[[256], pl.FP32], out__ssa_v0: pl.Out[pl.Tensor[[256], pl.FP32]]) -> pl.Tensor[[256], pl.FP32]:
        for i__idx_v0, (out__iter_v1,) in pl.pipeline(0, 4, 2, stage=1, init_values=(out__ssa_v0,){attrs}):
            t__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [i__idx_v0 * 64], [64], [64], target_memory=pl.Mem.Vec, attrs={{"pipeline_membership": "0:0"}})
            u__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0, attrs={{"pipeline_membership": "0:0"}})
            out__ssa_v3: pl.Tensor[[256], pl.FP32] = pl.tile.store(u__ssa_v0, [i__idx_v0 * 64], out__iter_v1)
            t__ssa_v0_1: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [(i__idx_v0 + 1) * 64], [64], [64], target_memory=pl.Mem.Vec, attrs={{"pipeline_membership": "0:1"}})
            u__ssa_v0_1: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0_1, attrs={{"pipeline_membership": "0:1"}})
            out__ssa_v3_1: pl.Tensor[[256], pl.FP32] = pl.tile.store(u__ssa_v0_1, [(i__idx_v0 + 1) * 64], out__ssa_v3)
            out__rv_v2: pl.Tensor[[256], pl.FP32] = pl.yield_(out__ssa_v3_1)
        return out__rv_v2
'''

EXPECTED = '''
        for i__idx_v0, (out__iter_v1,) in pl.range(0, 4, 2, init_values=(out__ssa_v0,)):
            t__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [i__idx_v0 * 64], [64], [64], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:0"})
            t__ssa_v0_1: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [(i__idx_v0 + 1) * 64], [64], [64], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:1"})
            u__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0, attrs={"pipeline_membership": "0:0"})
            out__ssa_v3: pl.Tensor[[256], pl.FP32] = pl.tile.store(u__ssa_v0, [i__idx_v0 * 64], out__iter_v1)
            u__ssa_v0_1: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t__ssa_v0_1, attrs={"pipeline_membership": "0:1"})
            out__ssa_v3_1: pl.Tensor[[256], pl.FP32] = pl.tile.store(u__ssa_v0_1, [(i__idx_v0 + 1) * 64], out__ssa_v3)
            out__rv_v2: pl.Tensor[[256], pl.FP32] = pl.yield_(out__ssa_v3_1)
'''


def test_loads_first_then_each_stage_compute_and_store_and_the_loop_becomes_sequential():
    before = parse(BEFORE.format(attrs=""))
    after = run_pass("canonicalize_io_order", before)
    assert [line for line in body_lines(printed(after)) if "pl.tile." in line or "for " in line] == \
        [line for line in body_lines(EXPECTED) if "pl.tile." in line or "for " in line]
    loop = next(s for s in ir.flatten_to_stmts(after.get_function("k").body) if isinstance(s, ir.ForStmt))
    assert loop.kind is ir.ForKind.Sequential and "pipeline_stages" not in loop.attrs


ONE_STAGE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[256], pl.FP32], out: pl.Out[pl.Tensor[[256], pl.FP32]]) -> pl.Tensor[[256], pl.FP32]:
        for i, (acc,) in pl.pipeline(0, 4, 1, stage=1, init_values=(out,){attrs}):
            t: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 64], [64], [64], target_memory=pl.Mem.Vec, attrs={{"pipeline_membership": "0:0"}})
            u: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t, attrs={{"pipeline_membership": "0:0"}})
            o: pl.Tensor[[256], pl.FP32] = pl.tile.store(u, [i * 64], acc)
            w: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.neg(t, attrs={{"pipeline_membership": "0:0"}})
            o2: pl.Tensor[[256], pl.FP32] = pl.tile.store(w, [i * 64], o)
            res: pl.Tensor[[256], pl.FP32] = pl.yield_(o2)
        return res
'''


def order(program: ir.Program) -> list[str]:
    return [line.split(":")[0] for line in body_lines(printed(program)) if "pl.tile." in line]


def test_a_stage_computes_before_it_stores_unless_stores_do_not_overlap():
    after = run_pass("canonicalize_io_order", parse(ONE_STAGE.format(attrs="")))
    assert order(after) == ["t", "u", "w", "o", "o2"]
    demoted = run_pass("canonicalize_io_order",
                       parse(ONE_STAGE.format(attrs=', attrs={"pipeline_overlap_stores": False}')))
    assert order(demoted) == ["t", "u", "o", "w", "o2"]  # a store is ordinary compute: original order


def test_scalar_arithmetic_comes_first_and_a_sequential_loop_is_left_alone():
    src = BEFORE.format(attrs="").replace(
        '            t__ssa_v0: pl.Tile',
        '            j: pl.Scalar[pl.INDEX] = i__idx_v0 * 64\n            t__ssa_v0: pl.Tile').replace(
        "pl.tile.load(a__ssa_v0, [i__idx_v0 * 64]", "pl.tile.load(a__ssa_v0, [j]")
    after = run_pass("canonicalize_io_order", parse(src))
    first = [line for line in body_lines(printed(after)) if "= pl." in line or ": pl.Scalar" in line]
    assert first[0].startswith("j: pl.Scalar[pl.INDEX]")
    sequential = parse(BEFORE.format(attrs="").replace("pl.pipeline(0, 4, 2, stage=1,", "pl.range(0, 4, 2,"))
    assert run_pass("canonicalize_io_order", sequential) is sequential


def test_pass_identity():
    p = passes.canonicalize_io_order()
    assert p.get_name() == "CanonicalizeIOOrder"
    assert "PipelineResolved" in {str(x) for x in p.get_produced_properties()}
