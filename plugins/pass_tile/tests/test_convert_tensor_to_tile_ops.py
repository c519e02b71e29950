"""ConvertTensorToTileOps: Before (a tensor-level scope) -> Expected (tile ops), compared structurally, and
the same outputs before and after on the reference machine (helpers.lower)."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.ir.enums import FunctionType
from pypto_core.passes.verifier_registry import PropertyVerifierRegistry

from .helpers import HEADER, expect, function, lower


def test_elementwise_chain_loads_a_read_only_parameter_once_at_the_top():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(x, 1.0)
            z = pl.mul(y, x)
            out = pl.assemble(out, z, [0, 0])
        return out
''')
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        x_tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        y: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(x_tile, 1.0)
        z: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(y, x_tile)
        out_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(z, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        out_2: pl.Tensor[[16, 64], pl.FP32] = self.main_incore_0(x, out)
        return out_2
''')


def test_a_parameter_the_kernel_writes_is_loaded_where_it_is_read():
    # `acc` is InOut: a load at the top could read it before an earlier store of this kernel landed.
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            u = pl.exp(x)
            t = pl.add(acc, u)
            acc = pl.assemble(acc, t, [0, 0])
        return acc
''')
    k = function(after, "main_incore_0")
    expect_body = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(x: pl.Tensor[[16, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        x_tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(x_tile)
        acc_tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(acc, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc_tile, u)
        acc_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], acc)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], acc: pl.InOut[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        acc_2: pl.Tensor[[16, 64], pl.FP32] = self.main_incore_0(x, acc)
        return acc_2
'''
    expect(after, expect_body)
    assert k.param_directions[1] is ir.ParamDirection.InOut


def test_a_slice_of_a_parameter_is_a_load_window_a_slice_of_a_tile_is_tile_slice():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            w = pl.slice(a, [16, 64], [16, 0])
            e = pl.exp(w)
            half = pl.slice(e, [16, 32], [0, 32])
            out = pl.assemble(out, half, [0, 0])
        return out
''')
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        w: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(w)
        half: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(e, [16, 32], [0, 32])
        out_1: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(half, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        out_2: pl.Tensor[[16, 32], pl.FP32] = self.main_incore_0(a, out)
        return out_2
''')


def test_returned_tiles_go_out_through_new_out_parameters_the_caller_allocates():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(x, 1.0)
            z = pl.exp(y)
        w = pl.add(z, y)
        return w
''')
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(x: pl.Tensor[[16, 64], pl.FP32], ret0__out: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
                      ret1__out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        x__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        y__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(x__tile, 1.0)
        z__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(y__tile)
        ret0__store: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(y__tile, [0, 0], ret0__out)
        ret1__store: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(z__tile, [0, 0], ret1__out)
        return ret0__store, ret1__store

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
        ret0__out: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        ret1__out: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.create([16, 64], dtype=pl.FP32)
        t: pl.Tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]] = self.main_incore_0(x, ret0__out, ret1__out)
        y: pl.Tensor[[16, 64], pl.FP32] = t[0]
        z: pl.Tensor[[16, 64], pl.FP32] = t[1]
        w: pl.Tensor[[16, 64], pl.FP32] = pl.tensor.add(z, y)
        return w
''')
    k = function(after, "main_incore_0")
    assert k.param_directions == (ir.ParamDirection.In, ir.ParamDirection.Out, ir.ParamDirection.Out)


def test_loop_carries_a_tile_accumulator_and_the_output_stays_a_tensor_carry():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.full([16, 64], dtype=pl.FP32, value=0.0)
            for i in pl.range(4):
                t = pl.slice(a, [16, 64], [i * 16, 0])
                acc = pl.add(acc, t)
                out = pl.assemble(out, acc, [i * 16, 0])
        return out
''')
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(out: pl.Out[pl.Tensor[[64, 64], pl.FP32]], a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        acc: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=0.0)
        for i, (acc_it, out_it) in pl.range(4, init_values=(acc, out)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(a, [i * 16, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            acc_2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(acc_it, t)
            out_2: pl.Tensor[[64, 64], pl.FP32] = pl.tile.store(acc_2, [i * 16, 0], out_it)
            acc_rv, out_rv = pl.yield_(acc_2, out_2)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        out_3: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_0(out, a)
        return out_3
''')


def test_a_carry_initialised_from_a_parameter_becomes_a_tile_when_the_body_yields_one():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = x
            for i in pl.range(3):
                y = pl.mul(y, 2.0)
            out = pl.assemble(out, y, [0, 0])
        return out
''')
    k = function(after, "main_incore_0")
    loops = [s for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.ForStmt)]
    assert len(loops) == 1
    (carry,) = loops[0].iter_args
    assert isinstance(carry.type, ir.TileType), "the carry holds the tile the body computes"
    assert isinstance(carry.init_value.type, ir.TileType), "its GM init is loaded before the loop"
    assert isinstance(loops[0].return_vars[0].type, ir.TileType)


def test_an_if_merge_of_a_tile_and_a_parameter_loads_the_parameter():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            if n > 2:
                y = pl.exp(x)
            else:
                y = x
            out = pl.assemble(out, y, [0, 0])
        return out
''')
    k = function(after, "main_incore_0")
    (branch,) = [s for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.IfStmt)]
    assert isinstance(branch.return_vars[0].type, ir.TileType)
    else_yield = ir.flatten_to_stmts(branch.else_body)[-1]
    assert isinstance(else_yield.value[0].type, ir.TileType), "the else branch yields the loaded parameter"


def test_matmul_with_transposed_operand_and_an_out_dtype_other_than_the_accumulator():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[32, 16], pl.FP16]]) -> pl.Tensor[[32, 16], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, b_trans=True)
            out = pl.assemble(out, c, [0, 0])
        return out
''')
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[32, 16], pl.FP16]]) -> pl.Tensor[[32, 16], pl.FP16]:
        a_mat: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Mat, attrs={"__compiler_tensor_to_tile_mat_bridge": True})
        b_mat: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(b, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat, attrs={"__compiler_tensor_to_tile_mat_bridge": True})
        b_mat_t: pl.Tile[[64, 16], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(b_mat)
        acc: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a_mat, b_mat_t)
        c: pl.Tile[[32, 16], pl.FP16, pl.Mem.Vec] = pl.tile.cast(acc, target_type=pl.FP16, mode='rint')
        out_1: pl.Tensor[[32, 16], pl.FP16] = pl.tile.store(c, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[16, 64], pl.FP16], out: pl.Out[pl.Tensor[[32, 16], pl.FP16]]) -> pl.Tensor[[32, 16], pl.FP16]:
        out_2: pl.Tensor[[32, 16], pl.FP16] = self.main_incore_0(a, b, out)
        return out_2
''')


def test_row_reductions_and_selects_get_a_scratch_tile_column_reductions_do_not():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], rows: pl.Out[pl.Tensor[[16, 1], pl.FP32]], cols: pl.Out[pl.Tensor[[1, 64], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            r = pl.row_sum(x)
            c = pl.col_max(x)
            rows = pl.assemble(rows, r, [0, 0])
            cols = pl.assemble(cols, c, [0, 0])
        return rows
''')
    k = function(after, "main_incore_0")
    calls = [s.value for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)]
    names = [c.op.name for c in calls]
    assert names[:4] == ["tile.load", "tile.create", "tile.row_sum", "tile.col_max"], names
    row_sum, col_max = calls[2], calls[3]
    # PyPTO's scratch: the operand's shape with the last dim raised to 128
    assert len(row_sum.args) == 2 and [int(d.value) for d in row_sum.args[1].type.shape] == [16, 128]
    assert row_sum.args[1].name_hint == "tmp_tile"
    assert len(col_max.args) == 1


def test_scalar_accesses_of_a_parameter_stay_and_of_a_tile_become_tile_read():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            s = pl.tensor.read(x, [0, 0])
            y = pl.mul(x, s)
            v = pl.tensor.read(y, [1, 1])
            z = pl.add(y, v)
            out = pl.assemble(out, z, [0, 0])
        return out
''')
    k = function(after, "main_incore_0")
    ops = [s.value.op.name for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)]
    assert ops == ["tile.load", "tensor.read", "tile.muls", "tile.read", "tile.adds", "tile.store"], ops
    assert not PropertyVerifierRegistry.verify(["IncoreTileOps"], after)


def test_tensor_create_becomes_a_vec_tile_create_and_init_value_a_tile_full():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            z = pl.create_tensor([16, 64], dtype=pl.FP32, init_value=2.0)
            buf = pl.create_tensor([16, 64], dtype=pl.FP32)
            buf = pl.assemble(buf, z, [0, 0])
            y = pl.mul(x, buf)
            out = pl.assemble(out, y, [0, 0])
        return out
''')
    k = function(after, "main_incore_0")
    calls = [s.value for s in ir.flatten_to_stmts(k.body) if isinstance(s, ir.AssignStmt) and isinstance(s.value, ir.Call)]
    assert [c.op.name for c in calls[:4]] == ["tile.load", "tile.full", "tile.create", "tile.assemble"]
    # in Vec, as PyPTO's tensor.create conversion
    assert calls[2].kwargs["target_memory"] is ir.MemorySpace.Vec


def test_the_cache_policy_attr_becomes_the_cache_kwarg_of_every_load_of_that_parameter():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.set_cache_policy(x, pl.CachePolicy.BYPASS)
            for i in pl.range(4):
                t = pl.slice(x, [16, 64], [i * 16, 0])
                out = pl.assemble(out, pl.exp(t), [i * 16, 0])
        return out
''')
    k = function(after, "main_incore_0")
    assert "cache_policy" not in k.attrs

    loads: list[ir.Call] = []

    class Loads(ir.IRVisitor):
        def visit_call(self, call):
            if call.op.name == "tile.load":
                loads.append(call)
            super().visit_call(call)

    Loads().visit_stmt(k.body)
    assert loads and all(c.kwargs.get("cache") == int(ir.CachePolicy.BYPASS) for c in loads)


def test_whole_loads_of_values_used_in_a_split_aiv_region_sit_outside_it():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[128, 64], pl.FP32], out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                y = pl.exp(a)
                out = pl.assemble(out, y, [0, 0])
        return out
''')
    k = function(after, "k")
    top = ir.flatten_to_stmts(k.body)
    assert isinstance(top[0], ir.AssignStmt) and top[0].value.op.name == "tile.load"
    region = next(s for s in top if isinstance(s, ir.SplitAivScopeStmt))
    inside = [s.value.op.name for s in ir.flatten_to_stmts(region.body) if isinstance(s, ir.AssignStmt)
              and isinstance(s.value, ir.Call)]
    assert "tile.load" not in inside and "tile.exp" in inside


FP16_SHARD = '''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[32, 32], pl.FP16], w: pl.Tensor[[32, 32], pl.FP16],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
            c = pl.matmul(x, w)
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.aiv_shard(c)
                e = pl.exp(pl.cast(h, pl.FP32))
                out = pl.assemble(out, e, [aiv_id * 16, 0])
        return out
'''


def _assigned_ops(body: ir.Stmt) -> list[str]:
    return [s.value.op.name for s in ir.flatten_to_stmts(body) if isinstance(s, ir.AssignStmt)
            and isinstance(s.value, ir.Call) and not isinstance(s.value.op, ir.GlobalVar)]


def test_a_shard_of_an_fp16_product_takes_the_accumulator_and_casts_inside_the_region():
    # The FP16 matmul's cast must not stay outside the region, where the shard would get a Vec tile: the shard
    # takes the FP32 accumulator (Acc) and each lane casts its own half.
    after = lower(FP16_SHARD, upto="infer_tile_memory_space")
    k = function(after, "k")
    top = ir.flatten_to_stmts(k.body)
    assert "tile.cast" not in _assigned_ops(k.body)  # no vector op outside the region
    region = next(s for s in top if isinstance(s, ir.SplitAivScopeStmt))
    shard, cast = ir.flatten_to_stmts(region.body)[1:3]
    assert shard.value.op.name == "tile.aiv_shard" and shard.value.args[0].type.memory_space is ir.MemorySpace.Acc
    product = next(s for s in top if isinstance(s, ir.AssignStmt) and s.var is shard.value.args[0])
    assert product.value.op.name == "tile.matmul"
    assert cast.value.op.name == "tile.cast" and cast.value.args[0] is shard.var
    assert cast.var.type.dtype is ir.DataType.FP16 and [d.value for d in cast.var.type.shape] == [16, 32]
    assert PropertyVerifierRegistry.verify(["AivSplitValid"], after) == []


def test_a_shard_of_an_fp16_product_runs_the_same_through_lower_auto_vector_split():
    from pypto_core.testing import same_results

    program = pl.parse(HEADER + FP16_SHARD)
    after = passes.lower_auto_vector_split()(lower(FP16_SHARD, upto="infer_tile_memory_space"))
    same_results(program, after)


def test_orchestration_and_opaque_functions_keep_their_tensor_ops():
    after = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        y = pl.add(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.exp(y), [0, 0])
        z = pl.mul(out, 2.0)
        return z
''')
    orch = function(after, "main")
    assert orch.func_type is FunctionType.Orchestration
    ops = [s.value.op.name for s in ir.flatten_to_stmts(orch.body) if isinstance(s, ir.AssignStmt)
           and isinstance(s.value, ir.Call) and not isinstance(s.value.op, ir.GlobalVar)]
    assert ops == ["tensor.adds", "tensor.muls"]


def test_the_pass_declares_api_properties():
    p = passes.convert_tensor_to_tile_ops()
    assert p.get_name() == "ConvertTensorToTileOps"
    assert str(p.get_required_properties()) == "{SSAForm, NormalizedStmtStructure, SplitIncoreOrch}"
    assert str(p.get_produced_properties()) == "{SSAForm, NormalizedStmtStructure, IncoreTileOps, AivSplitValid}"
    assert str(p.get_invalidated_properties()) == "{AivSplitValid}"


def test_a_slice_of_a_parameter_with_a_pad_value_is_a_located_error():
    with pytest.raises(ValueError, match=r"pad_value=zero on a slice of a global tensor.*slice the loaded tile"):
        lower('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            w = pl.slice(a, [16, 64], [0, 0], pad_value=pl.PadValue.zero)
            out = pl.assemble(out, w, [0, 0])
        return out
''', run=False)


@pytest.mark.unverified
def test_the_incore_tile_ops_verifier_reports_a_tensor_op_left_in_a_kernel():
    program = lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            out = pl.assemble(out, pl.exp(x), [0, 0])
        return out
''', upto="outline_incore_scopes", run=False)
    diags = PropertyVerifierRegistry.verify(["IncoreTileOps"], program)
    assert [d.rule_name for d in diags] == ["IncoreTileOps", "IncoreTileOps"]
    messages = sorted(d.message for d in diags)
    assert "Tensor op 'tensor.exp' found in InCore function (should have been converted): function " \
           "'main_incore_0'" in messages[1]
    assert "Tensor op 'tensor.assemble' found in InCore function (should have been converted)" in messages[0]


def test_a_tensor_op_without_a_tile_form_is_a_located_error_naming_it_and_its_operands(monkeypatch):
    from pypto_core.ops.registry import op_registry

    monkeypatch.delitem(op_registry().impls["tile_form"], "tensor.exp")
    with pytest.raises(ValueError, match=r"in InCore function 'main_incore_0', tensor.exp \(op of plugin 'ops_tile'\) "
                                         r"has no tile form: it computes a tensor \(pl.Tensor\[\[16, 64\], pl.FP32\]\) "
                                         r"from pl.Tensor\[\[16, 64\], pl.FP32\], and a kernel computes on tiles. "
                                         r"op 'tensor.exp' does not implement the op interface 'tile_form' \(how ConvertTensorToTileOps "
                                         r"lowers a tensor op.*\): compute it outside the pl.at scope, or implement "
                                         r"'tile_form' for the op in its plugin"):
        lower('''
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(x, 1.0)
            out = pl.assemble(out, pl.exp(y), [0, 0])
        return out
''', run=False)


def test_every_registered_tensor_op_has_a_tile_form_naming_registered_tile_ops():
    from pypto_core.ops.registry import op_registry

    registry = op_registry()
    for name, opdef in registry.ops.items():
        if not opdef.is_tensor_op:
            continue
        form = registry.implementation("tile_form", name)
        assert form is not None, f"{name} has no tile form"
        if form.op is not None:
            assert form.op in registry.ops, f"{name} lowers to unregistered {form.op}"
