"""MaterializeSemanticAliases (docs/passes/materialize_semantic_aliases.md) on InitMemRef's output: the
reference's E1 - E4 (bases read per variable, since equality ignores MemRefs), one program per retarget rule, the
PTOAS / DSA_RP yield fix-up, and every program run by address before and after."""

from __future__ import annotations

import pytest

from pypto import ir, passes

from .memref_helpers import body_lines, layout, memref, parse, printed, run_pass
from .test_init_mem_ref import kernel

PARAMS = ("a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]], "
          "out2: pl.Out[pl.Tensor[[16, 64], pl.FP32]]")
TWO_PARAMS = "a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]"


def loop(body: str, before: str = "", after: str = "", params: str = PARAMS) -> str:
    inner = "\n".join("    " + line for line in body.strip().splitlines())
    return kernel(f'''
acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
{before.strip()}
for i, (acc,) in pl.range(4, init_values=(acc0,)):
{inner}
{after.strip()}
o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc_out, [0, 0], out)
return o''', params, "pl.Tensor[[16, 64], pl.FP32]")


def materialize(src: str, planner: object = None, backend: str = "Ascend910B") -> tuple[ir.Program, ir.Program]:
    """(InitMemRef's output, this pass's output), both run against the source program."""
    source = parse(src)
    before = run_pass("init_mem_ref", source, backend)
    after = run_pass("materialize_semantic_aliases", before, backend, planner=planner)
    from pypto_core.testing import same_results

    same_results(source, after)
    return before, after


def bases(program: ir.Program) -> dict[str, str]:
    return {name: v[0] for name, v in layout(program).items()}


LOAD_X = "x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)"


def test_e1_the_accumulator_is_computed_in_the_carried_buffer():
    before, after = materialize(loop(f'''
{LOAD_X}
nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, x)
acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(nxt)''', params=TWO_PARAMS))
    assert bases(before)["nxt"] == "mem_vec_4" and bases(before)["acc"] == "mem_vec_2"
    assert bases(after)["nxt"] == "mem_vec_2" and bases(after)["x"] == "mem_vec_3"
    assert memref(after, "nxt") is memref(after, "acc0")  # the carried MemRef object itself
    changed = [line for line in body_lines(printed(after)) if line not in body_lines(printed(before))]
    assert changed == ["nxt: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), "
                       "pl.Mem.Vec] = pl.tile.add(acc, x)"]
    assert "mem_vec_4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 4096)" in printed(after)  # MemoryReuse drops it
    ir.assert_structural_equal(after, before)


IF_BODY = '''
if i == 0:
    x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
    n1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, x)
    ph: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(n1)
else:
    n2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = {else_op}
    ph: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(n2)
acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(ph)'''


def test_e2_a_carry_through_an_if_moves_both_branches_and_the_phi():
    before, after = materialize(loop(IF_BODY.format(else_op="pl.tile.muls(acc, 2.0)"), params=TWO_PARAMS))
    assert [bases(before)[n] for n in ("n1", "n2", "ph", "acc_out")] == ["mem_vec_4", "mem_vec_5", "mem_vec_4",
                                                                          "mem_vec_2"]
    assert {bases(after)[n] for n in ("n1", "n2", "ph", "acc_out")} == {"mem_vec_2"}
    assert bases(after)["x"] == "mem_vec_3"


def test_e3_a_failed_branch_keeps_the_plans_of_the_branch_that_succeeded():
    before, after = materialize(loop(IF_BODY.format(else_op="pl.tile.recip(acc)"), params=TWO_PARAMS))
    got = bases(after)
    assert got["n1"] == "mem_vec_2"  # PyPTO's partial plan
    assert got["ph"] == "mem_vec_4" and got["n2"] == "mem_vec_5"  # recip may not write over acc


E4 = loop('''
nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, w)
dbl: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 2.0)
o2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(dbl, [0, 0], out2)
acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(nxt)''',
          before="w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [16, 64], [16, 64], "
                 "target_memory=pl.Mem.Vec)")


def test_e4_declined_when_the_carry_is_read_after_the_producer():
    before, after = materialize(E4)
    assert printed(after) == printed(before)  # under PYPTO MemoryReuse inserts the copy later


def test_e4_under_ptoas_the_yield_is_copied_into_the_carried_buffer():
    before, after = materialize(E4, planner=passes.MemoryPlanner.PTOAS)
    lines = body_lines(printed(after))
    assert ("nxt_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = "
            "pl.tile.move(nxt, target_memory=pl.Mem.Vec)") in lines
    assert ("acc_out: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_3, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = "
            "pl.yield_(nxt_mv)") in lines
    assert bases(before)["nxt"] == "mem_vec_5"


