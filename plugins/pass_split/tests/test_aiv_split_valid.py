"""AivSplitValid (checks (a)-(h): docs/dsl.md, splitting vector work; the contract outside the regions and checks
(i)-(l): docs/passes/lower_auto_vector_split.md).

Each check has a program that breaks it (its message matched) and a near miss that must verify clean.
The kernels are written at tile level, where memory spaces decide each op's core.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.passes.verifier_registry import DiagnosticSeverity, PropertyVerifierRegistry

ROOT = Path(__file__).resolve().parents[3]

KERNEL = '''import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[128, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
          out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
{attrs}{body}
        return out
'''
SPLIT_AIV = '        pl.func_attr({"split_aiv": True})\n'

# The cube half of every mixed kernel below: acc (Acc) = a @ b.
CUBE = """
        am = pl.tile.load(a, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        bm = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        al = pl.tile.move(am, target_memory=pl.Mem.Left)
        br = pl.tile.move(bm, target_memory=pl.Mem.Right)
        acc = pl.tile.matmul(al, br)"""


def kernel(body: str, attrs: str = SPLIT_AIV) -> ir.Program:
    """The InCore kernel `k` with `body` (dedented) before its `return out`."""
    return pl.parse(KERNEL.format(attrs=attrs, body=textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)))


def messages(program: object) -> list[str]:
    diags = PropertyVerifierRegistry.verify(["AivSplitValid"], program)
    assert all(d.rule_name == "AivSplitValid" and d.severity is DiagnosticSeverity.Error for d in diags)
    return [d.message for d in diags]


def assert_reports(program: object, pattern: str) -> str:
    found = messages(program)
    hits = [m for m in found if re.search(pattern, m, re.S)]
    assert hits, f"no message matches {pattern!r}: {found}"
    assert all("function 'k'" in m for m in hits)
    return hits[0]


def assert_clean(program: object) -> None:
    assert messages(program) == []


# -- (a) no cube op in a region --------------------------------------------------------------------------------

def test_a_cube_op_in_a_data_parallel_region():
    program = kernel(CUBE.replace("        acc = pl.tile.matmul(al, br)", "") + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            acc = pl.tile.matmul(al, br)
    """)
    assert_reports(program, r"cube op tile\.matmul inside a pl\.split_aiv region: the region body is AIV work"
                            r".*half the tile")


def test_a_cube_op_in_a_none_region_does_not_mention_halves():
    message = assert_reports(kernel("""
        am = pl.tile.load(a, [0, 0], [128, 64], target_memory=pl.Mem.Mat)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            al = pl.tile.move(am, target_memory=pl.Mem.Left)
    """), r"cube op tile\.move .*region body is AIV work")
    assert "half the tile" not in message


