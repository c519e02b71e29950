"""InferTileMemorySpace: the private Mat-bridge marker is stripped, inserted moves are named from the full
source name, emitted before their consumer and reused in nested blocks, call attrs naming variables follow the
moves, and a loop carry's space is forced onto its init variable (docs/passes/infer_tile_memory_space.md).
Before -> Expected compared structurally, each case also run on the reference machine."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.testing import same_results

from .helpers import BACKENDS, HEADER, function


def infer(src: str, run: bool = True) -> ir.Program:
    before = passes.convert_to_ssa()(pl.parse(HEADER + src))
    after = passes.infer_tile_memory_space()(before)
    if run:
        same_results(before, after)
    return after


def expect(after: ir.Program, src: str) -> None:
    ir.assert_structural_equal(after, passes.convert_to_ssa()(pl.parse(HEADER + src)))


def lines(program: ir.Program, name: str) -> list[str]:
    return [line.strip() for line in ir.python_print(function(program, name), format=False).splitlines()]


# -- the Mat-bridge marker ----------------------------------------------------------------------------------
MARKED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_m = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat, attrs={"__compiler_tensor_to_tile_mat_bridge": True, "keep_me": 7})
        c = pl.tile.matmul(a_m, a_m)
        out = pl.tile.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def k2(self, out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.tile.full([16, 16], dtype=pl.FP32, value=1.0, attrs={"first": 1, "__compiler_tensor_to_tile_mat_bridge": True, "last": 2})
        out = pl.tile.store(t, [0, 0], out)
        return out
'''


def test_the_mat_bridge_marker_is_stripped_from_every_call_other_attrs_kept_in_order():
    after = infer(MARKED)
    k = lines(after, "k")
    assert ("a_m__ssa_v0: pl.Tile[[16, 16], pl.BF16, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 16], "
            "[16, 16], target_memory=pl.Mem.Mat, attrs={\"keep_me\": 7})") in k, k
    k2 = lines(after, "k2")
    assert ("t__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 16], dtype=pl.FP32, value=1.0, "
            "attrs={\"first\": 1, \"last\": 2})") in k2, k2
    assert list(ir.flatten_to_stmts(function(after, "k2").body)[0].value.attrs) == ["first", "last"]


def test_the_marker_goes_even_when_nothing_is_placed():
    src = MARKED.split("    @pl.function(type=pl.FunctionType.InCore)\n    def k2")[0].replace(
        "c = pl.tile.matmul(a_m, a_m)\n        out = pl.tile.store(c, [0, 0], out)",
        "out = pl.tile.store(pl.tile.full([16, 16], dtype=pl.FP32, value=0.0), [0, 0], out)")
    after = infer(src)
    (load, *_) = ir.flatten_to_stmts(function(after, "k").body)
    assert dict(load.value.attrs) == {"keep_me": 7}


def test_the_marker_goes_from_calls_outside_incore_functions():
    src = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        out = pl.tile.store(pl.tile.exp(t), [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        b = pl.tensor.adds(a, 1.0, attrs={"__compiler_tensor_to_tile_mat_bridge": True, "keep_me": 3})
        out = self.k(b, out)
        return out
'''
    after = infer(src)
    adds = ir.flatten_to_stmts(function(after, "main").body)[0]
    assert dict(adds.value.attrs) == {"keep_me": 3}


# -- inserted moves -----------------------------------------------------------------------------------------
NESTED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.BF16], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x_t = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        c = pl.tile.matmul(x_t, x_t)
        if n > 0:
            d = pl.tile.matmul_acc(c, x_t, x_t)
            r = pl.yield_(d)
        else:
            r = pl.yield_(c)
        out = pl.tile.store(r, [0, 0], out)
        return out
'''


def test_a_move_of_an_enclosing_block_is_reused_in_a_nested_branch():
    after = infer(NESTED)
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.BF16], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x_t = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        x_t_Left = pl.tile.move(x_t, target_memory=pl.Mem.Left)
        x_t_Right = pl.tile.move(x_t, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(x_t_Left, x_t_Right)
        if n > 0:
            d = pl.tile.matmul_acc(c, x_t_Left, x_t_Right)
            r = pl.yield_(d)
        else:
            r = pl.yield_(c)
        out = pl.tile.store(r, [0, 0], out)
        return out
''')
    k = lines(after, "k")
    assert ("x_t__ssa_v0_Left: pl.Tile[[16, 16], pl.BF16, pl.Mem.Left] = "
            "pl.tile.move(x_t__ssa_v0, target_memory=pl.Mem.Left)") in k, k
    assert ("d__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = "
            "pl.tile.matmul_acc(c__ssa_v0, x_t__ssa_v0_Left, x_t__ssa_v0_Right)") in k, k


def test_sibling_branches_each_make_their_own_moves():
    src = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.BF16], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x_t = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        if n > 0:
            c = pl.tile.matmul(x_t, x_t)
            r = pl.yield_(c)
        else:
            d = pl.tile.matmul(x_t, x_t)
            r = pl.yield_(d)
        out = pl.tile.store(r, [0, 0], out)
        return out
'''
    after = infer(src)
    k = lines(after, "k")
    names = [line.split(":")[0] for line in k if "pl.tile.move(" in line]
    assert names == ["x_t__ssa_v0_Left", "x_t__ssa_v0_Right", "x_t__ssa_v0_Left_1", "x_t__ssa_v0_Right_1"], k
    assert "c__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_t__ssa_v0_Left, x_t__ssa_v0_Right)" in k
    assert ("d__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = "
            "pl.tile.matmul(x_t__ssa_v0_Left_1, x_t__ssa_v0_Right_1)") in k


def test_moves_come_right_before_their_consumer_one_per_slot_in_argument_order():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.BF16], y: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y_t = pl.tile.load(y, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        x_t = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        e = pl.tile.full([16, 16], dtype=pl.FP32, value=1.0)
        c = pl.tile.matmul(x_t, y_t)
        f = pl.tile.add(c, e)
        out = pl.tile.store(f, [0, 0], out)
        return out
''')
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.BF16], y: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        y_t = pl.tile.load(y, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        x_t = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        e = pl.tile.full([16, 16], dtype=pl.FP32, value=1.0)
        x_t_Left = pl.tile.move(x_t, target_memory=pl.Mem.Left)
        y_t_Right = pl.tile.move(y_t, target_memory=pl.Mem.Right)
        c = pl.tile.matmul(x_t_Left, y_t_Right)
        c_Vec = pl.tile.move(c, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)
        f = pl.tile.add(c_Vec, e)
        out = pl.tile.store(f, [0, 0], out)
        return out
''')
    assert "c__ssa_v0_Vec: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(c__ssa_v0, target_memory=pl.Mem.Vec, " \
           "blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)" in lines(after, "k")


# -- attrs naming variables ---------------------------------------------------------------------------------
def test_dump_vars_follow_the_moves_of_their_operands():
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        x_t = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        y_t = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        c = pl.tile.matmul(x_t, x_t, attrs={"dump_vars": [x_t, y_t], "manual_dep_edges": [x_t, y_t]})
        out = pl.tile.store(c, [0, 0], out)
        return out
''')
    k = lines(after, "k")
    assert ("c__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(x_t__ssa_v0_Left, x_t__ssa_v0_Right, "
            "attrs={\"dump_vars\": [x_t__ssa_v0_Left, x_t__ssa_v0_Right, y_t__ssa_v0], "
            "\"manual_dep_edges\": [x_t__ssa_v0, y_t__ssa_v0]})") in k, k


def test_var_attrs_follow_a_retyped_variable():
    """A deferred load placed by the pass is a new (retyped) variable: the attrs name it, not the old one."""
    after = infer('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=None)
        u = pl.tile.exp(t, attrs={"dump_vars": [t], "manual_dep_edges": [t], "compiler_manual_dep_edges": [t], "arg_direction_overrides_vars": [t]})
        out = pl.tile.store(u, [0, 0], out)
        return out
''')
    (load, exp, _store, _ret) = ir.flatten_to_stmts(function(after, "k").body)
    assert load.var.type.memory_space is pl.Mem.Vec
    for key in ("dump_vars", "manual_dep_edges", "compiler_manual_dep_edges", "arg_direction_overrides_vars"):
        (entry,) = exp.value.attrs[key]
        assert entry is load.var, key


# -- a loop carry's space is forced onto its init variable --------------------------------------------------
# The printed form `acc0: pl.Tile[..., pl.Mem.Acc] = pl.tile.full(...)` names another space than tile.full puts
# its result in, which the parser rejects today: these tests verify the properties around the pass but leave
# the print -> parse round trip out (test_the_retyped_init_round_trips says when that changes).
def verified_only():
    from pypto_core.passes.instruments.verification import VerificationInstrument, VerificationMode

    return passes.PassContext([VerificationInstrument(VerificationMode.BEFORE_AND_AFTER)])


CARRY = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 16], pl.BF16], b: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a_m = pl.tile.load(a, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        b_m = pl.tile.load(b, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Mat)
        acc0 = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
        for i, (acc,) in pl.range(2, init_values=(acc0,)):
            acc2 = pl.tile.matmul_acc(acc, a_m, b_m)
            acc_rv = pl.yield_(acc2)
        out = pl.tile.store(acc_rv, [0, 0], out)
        return out
'''


def test_a_carry_space_retypes_its_init_variable_without_a_move():
    with verified_only():
        after = infer(CARRY)
    k = lines(after, "k")
    assert "acc0__ssa_v0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)" in k, k
    assert "for i__idx_v0, (acc,) in pl.range(2, init_values=(acc0__ssa_v0,)):" in k, k
    assert not any("pl.tile.move(acc0" in line for line in k), k
    (_a, _b, full, loop, *_) = ir.flatten_to_stmts(function(after, "k").body)
    assert full.var.type.memory_space is pl.Mem.Acc and full.value.type.memory_space is pl.Mem.Acc
    (ia,) = loop.iter_args
    assert ia.initValue is full.var and ia.type.memory_space is pl.Mem.Acc
    assert loop.return_vars[0].type.memory_space is pl.Mem.Acc


def test_a_forced_init_of_a_vector_result_is_retyped_too():
    with verified_only():
        after = infer(CARRY.replace("acc0 = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)",
                                    "z = pl.tile.full([16, 16], dtype=pl.FP32, value=0.5)\n"
                                    "        acc0 = pl.tile.adds(z, 1.0)"))
    body = ir.flatten_to_stmts(function(after, "k").body)
    adds = next(s for s in body if isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.adds")
    assert adds.var.type.memory_space is pl.Mem.Acc
    assert not any(isinstance(s, ir.AssignStmt) and s.value.op.name == "tile.move" and s.value.args[0] is adds.var
                   for s in body)


def test_an_init_that_is_a_parameter_still_gets_a_move():
    """Only a variable a call defines is retyped; a parameter's space is its caller's (a move, as before)."""
    src = CARRY.replace("b: pl.Tensor[[16, 16], pl.BF16], out", "b: pl.Tensor[[16, 16], pl.BF16], "
                        "acc0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec], out").replace(
        "        acc0 = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)\n", "")
    with verified_only():
        after = infer(src, run=False)
    k = lines(after, "k")
    assert any("pl.tile.move(acc0__ssa_v0, target_memory=pl.Mem.Acc)" in line for line in k), k


def test_the_retyped_init_round_trips():
    # the parser takes an annotation's space for an op no kwarg places (tile.full): the form a forced loop
    # init prints
    from pypto_core.language.roundtrip import roundtrip

    with verified_only():
        after = infer(CARRY, run=False)
    roundtrip(after)


@pytest.mark.parametrize("tail", ["out = pl.store(acc_rv, [0, 0], out)",
                                  "out = pl.store(pl.exp(acc_rv), [0, 0], out)"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_expand_mixed_kernel_keeps_the_acc_init_on_the_cube(backend: str, tail: str):
    from pypto_core.config import parse_config_text, resolve_config
    from pypto_core.passes.manager import PassManager

    src = HEADER + '''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.BF16], b: pl.Tensor[[16, 16], pl.BF16], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a_m = pl.load(a, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            b_m = pl.load(b, [0, 0], [16, 16], target_memory=pl.Mem.Mat)
            acc0 = pl.tile.full([16, 16], dtype=pl.FP32, value=0.0)
            for i, (acc,) in pl.range(2, init_values=(acc0,)):
                acc2 = pl.tile.matmul_acc(acc, a_m, b_m)
                acc_rv = pl.yield_(acc2)
            TAIL
        return out
'''.replace("TAIL", tail)
    loaded = parse_config_text(f'backend = "{backend}"\nverify = "check-run"\n[pipeline]\npreset = "default"\n',
                               "<carry init tests>")
    resolved = resolve_config(loaded)
    manager = PassManager(resolved.passes, backend=resolved.backend, verify="check-run")  # each pass run on the machine
    before = pl.parse(src)
    with verified_only():
        after = manager.run(before)
    same_results(before, after)
    kernels = {f.func_type: ir.python_print(f, format=False) for f in after.functions.values()
               if f.func_type in (ir.FunctionType.AIC, ir.FunctionType.AIV)}
    # A pure cube kernel is one AIC function; with the vector tail the AIV half only pops the result.
    assert ir.FunctionType.AIC in kernels and (ir.FunctionType.AIV in kernels) == ("exp" in tail), list(kernels)
    assert "pl.tile.full(" in kernels[ir.FunctionType.AIC], kernels[ir.FunctionType.AIC]
    assert "pl.tile.full(" not in kernels.get(ir.FunctionType.AIV, ""), kernels[ir.FunctionType.AIV]
    assert "tpop_from_aiv" not in kernels[ir.FunctionType.AIC]  # no V->C crossing popped into Acc
