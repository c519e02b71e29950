"""ConvertTensorToTileOps bridges the operands a tile op declares a space for (docs/passes/convert_tensor_to_tile_ops.md,
rules 3-5): a matmul's lhs / rhs are loaded into Mat with the bridge marker (`<name>_mat`), a transposed one is a
`tile.transpose_view` (`<load>_t`), a transposed tile outside Mat is moved there first (`<v>_mat`); a slice that
reaches a Mat operand (through views) is loaded into Mat itself; other parameters get entry loads in Vec. Each
program also runs the same on the reference machine, through the whole default pipeline on both backends."""

from __future__ import annotations

from .ctto_forms import body, converted

MARK = 'attrs={"__compiler_tensor_to_tile_mat_bridge": True}'


def test_a_transposed_lhs_parameter_is_a_mat_bridge_load_and_a_transpose_view() -> None:
    text = body(converted('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[64, 16], pl.FP32]) -> pl.Tensor[[32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, a_trans=True)
        return c
'''))
    assert (f"a__ssa_v0_mat: pl.Tile[[64, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [64, 32], "
            f"[64, 32], target_memory=pl.Mem.Mat, {MARK})") in text, text
    assert "a__ssa_v0_mat_t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Mat" in text, text
    assert "pl.tile.transpose_view(a__ssa_v0_mat)" in text, text
    assert "b__ssa_v0_mat: pl.Tile[[64, 16], pl.FP32, pl.Mem.Mat]" in text and "b__ssa_v0_mat_t" not in text, text
    assert "c__tile: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(a__ssa_v0_mat_t, b__ssa_v0_mat)" in text
    assert "pl.tile.transpose(" not in text  # the view, not a copy
    assert "x__tile" not in text and "Mem.Vec] = pl.tile.load" not in text  # no entry load for a matmul operand


def test_a_transposed_vector_result_is_moved_to_mat_then_viewed() -> None:
    text = body(converted('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[16, 32], pl.FP32], x: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.exp(x)
            c = pl.matmul(a, y, b_trans=True)
        return c
'''))
    assert "x__tile: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x__ssa_v0" in text, text
    assert "y__tile_mat: pl.Tile[[16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.move(y__tile, target_memory=pl.Mem.Mat)" in text
    assert "y__tile_mat_t: pl.Tile[[32, 16], pl.FP32, pl.Mem.Mat" in text and "transpose_view(y__tile_mat)" in text
    assert "pl.tile.matmul(a__ssa_v0_mat, y__tile_mat_t)" in text, text


def test_a_parameter_read_by_a_vector_op_and_a_matmul_gets_both_loads() -> None:
    text = body(converted('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, a)
            e = pl.exp(a)
        return c, e
'''))
    lines = text.splitlines()
    assert lines[0].startswith("a__tile: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0"), text
    # one bridge per operand slot, as PyPTO's
    assert text.count(f"target_memory=pl.Mem.Mat, {MARK}") == 2, text
    assert "pl.tile.matmul(a__ssa_v0_mat, a__ssa_v0_mat_1)" in text, text


def test_a_slice_feeding_a_matmul_is_loaded_into_mat_and_other_slices_into_vec() -> None:
    text = body(converted('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 32], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32]) -> tuple[pl.Tensor[[16, 16], pl.FP32], pl.Tensor[[16, 32], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a0 = pl.slice(a, [16, 32], [0, 0])
            c = pl.matmul(a0, b)
            a1 = pl.slice(a, [16, 32], [16, 0])
            e = pl.exp(a1)
        return c, e
'''))
    assert (f"a0__tile: pl.Tile[[16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 32], [16, 32], "
            f"target_memory=pl.Mem.Mat, {MARK})") in text, text
    assert ("a1__tile: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0, [16, 0], [16, 32], [16, 32], "
            "target_memory=pl.Mem.Vec)") in text, text