def test_a_near_miss_cube_work_before_the_region():
    assert_clean(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            half = pl.tile.aiv_shard(acc)
            out = pl.tile.store(pl.tile.exp(half), [aiv_id * 64, 0], out)
    """))


# -- (b) no reduction over the split axis ------------------------------------------------------------------------

@pytest.mark.parametrize("mode, op, axis", [("UP_DOWN", "col_sum", 0), ("LEFT_RIGHT", "row_sum", 1)])
def test_b_reduction_over_the_split_axis(mode: str, op: str, axis: int):
    shape = "[64, 64]" if mode == "UP_DOWN" else "[128, 32]"
    program = kernel(f"""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.{mode}):
            t = pl.tile.load(a, [0, 0], {shape})
            tmp = pl.tile.create({shape}, dtype=pl.FP32, target_memory=pl.Mem.Vec)
            r = pl.tile.{op}(t, tmp)
    """)
    assert_reports(program, rf"tile\.{op} reduces over the split axis \(dim {axis}\) of this {mode}")


@pytest.mark.parametrize("mode, op", [("UP_DOWN", "row_sum"), ("LEFT_RIGHT", "col_sum"), ("NONE", "col_sum"),
                                      ("NONE", "row_sum")])
def test_b_near_miss_reduction_along_the_other_axis_or_unsplit(mode: str, op: str):
    assert_clean(kernel(f"""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.{mode}):
            t = pl.tile.load(a, [0, 0], [64, 64])
            tmp = pl.tile.create([64, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            r = pl.tile.{op}(t, tmp)
    """))


LANE_COLS = '''import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane_cols"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.MODE):
                t = pl.load(a, [0, aiv_id * 32], [32, 32])
                tmp = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec)
                mx = pl.tile.row_max(t, tmp)
                y = pl.tile.row_expand_sub(t, mx)
                out = pl.store(y, [0, aiv_id * 32], out)
        return out
'''


def _tile_pipeline(src: str):
    from pypto_core.config import parse_config_text, resolve_config
    from pypto_core.passes.manager import PassManager

    config = resolve_config(parse_config_text('[pipeline]\npasses = ["tile", "lower_auto_vector_split"]\n', "<t>"))
    return PassManager(config.passes, backend=config.backend, verify="basic").run(pl.parse(src, "lane_cols.py"))


def test_b_is_checked_in_the_core_group_scope_of_the_program_as_written():
    # AivSplitValid checks the CORE_GROUP scopes of the program as written too: looking only at InCore functions,
    # it would first report this after OutlineIncoreScopes, blaming that pass.
    (diag,) = PropertyVerifierRegistry.verify(["AivSplitValid"], pl.parse(LANE_COLS.replace("MODE", "LEFT_RIGHT")))
    assert diag.message.startswith("the pl.at(level=pl.Level.CORE_GROUP) scope 'lane_cols' of Opaque function "
                                   "'main': tile.row_max reduces over the split axis (dim 1) of this LEFT_RIGHT")
    assert "pl.split_aiv(2, mode=pl.SplitMode.NONE)" in diag.message and diag.span.begin_line == 12


def test_b_in_the_program_as_written_is_the_input_s_fault_in_the_pipeline():
    from pypto_core.passes.manager import InputVerificationError, PassVerificationError

    with pytest.raises(InputVerificationError) as info:
        _tile_pipeline(LANE_COLS.replace("MODE", "LEFT_RIGHT"))
    assert not isinstance(info.value, PassVerificationError)
    text = str(info.value)
    assert text.startswith("the input program is not well formed") and "bug" not in text
    assert "reduces over the split axis (dim 1)" in text and "Location: lane_cols.py:12:22" in text


def test_b_near_miss_the_same_reduction_under_up_down_runs_through_the_pipeline():
    from pypto_core.testing import same_results

    src = LANE_COLS.replace("MODE", "UP_DOWN")
    same_results(pl.parse(src), _tile_pipeline(src))


# -- (c) the boundary ops belong to a region --------------------------------------------------------------------

def test_c_shard_outside_every_region():
    assert_reports(kernel(CUBE + """
        half = pl.tile.aiv_shard(acc, split=1)
    """, attrs=""), r"tile\.aiv_shard must appear inside a pl\.split_aiv region")


def test_c_gather_outside_the_region_of_a_manual_kernel():
    assert_reports(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
        g = pl.tile.aic_gather(t, split=1)
    """), r"tile\.aic_gather must appear inside a pl\.split_aiv region")


def test_c_near_miss_boundaries_in_a_none_region():
    assert_clean(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            whole = pl.tile.aiv_shard(acc)
            e = pl.tile.exp(whole)
            back = pl.tile.aic_gather(e)
    """))


def test_c_alone_for_a_shard_of_a_vec_tile_outside_every_region():
    # (d) is the region's contract: outside every region only (c) fires, once.
    found = messages(kernel("""
        t = pl.tile.load(a, [0, 0], [128, 64])
        h = pl.tile.aiv_shard(t, split=1)
    """, attrs=""))
    assert len(found) == 1 and "tile.aiv_shard must appear inside a pl.split_aiv region" in found[0], found


def test_c_alone_for_a_gather_of_an_acc_tile_outside_the_region_of_a_manual_kernel():
    found = messages(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
            out = pl.tile.store(t, [aiv_id * 64, 0], out)
        g = pl.tile.aic_gather(acc, split=1)
    """))
    assert len(found) == 1 and "tile.aic_gather must appear inside a pl.split_aiv region" in found[0], found


def test_the_flat_lowered_form_is_checked_by_neither_c_nor_d():
    # AivSplitLoweredValid: a split_aiv function without a region is the flat lowered form, whose boundary
    # ops stand in the body; a shard of a Vec parameter there is accepted.
    program = pl.parse("""import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, v: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        pl.func_attr({"split_aiv": True, "split": 1})
        h = pl.tile.aiv_shard(v, split=1)
        out = pl.tile.store(h, [0, 0], out)
        return out
""")
    assert PropertyVerifierRegistry.verify(["AivSplitLoweredValid"], program) == []
    # The same body is a misplaced boundary for the source contract: (c) only.
    found = messages(program)
    assert len(found) == 1 and "must appear inside a pl.split_aiv region" in found[0], found


# -- (d) the memory contract of the boundary ---------------------------------------------------------------------