def test_under_dsa_rp_an_if_yield_on_another_buffer_is_copied_into_the_then_branch_buffer():
    _, after = materialize(loop(IF_BODY.format(else_op="pl.tile.recip(acc)"), params=TWO_PARAMS),
                           planner=passes.MemoryPlanner.DSA_RP)
    lines = body_lines(printed(after))
    assert ("n2_mv: pl.Tile[[16, 64], pl.FP32, pl.MemRef(mem_vec_2, pl.const(0, pl.INT64), 4096), pl.Mem.Vec] = "
            "pl.tile.move(n2, target_memory=pl.Mem.Vec)") in lines
    assert bases(after)["ph"] == "mem_vec_2"  # the if result takes the then-yield's (n1's) MemRef
    assert not any(line.startswith("ph_mv") for line in lines)  # so the loop yield needs no copy


def test_under_dsa_rp_an_identity_copy_takes_its_source_memref():
    _, after = materialize(loop(f'''
{LOAD_X}
nxt: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, x)
cp: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = nxt
acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(cp)'''), planner=passes.MemoryPlanner.DSA_RP)
    assert memref(after, "cp") is memref(after, "nxt")


def test_an_in_place_producer_moves_its_operand_first():
    # acc2 = assemble(acc, x, ...) writes into acc: nothing to move, acc already is the carried buffer
    _, after = materialize(loop(f'''
{LOAD_X}
y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x)
z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.fillpad_inplace(y)
acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(z)'''))
    assert bases(after)["y"] == bases(after)["acc0"] and bases(after)["z"] == bases(after)["acc0"]


def test_a_relabel_of_a_load_follows_its_input_onto_the_carried_buffer():
    src = kernel('''
acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
for i, (acc,) in pl.range(4, init_values=(acc0,)):
    x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
    s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.set_validshape(x, 16, 64)
    acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(s)
o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc_out, [0, 0], out)
return o''', PARAMS, "pl.Tensor[[16, 64], pl.FP32]")
    _, after = materialize(src)
    assert memref(after, "x") is memref(after, "acc0") and memref(after, "s") is memref(after, "acc0")


def test_a_reshape_producer_is_not_retargeted():
    src = kernel('''
acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
for i, (acc,) in pl.range(4, init_values=(acc0,)):
    x: pl.Tile[[64, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, i * 16], [64, 16], [64, 16], target_memory=pl.Mem.Vec)
    s: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(x, [16, 64])
    acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(s)
o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc_out, [0, 0], out)
return o''', PARAMS, "pl.Tensor[[16, 64], pl.FP32]")
    before, after = materialize(src)
    assert printed(after) == printed(before)


def test_a_slice_producer_is_not_retargeted_but_follows_a_moved_source():
    src = kernel('''
acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=1.0)
for i, (acc,) in pl.range(4, init_values=(acc0,)):
    x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
    y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, x)
    w: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(y, [8, 64], [8, 0])
    e: pl.Tile[[8, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(w)
    o2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(e, [0, 0], out2)
    acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(y)
o: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc_out, [0, 0], out)
return o''', PARAMS, "pl.Tensor[[16, 64], pl.FP32]")
    before, after = materialize(src)
    # w reads y's buffer later: y is still retargeted (w is a view of y, not of the carried buffer) ...
    assert bases(after)["y"] == bases(after)["acc0"]
    # ... and the view follows y onto the carried buffer at its own offset
    assert layout(after)["w"] == (bases(after)["acc0"], 2048, 2048)


def test_another_target_memory_a_fixed_output_space_or_a_no_alias_operand_refuse_the_retarget():
    from pypto_plugins.pass_memory.materialize_semantic_aliases_steps.retarget import Retargeter

    from .memref_helpers import tile_vars

    before = run_pass("init_mem_ref", parse(loop(f'''
{LOAD_X}
y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc, x)
r: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.recip(acc)
acc_out: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.yield_(y)''')))
    v = tile_vars(before)
    carried, vec = memref(before, "acc"), v["acc"].type.memory_space
    fresh = Retargeter(before.get_function("k").body, None)
    assert not fresh.retarget(v["x"], carried, ir.MemorySpace.Mat)  # load with target_memory=Vec
    assert not fresh.retarget(v["y"], carried, ir.MemorySpace.Acc)  # tile.add's output is fixed to Vec
    assert not fresh.retarget(v["r"], carried, vec)  # recip may not share its operand acc's buffer
    assert not fresh.retarget(v["x"], carried, vec)  # add reads acc after x is defined (liveness)
    assert not fresh.retarget(v["y"], carried, vec)  # recip reads acc after y


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_orchestration_functions_and_functions_without_loops_are_unchanged(backend):
    before, after = materialize(kernel('''
t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
o: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(t, [0, 0], out)
return o'''), backend=backend)
    assert after is before or printed(after) == printed(before)


def test_pass_identity():
    p = passes.materialize_semantic_aliases()
    assert p.get_name() == "MaterializeSemanticAliases"
    assert {str(x) for x in p.get_required_properties()} == {"NormalizedStmtStructure", "SplitIncoreOrch",
                                                              "HasMemRefs", "IncoreTileOps", "TileOps2D"}
    assert {str(x) for x in p.get_produced_properties()} == {"NormalizedStmtStructure"}
    assert not list(p.get_invalidated_properties())