def test_the_demand_reaches_a_slice_through_a_view_and_a_copy() -> None:
    text = body(converted('''
@pl.program
class P:
    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32]) -> pl.Tensor[[32, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a0 = pl.slice(a, [16, 64], [0, 0])
            r = pl.reshape(a0, [32, 32])
            c = pl.matmul(r, b)
        return c
'''))
    assert "a0__tile: pl.Tile[[16, 64], pl.FP32, pl.Mem.Mat] = pl.tile.load(a__ssa_v0, [0, 0], [16, 64]" in text, text


def test_matmul_acc_leaves_its_accumulator_load_to_inference_and_bridges_the_operands() -> None:
    # The accumulated tile is the parameter's new state: the kernel returns it (stored into its output), and
    # the program runs the same before and after.
    text = body(converted('''
@pl.program
class P:
    @pl.function
    def main(self, acc: pl.Tensor[[16, 16], pl.FP32], a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul_acc(acc, a, b, b_trans=True)
        return c
'''))
    assert (
        # no space: InferTileMemorySpace places the accumulator where the cube accumulates (PyPTO: Vec)
        "acc__tile: pl.Tile[[16, 16], pl.FP32] = pl.tile.load(acc__ssa_v0, [0, 0], [16, 16], [16, 16], "
        "target_memory=None)") in text, text
    assert "pl.tile.matmul_acc(acc__tile, a__ssa_v0_mat, b__ssa_v0_mat_t)" in text, text


def test_matmul_acc_into_a_parameter_returns_the_accumulated_tile() -> None:
    text = body(converted('''
@pl.program
class P:
    @pl.function
    def main(self, acc: pl.Tensor[[16, 16], pl.FP32], a: pl.Tensor[[16, 32], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul_acc(acc, a, b)
        return c
'''))
    # the accumulated tile, not the untouched GM parameter, is what the kernel stores and returns
    assert "pl.tile.store(c__tile, [0, 0], ret0__out)" in text, text


DROP_DIMS = '''
@pl.program
class D:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[4, 16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP32],
          o: pl.Out[pl.Tensor[[16, 32], pl.FP32]], q: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
          ) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        s = pl.slice(x, [1, 16, 32], [2, 0, 0], drop_dims=[0])
        e = pl.exp(s)
        o = pl.assemble(o, e, [0, 0])
        a = pl.slice(x, [1, 16, 32], [3, 0, 0], drop_dims=[0])
        c = pl.matmul(a, w)
        q = pl.assemble(q, c, [0, 0])
        return o, q
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[4, 16, 32], pl.FP32], w: pl.Tensor[[32, 16], pl.FP32],
             o: pl.Out[pl.Tensor[[16, 32], pl.FP32]], q: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
             ) -> tuple[pl.Tensor[[16, 32], pl.FP32], pl.Tensor[[16, 16], pl.FP32]]:
        o, q = self.k(x, w, o, q)
        return o, q
'''


def test_a_drop_dims_slice_binds_pypto_names_for_its_rank_keeping_window() -> None:
    """`slice_load` for a plain window, `<base>__tile_full_rank` for one loaded into a consumer's space (Mat);
    both run before and after the pass and through the default pipeline on both backends."""
    text = body(converted(DROP_DIMS), "k")
    assert "slice_load: pl.Tile[[1, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(" in text, text
    assert "s__tile: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(slice_load, [16, 32])" in text, text
    assert "a__tile_full_rank: pl.Tile[[1, 16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.load(" in text, text
    assert "a__tile: pl.Tile[[16, 32], pl.FP32, pl.Mem.Mat] = pl.tile.reshape(a__tile_full_rank, [16, 32])" in text


def test_the_full_rank_name_parses_back() -> None:
    import pypto.language as pl
    from pypto import ir

    printed = ir.python_print(converted(DROP_DIMS, run=False))
    assert "a__tile_full_rank" in printed
    assert "a__tile_full_rank" in ir.python_print(pl.parse(printed))
