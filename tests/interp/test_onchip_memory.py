"""Execution by address: tiles with MemRefs live in each core's on-chip bytes (docs/memory_planning.md)."""

from __future__ import annotations

import numpy as np
import pytest

import pypto.language as pl
from pypto_core.backend.registry import get_backend
from pypto_core.interp.errors import MachineError
from pypto_core.interp.inputs import make_inputs
from pypto_core.interp.machine import Machine


def kernel(x_ref: str, y_ref: str, s_ref: str = "", space: str = "Vec") -> str:
    """x = a, y = b (both loaded), s = a window of x, out = assemble(x + y, exp(s))."""
    def tile(shape: str, ref: str) -> str:
        return f"pl.Tile[{shape}, pl.FP32, {ref + ', ' if ref else ''}pl.Mem.{space}]"

    return f'''
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], b: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        buf_x: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        buf_y: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        x: {tile("[32, 64]", x_ref)} = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        y: {tile("[32, 64]", y_ref)} = pl.tile.load(b, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        s: {tile("[16, 32]", s_ref)} = pl.tile.slice(x, [16, 32], [8, 16])
        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        z: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.add(x, y)
        z2: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.assemble(z, e, [0, 0])
        o: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(z2, [0, 0], out)
        return o
'''


def run(text: str, backend: str = "Ascend910B", addresses: bool = True) -> np.ndarray:
    program = pl.parse(text)
    inputs = make_inputs(program.get_function("k"), seed=0)
    Machine(program, backend=get_backend(backend), addresses=addresses).run("k", inputs)
    return inputs["out"]


def reference() -> np.ndarray:
    return run(kernel("", ""))


def test_disjoint_memrefs_give_the_results_without_them():
    placed = kernel("pl.MemRef(buf_x, 0, 8192)", "pl.MemRef(buf_y, 8192, 8192)", "pl.MemRef(buf_x, 2112, 3968)")
    np.testing.assert_array_equal(run(placed), reference())
    swapped = kernel("pl.MemRef(buf_x, 8192, 8192)", "pl.MemRef(buf_y, 0, 8192)", "pl.MemRef(buf_x, 10304, 3968)")
    np.testing.assert_array_equal(run(swapped), reference())


def test_overlapping_memrefs_alias():
    # y's bytes start halfway into x's: loading y overwrites x's last 16 rows, which x + y then reads.
    text = kernel("pl.MemRef(buf_x, 0, 8192)", "pl.MemRef(buf_y, 4096, 8192)")
    program = pl.parse(text)
    inputs = make_inputs(program.get_function("k"), seed=0)
    a, b = inputs["a"].copy(), inputs["b"].copy()
    Machine(program, backend=get_backend("Ascend910B")).run("k", inputs)
    got = inputs["out"]
    np.testing.assert_allclose(got[16:], b[:16] + b[16:], rtol=1e-6)  # x's rows 16.. are y's rows 0..
    np.testing.assert_allclose(got[8:16, 32:], a[8:16, 32:] + b[8:16, 32:], rtol=1e-6)
    assert not np.allclose(got, reference())
    # the same program with value semantics does not alias
    np.testing.assert_array_equal(run(text, addresses=False), reference())


def test_writing_one_tile_changes_the_other():
    text = '''
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[8, 16], pl.FP32], out: pl.Out[pl.Tensor[[8, 16], pl.FP32]]) -> pl.Tensor[[8, 16], pl.FP32]:
        buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 512)
        t: pl.Tile[[8, 16], pl.FP32, pl.MemRef(buf, 0, 512), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [8, 16], [8, 16], target_memory=pl.Mem.Vec)
        u: pl.Tile[[8, 16], pl.FP32, pl.MemRef(buf, 0, 512), pl.Mem.Vec] = pl.tile.full([8, 16], dtype=pl.FP32, value=2.0)
        v: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.add(t, t)
        o: pl.Tensor[[8, 16], pl.FP32] = pl.tile.store(v, [0, 0], out)
        return o
'''
    np.testing.assert_array_equal(run(text), np.full((8, 16), 4.0, np.float32))  # t reads u's bytes
    assert not np.allclose(run(text, addresses=False), 4.0)


def test_unplaced_allocations_each_have_their_own_bytes():
    # InitMemRef's output: every allocation at offset 0 (docs/memory_planning.md, execution by address).
    text = kernel("pl.MemRef(buf_x, 0, 8192)", "pl.MemRef(buf_y, 0, 8192)", "pl.MemRef(buf_x, 2112, 3968)")
    np.testing.assert_array_equal(run(text), reference())


@pytest.mark.parametrize(("backend", "fits"), [("Ascend910B", False), ("Ascend950", True)])
def test_a_memref_beyond_the_capacity_is_a_located_machine_error(backend, fits):
    # Vec holds 188416 bytes on Ascend910B and 245760 on Ascend950: y at 184320 ends at 192512.
    text = kernel("pl.MemRef(buf_x, 0, 8192)", "pl.MemRef(buf_y, 184320, 8192)")
    if fits:
        np.testing.assert_array_equal(run(text, backend), reference())
        return
    with pytest.raises(MachineError) as info:
        run(text, backend)
    message = str(info.value)
    assert "tile 'y'" in message and "Vec bytes [184320, 192512)" in message
    assert "capacity of 188416 bytes on Ascend910B" in message and "<string>" in message