def test_d_shard_of_a_vec_tile():
    assert_reports(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [0, 0], [128, 64])
            half = pl.tile.aiv_shard(t)
    """), r"tile\.aiv_shard operand is in Vec .*requires Acc")


def test_d_gather_of_an_acc_tile_and_a_vec_result():
    from pypto_core.ir.types import TileType
    from pypto_core.ir.utils import collect_def_vars, substitute

    program = kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            back = pl.tile.aic_gather(acc)
            again = pl.tile.aic_gather(pl.tile.exp(pl.tile.aiv_shard(acc)))
    """)
    assert_reports(program, r"tile\.aic_gather operand is in Acc .*requires Vec")
    # A result in another space than the gather's cannot be written in the DSL (the parser rejects the
    # annotation); IR a pass built could hold one.
    again = next(v for v in collect_def_vars(program) if v.name_hint == "again")
    t = again.type
    in_vec = ir.Var("again", TileType(t.shape, t.dtype, t.memref, t.tile_view, pl.Mem.Vec), again.span)
    assert_reports(substitute(program, {again: in_vec}), r"tile\.aic_gather result is in Vec .*must be Mat")


def test_d_near_miss_spaces_not_known_yet():
    # Tensor-level boundaries carry no memory space: the contract is checked once tiles have one.
    assert_clean(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            half = pl.tensor.aiv_shard(a)
            back = pl.tensor.aic_gather(half)
    """))


# -- (e) vector work outside every region of a manual-mode function ------------------------------------------------

def test_e_vector_op_outside_the_regions():
    assert_reports(kernel("""
        t = pl.tile.load(a, [0, 0], [128, 64])
        e = pl.tile.exp(t)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
            out = pl.tile.store(h, [aiv_id * 64, 0], out)
    """), r"vector op tile\.exp is outside every pl\.split_aiv region.*pl\.split_aiv\(2, mode=pl\.SplitMode\.NONE\)")


def test_e_vector_op_after_the_region():
    assert_reports(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
        r = pl.tile.add(h, h)
    """), r"vector op tile\.add is outside every pl\.split_aiv region")


def test_e_near_miss_loads_stores_and_stated_lanes_stay_outside():
    assert_clean(kernel("""
        t = pl.tile.load(a, [0, 0], [128, 64])
        pl.system.syncall(core_type="aiv_only")
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            e = pl.tile.exp(t)
        out = pl.tile.store(e, [0, 0], out)
    """))


def test_e_near_miss_a_function_without_regions_is_not_manual():
    assert_clean(kernel("""
        t = pl.tile.load(a, [0, 0], [128, 64])
        out = pl.tile.store(pl.tile.exp(t), [0, 0], out)
    """, attrs=""))


# -- (f) AIV -> cube crossings go through pl.aic_gather -----------------------------------------------------------

def test_f_region_value_consumed_by_the_cube():
    assert_reports(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
            e = pl.tile.exp(t)
        el = pl.tile.move(e, target_memory=pl.Mem.Left)
    """), r"'e' is computed in a pl\.split_aiv region and consumed by the cube op tile\.move .*pl\.aic_gather")


def test_f_near_miss_gathered_value_and_loaded_operand():
    assert_clean(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
            full = pl.tile.aic_gather(pl.tile.exp(t))
            bm = pl.tile.load(b, [0, 0], [64, 64], target_memory=pl.Mem.Mat)
        xl = pl.tile.move(full, target_memory=pl.Mem.Left)
        br = pl.tile.move(bm, target_memory=pl.Mem.Right)
        out = pl.tile.store(pl.tile.matmul(xl, br), [0, 0], out)
    """))


# -- (g) cube -> AIV crossings go through pl.aiv_shard -------------------------------------------------------------

def test_g_cube_value_consumed_by_a_vector_op_in_a_region():
    assert_reports(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            e = pl.tile.exp(acc)
    """), r"'acc' is produced by the cube \(tile\.matmul\) outside every pl\.split_aiv region and consumed by "
          r"the vector op tile\.exp .*pl\.aiv_shard")


def test_g_a_cross_side_move_counts_on_its_destination_side():
    assert_reports(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            v = pl.tile.move(acc, target_memory=pl.Mem.Vec)
    """), r"'acc' .*consumed by the vector op tile\.move .*pl\.aiv_shard")


def test_g_near_miss_sharded_value_and_a_loaded_full_tile():
    assert_clean(kernel(CUBE + """
        t = pl.tile.load(a, [0, 0], [128, 64])
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            whole = pl.tile.aiv_shard(acc)
            s = pl.tile.add(whole, t)
            out = pl.tile.store(s, [0, 0], out)
    """))


