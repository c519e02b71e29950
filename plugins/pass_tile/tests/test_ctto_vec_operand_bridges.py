"""ConvertTensorToTileOps bridges the declared Vec operands of scatter_update, mrgsort_format2 and gather_compare
(PyPTO's rules 3 and 5, docs/passes/convert_tensor_to_tile_ops.md): a GM tensor there is loaded whole into Vec right
before the call as `<name>_vec`, not entry-loaded. Each program runs before and after the pass and through the
default pipeline on both backends."""

from __future__ import annotations

from .ctto_forms import body, converted

SORTS = '''
@pl.program
class S:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.FP32], idx: pl.Tensor[[2, 8], pl.INT32], s: pl.Tensor[[16, 128], pl.FP32],
          b: pl.Tensor[[1, 128], pl.FP32], c: pl.Tensor[[1, 128], pl.FP32]
          ) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[1, 256], pl.FP32]]:
        x = pl.tensor.scatter_update(a, -2, idx, s)
        m = pl.tensor.mrgsort_format2(b, c)
        return x, m
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 128], pl.FP32], s: pl.Tensor[[16, 128], pl.FP32], b: pl.Tensor[[1, 128], pl.FP32],
             c: pl.Tensor[[1, 128], pl.FP32]) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[1, 256], pl.FP32]]:
        idx = pl.tensor.full([2, 8], dtype=pl.INT32, value=5)
        x, m = self.k(a, idx, s, b, c)
        return x, m
'''


def test_scatter_update_and_mrgsort_operands_are_bridged_into_vec() -> None:
    lines = body(converted(SORTS), "k").splitlines()
    loads = [line.split(":")[0] for line in lines if "pl.tile.load(" in line]
    assert loads == ["a__ssa_v0_vec", "idx__ssa_v0_vec", "s__ssa_v0_vec", "b__ssa_v0_vec", "c__ssa_v0_vec"], lines
    assert lines[3] == ("x__tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.scatter_update(a__ssa_v0_vec, "
                        "idx__ssa_v0_vec, s__ssa_v0_vec, dim=-2)")
    assert "pl.tile.mrgsort_format2(b__ssa_v0_vec, c__ssa_v0_vec, mrgsort_tmp)" in lines[7]


COMPARE = '''
@pl.program
class G:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        e = pl.exp(a)
        p = pl.tensor.gather_compare(a, 0.5, cmp_mode='ge', out_cols=16)
        o = pl.assemble(o, e, [0, 0])
        return o
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[16, 128], pl.FP32], o: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        o = self.k(a, o)
        return o
'''


def test_a_parameter_read_by_a_vector_op_and_gather_compare_gets_an_entry_load_and_a_bridge() -> None:
    """The entry load serves `pl.exp`; gather_compare's declared operand has its own Vec bridge (PyPTO's rule 4:
    a declared-space operand does not make a parameter used)."""
    lines = body(converted(COMPARE), "k").splitlines()
    assert lines[0].startswith("a__tile: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0"), lines
    assert any(line.startswith("a__ssa_v0_vec: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(a__ssa_v0")
               for line in lines), lines
    assert any("pl.tile.gather_compare(a__ssa_v0_vec, 0.5" in line for line in lines), lines