def test_cube_spaces_are_bounded_too():
    text = '''
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP16], out: pl.Out[pl.Tensor[[64, 64], pl.FP16]]) -> pl.Tensor[[64, 64], pl.FP16]:
        m: pl.Ptr = pl.tile.alloc(pl.Mem.Mat, 8192)
        t: pl.Tile[[64, 64], pl.FP16, pl.MemRef(m, 520192, 8192), pl.Mem.Mat] = pl.tile.load(a, [0, 0], [64, 64], [64, 64], target_memory=pl.Mem.Mat)
        o: pl.Tensor[[64, 64], pl.FP16] = pl.tile.store(t, [0, 0], out)
        return o
'''
    with pytest.raises(MachineError, match=r"Mat bytes \[520192, 528384\), beyond the Mat capacity of 524288"):
        run(text)
    inputs_ok = text.replace("520192", "0")
    program = pl.parse(inputs_ok)
    inputs = make_inputs(program.get_function("k"), seed=1)
    Machine(program, backend=get_backend("Ascend910B")).run("k", inputs)
    np.testing.assert_array_equal(inputs["out"], inputs["a"])


def test_a_reshape_in_a_wider_allocation_is_dense_a_slice_keeps_its_parents_pitch():
    """A [1, 32] -> [32, 1] reshape inside a 128-byte allocation reads its 32 elements densely: given the
    [1, 32] operand's row pitch (32 elements per row, as a slice keeps it) it reached 1,986 bytes into the next
    tile's and wrote BF16 roundings there (fuzz finding: AllocateMemoryAddr changed the results)."""
    text = '''
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 1], pl.FP32], b: pl.Tensor[[32, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]], out2: pl.Out[pl.Tensor[[32, 1], pl.BF16]]) -> pl.Tensor[[16, 32], pl.FP32]:
        m3: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 128)
        m4: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 2048)
        x: pl.Tile[[32, 1], pl.FP32, pl.MemRef(m3, 0, 128), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 1], [32, 1], target_memory=pl.Mem.Vec)
        y: pl.Tile[[32, 16], pl.FP32, pl.MemRef(m4, 128, 2048), pl.Mem.Vec] = pl.tile.load(b, [0, 0], [32, 16], [32, 16], target_memory=pl.Mem.Vec)
        r: pl.Tile[[1, 32], pl.FP32, pl.MemRef(m3, 0, 128), pl.Mem.Vec] = pl.tile.reshape(x, [1, 32])
        c: pl.Tile[[1, 32], pl.BF16, pl.MemRef(m3, 0, 128), pl.Mem.Vec] = pl.tile.cast(r, target_type=pl.BF16, mode='round')
        v: pl.Tile[[32, 1], pl.BF16, pl.MemRef(m3, 0, 128), pl.Mem.Vec] = pl.tile.reshape(c, [32, 1])
        w: pl.Tile[[16, 32], pl.FP32, pl.MemRef(m4, 128, 2048), pl.Mem.Vec] = pl.tile.reshape(y, [16, 32])
        o2: pl.Tensor[[32, 1], pl.BF16] = pl.tile.store(v, [0, 0], out2)
        o: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(w, [0, 0], out)
        return o
'''
    program = pl.parse(text)
    inputs = make_inputs(program.get_function("k"), seed=0)
    by_address = {k: v.copy() for k, v in inputs.items()}
    Machine(program, backend=get_backend("Ascend910B")).run("k", by_address)
    np.testing.assert_array_equal(by_address["out"], inputs["b"].reshape(16, 32))
    np.testing.assert_array_equal(by_address["out2"].astype(np.float32),
                                  inputs["a"].astype(by_address["out2"].dtype).astype(np.float32))


def test_a_relabel_of_a_slice_keeps_the_slices_row_pitch():
    """A set_validshape of a slice (a relabel view, registry buffer_view) reads the slice's window of its parent:
    the parent's row pitch, not a dense image of its own."""
    text = '''
import pypto.language as pl
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        buf: pl.Ptr = pl.tile.alloc(pl.Mem.Vec, 8192)
        x: pl.Tile[[32, 64], pl.FP32, pl.MemRef(buf, 0, 8192), pl.Mem.Vec] = pl.tile.load(a, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 32], pl.FP32, pl.MemRef(buf, 2112, 3968), pl.Mem.Vec] = pl.tile.slice(x, [16, 32], [8, 16])
        r: pl.Tile[[16, 32], pl.FP32, pl.MemRef(buf, 2112, 3968), pl.Mem.Vec] = pl.tile.set_validshape(s, 16, 32)
        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(r)
        o: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return o
'''
    program = pl.parse(text)
    inputs = make_inputs(program.get_function("k"), seed=0)
    Machine(program, backend=get_backend("Ascend910B")).run("k", inputs)
    np.testing.assert_allclose(inputs["out"], np.exp(inputs["a"][8:24, 16:48]), rtol=1e-6)