def test_f_g_one_report_per_consuming_call_and_value():
    found = messages(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            s = pl.tile.add(acc, acc)
    """))
    assert len(found) == 1 and "'acc' is produced by the cube (tile.matmul)" in found[0], found
    found = messages(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
            e = pl.tile.exp(t)
        m = pl.tile.matmul(e, e)
    """))
    assert len(found) == 1 and "'e' is computed in a pl.split_aiv region" in found[0], found


def test_f_g_two_values_of_one_call_are_two_reports():
    found = messages(kernel(CUBE + """
        acc2 = pl.tile.matmul(al, br)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            s = pl.tile.add(acc, acc2)
            s2 = pl.tile.mul(acc, acc)
    """))
    assert sorted(m.split("'")[3] for m in found) == ["acc", "acc", "acc2"], found


# -- (h) no region in a kernel declared InCore without split_aiv ---------------------------------------------------

def test_h_region_in_a_declared_incore_kernel():
    assert_reports(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
            out = pl.tile.store(t, [aiv_id * 64, 0], out)
    """, attrs=""), r"CORE_GROUP-level region")


def test_h_region_under_a_scope_of_a_declared_incore_kernel():
    # OutlineIncoreScopes leaves scopes of InCore functions in place.
    program = pl.parse(KERNEL.format(attrs="", body=textwrap.indent(textwrap.dedent("""
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                t = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
                out = pl.tile.store(pl.tile.exp(t), [aiv_id * 64, 0], out)
    """).strip("\n"), " " * 8)))
    assert_reports(program, r"CORE_GROUP-level region")


def test_h_near_miss_the_outliner_marks_its_kernels():
    program = pl.parse('''import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t = pl.load(a, [aiv_id * 64, 0], [64, 64])
                out = pl.store(t, [aiv_id * 64, 0], out)
        return out
''')
    outlined = passes.outline_incore_scopes()(passes.convert_to_ssa()(program))
    assert outlined.get_function("main_incore_0").attrs["split_aiv"] is True
    assert_clean(outlined)


# -- (i) a shard belongs to the region that made it ----------------------------------------------------------------

def test_i_shard_used_in_a_sibling_region():
    message = assert_reports(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            half = pl.tile.aiv_shard(acc)
            out = pl.tile.store(pl.tile.exp(half), [aiv_id * 64, 0], out)
        for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            r = pl.tile.relu(half)
    """), r"'half' is the pl\.aiv_shard result of another pl\.split_aiv region \(line \d+\)")
    assert "belongs to the region that made it" in message and "pl.aiv_shard(acc)" in message


def test_i_near_miss_each_region_shards_its_own_half():
    assert_clean(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            half = pl.tile.aiv_shard(acc)
            out = pl.tile.store(pl.tile.exp(half), [aiv_id * 64, 0], out)
        for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            half2 = pl.tile.aiv_shard(acc)
            r = pl.tile.relu(half2)
    """))


def test_i_near_miss_one_name_sharded_again_in_each_region():
    # Before ConvertToSSA both assignments bind the same variable: each use sees the definition reaching it.
    assert_clean(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            half = pl.tile.aiv_shard(acc)
            r = pl.tile.exp(half)
        for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            half = pl.tile.aiv_shard(acc)
            r = pl.tile.relu(half)
    """))


# -- (j) a shard does not travel through a loop carry into a region ----------------------------------------------

def test_j_shard_entering_a_region_through_an_initial_value():
    message = assert_reports(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h0 = pl.tile.aiv_shard(acc)
        for i, (h,) in pl.range(2, init_values=(h0,)):
            for aiv_id2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.tile.exp(h)
            h1 = pl.yield_(h)
    """), r"'h' carries the pl\.aiv_shard result 'h0' into a pl\.split_aiv region through a loop's initial value")
    assert "shard it with pl.aiv_shard in the region that uses it" in message


def test_j_shard_entering_a_region_around_the_back_edge():
    assert_reports(kernel(CUBE + """
        z = pl.tile.load(a, [0, 0], [64, 64])
        for i, (h,) in pl.range(2, init_values=(z,)):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                y = pl.tile.add(h, h)
                s = pl.tile.aiv_shard(acc)
            h1 = pl.yield_(s)
    """), r"'h' carries the pl\.aiv_shard result 's' .*back edge \(pl\.yield_\)")


def test_j_near_miss_a_loop_inside_the_region_that_made_the_shard():
    assert_clean(kernel(CUBE + """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            s = pl.tile.aiv_shard(acc)
            for i, (h,) in pl.range(4, init_values=(s,)):
                h2 = pl.tile.add(h, h)
                h3 = pl.yield_(h2)
            out = pl.tile.store(h3, [aiv_id * 64, 0], out)
    """))


# -- programs that must verify clean ------------------------------------------------------------------------------

def _examples() -> list[Path]:
    return sorted((ROOT / "examples").glob("*.py"))


# Region programs of the outline tests (plugins/pass_outline/tests, tests/acceptance/transforms).
OUTLINE_REGION_PROGRAMS = {
    "a3_named_scope": """
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="half_exp", optimizations=[pl.cross_core_slot(slot_num=4)]):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                base = aiv_id * 64
                t = pl.load(a, [base, 0], [64, 64])
                out = pl.store(pl.exp(t), [base, 0], out)
    """,
    "parser_wrapped_none": """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            t = pl.load(a, [aiv_id * 64, 0], [64, 64])
            out = pl.store(t, [aiv_id * 64, 0], out)
    """,
    "two_modes": """
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                t0 = pl.load(a, [aiv_id * 64, 0], [64, 64])
                out = pl.store(t0, [aiv_id * 64, 0], out)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                t1 = pl.load(a, [0, aiv_id * 32], [128, 32])
                out = pl.store(t1, [0, aiv_id * 32], out)
    """,
    "region_in_a_loop": """
        for i in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                    t = pl.load(a, [aiv_id * 64, 0], [64, 64])
                    out = pl.store(pl.add(t, t), [aiv_id * 64, 0], out)
    """,
}

OPAQUE = '''import pypto.language as pl


@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
{body}
        return out
'''


def _through_tile_passes(program: object) -> object:
    for make in (passes.convert_to_ssa, passes.normalize_stmt_structure, passes.outline_incore_scopes,
                 passes.convert_tensor_to_tile_ops, passes.flatten_tile_nd_to_2d, passes.infer_tile_memory_space):
        program = make()(program)
        assert_clean(program)
    return program


@pytest.mark.parametrize("path", _examples(), ids=lambda p: p.stem)
def test_examples_verify_clean_through_the_tile_passes(path: Path):
    _through_tile_passes(pl.parse(path.read_text(encoding="utf-8"), str(path)))


@pytest.mark.parametrize("name", sorted(OUTLINE_REGION_PROGRAMS))
def test_outline_region_programs_verify_clean(name: str):
    body = textwrap.indent(textwrap.dedent(OUTLINE_REGION_PROGRAMS[name]).strip("\n"), " " * 8)
    tiled = _through_tile_passes(pl.parse(OPAQUE.format(body=body)))
    assert any(f.attrs.get("split_aiv") for f in tiled.functions.values())


def test_the_verifier_is_registered_for_the_property():
    assert PropertyVerifierRegistry.has_verifier("AivSplitValid")


# -- no check (l): PyPTO's checks stop at (h), so a lane-addressed store verifies clean -----------------------
# A data-parallel region whose only aiv_id use is a store offset verifies clean, before and after outlining;
# LowerAutoVectorSplit rejects it (test_region_path.py): as written each lane places the whole work, halved
# each lane would place half of it.

LANE_ADDRESSED_STORE = """
    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
        t = pl.load(a, [0, 0], [128, 64])
        e = pl.exp(t)
        out = pl.store(e, [aiv_id * 64, 0], out)
"""


def test_a_lane_addressed_store_of_full_width_work_verifies_clean():
    assert_clean(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [0, 0], [64, 64])
            out = pl.tile.store(pl.tile.exp(t), [aiv_id * 64, 0], out)
    """))


@pytest.mark.parametrize("mode", ["UP_DOWN", "LEFT_RIGHT"])
def test_a_lane_addressed_store_verifies_clean_before_and_after_outlining(mode: str):
    body = textwrap.indent(textwrap.dedent(LANE_ADDRESSED_STORE.replace("UP_DOWN", mode)).strip("\n"), " " * 12)
    src = OPAQUE.format(body="        with pl.at(level=pl.Level.CORE_GROUP):\n" + body)
    program = pl.parse(src)
    assert_clean(program)
    outlined = passes.outline_incore_scopes()(passes.convert_to_ssa()(program))
    assert_clean(outlined)
    assert any(f.attrs.get("split_aiv") for f in outlined.functions.values())


def test_a_lane_addressed_read_makes_the_lanes_explicit():
    assert_clean(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [aiv_id * 64, 0], [64, 64])
            out = pl.tile.store(pl.tile.exp(t), [aiv_id * 64, 0], out)
    """))


def test_a_region_without_lane_references_splits_its_work():
    assert_clean(kernel("""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            t = pl.tile.load(a, [0, 0], [128, 64])
            out = pl.tile.store(pl.tile.exp(t), [0, 0], out)
    """))
