"""Outlining examples as Before/Expected tests (structural comparison + round trip); the first is the example of
docs/passes/outline_incore_scopes.md."""

from __future__ import annotations

import pytest

from pypto import ir

from .helpers import expect, function, outline

HEADER = "import pypto.language as pl\n\n"


def test_basic_extraction_matches_the_expected_text():
    after = outline(HEADER + '''
@pl.program
class Basic:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y = pl.add(x, 1.0)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile = pl.load(y, [0], [64])
            tile_sq = pl.mul(tile, tile)
            result_tile = pl.add(tile_sq, 1.0)
            result = pl.store(result_tile, [0], x)
        z = pl.add(result, 2.0)
        return z
''')
    expected_text = '''# pypto.program: Basic
import pypto.language as pl

@pl.program
class Basic:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def main_incore_0(y__ssa_v0: pl.Tensor[[64], pl.FP32], x__ssa_v0: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        tile__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(y__ssa_v0, [0], [64], [64], target_memory=pl.Mem.Vec)
        tile_sq__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.mul(tile__ssa_v0, tile__ssa_v0)
        result_tile__ssa_v0: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(tile_sq__ssa_v0, 1.0)
        result__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tile.store(result_tile__ssa_v0, [0], x__ssa_v0)
        x__store: pl.Tensor[[64], pl.FP32] = result__ssa_v0
        return x__ssa_v0
    @pl.function(type=pl.FunctionType.Orchestration, level=pl.Level.CHIP, role=pl.Role.Orchestrator)
    def main(self, x__ssa_v0: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        y__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x__ssa_v0, 1.0)
        x__ssa_v1: pl.Tensor[[64], pl.FP32] = self.main_incore_0(y__ssa_v0, x__ssa_v0)
        z__ssa_v0: pl.Tensor[[64], pl.FP32] = pl.tensor.adds(x__ssa_v1, 2.0)
        return z__ssa_v0'''
    assert ir.python_print(after, format=False) == expected_text
    expect(after, expected_text)
    assert function(after, "main").func_type is ir.FunctionType.Orchestration
    assert function(after, "main_incore_0").param_directions == (ir.ParamDirection.In, ir.ParamDirection.Out)


def test_multiple_outputs_return_the_store_target_param_then_the_local_value():
    after = outline(HEADER + '''
@pl.program
class Multi:
    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            a_tile = pl.load(a, [0], [64])
            b_tile = pl.load(b, [0], [64])
            c_tile = pl.add(a_tile, b_tile)
            out_a = pl.store(c_tile, [0], out)
            out_b = pl.mul(c_tile, 2.0)
        x = pl.store(out_b, [0], out_a)
        return x
''')
    expect(after, HEADER + '''
@pl.program
class Multi:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tile[[64], pl.FP32, pl.Mem.Vec]]:
        a_tile = pl.load(a, [0], [64])
        b_tile = pl.load(b, [0], [64])
        c_tile = pl.add(a_tile, b_tile)
        out_a = pl.store(c_tile, [0], out)
        out__store = out_a
        out_b = pl.mul(c_tile, 2.0)
        return out, out_b
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32], b: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        out_a, out_b = self.main_incore_0(a, b, out)
        x = pl.store(out_b, [0], out_a)
        return x
''')


def test_store_target_in_a_loop_becomes_a_carry():
    after = outline(HEADER + '''
@pl.program
class Loop:
    @pl.function
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * 64, 0], [64, 128])
                pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
        return out
''')
    text = ir.python_print(function(after, "k"))
    assert "for i__idx_v0, (out__iter_v1,) in pl.range(4, init_values=(out__ssa_v0,)):" in text
    assert "out__ssa_v1: pl.Tensor[[256, 128], pl.FP32] = k_incore_0(a__ssa_v0, i__idx_v0, out__iter_v1)" in text
    assert "out__rv_v1: pl.Tensor[[256, 128], pl.FP32] = pl.yield_(out__ssa_v1)" in text
    assert text.endswith("return out__rv_v1")
    callee = ir.python_print(function(after, "k_incore_0"))
    assert "out__store: pl.Tensor[[256, 128], pl.FP32] = pl.tile.store(" in callee
    assert callee.endswith("return out__ssa_v0")


def test_scalar_live_out_chain_is_hoisted_to_the_caller():
    after = outline(HEADER + '''
@pl.program
class Hoist:
    @pl.function
    def main(self, x: pl.Tensor[[64, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP32]], base: pl.Scalar[pl.INDEX]) -> pl.Tensor[[64, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            row = base * 2
            off = row + 1
            unused = base * 7
            t = pl.load(x, [off, 0], [1, 32])
            out = pl.store(t, [off, 0], out)
        r = pl.load(x, [off, 0], [1, 32]) if False else out
        return r
'''.replace("        r = pl.load(x, [off, 0], [1, 32]) if False else out\n        return r\n",
            "        with pl.at(level=pl.Level.CORE_GROUP):\n"
            "            t2 = pl.load(x, [off, 0], [1, 32])\n"
            "            out = pl.store(t2, [0, 0], out)\n"
            "        return out\n"))
    main = ir.python_print(function(after, "main"))
    # Only the chain `off` needs (row, off) moves; `unused` stays inside the kernel.
    assert "row__ssa_v0: pl.Scalar[pl.INDEX] = base__ssa_v0 * 2" in main
    assert "off__ssa_v0: pl.Scalar[pl.INDEX] = row__ssa_v0 + 1" in main
    assert "unused" not in main
    k0 = function(after, "main_incore_0")
    assert all(not isinstance(t, ir.ScalarType) for t in k0.return_types)
    assert [p.name_hint for p in k0.params] == ["base__ssa_v0", "x__ssa_v0", "off__ssa_v0", "out__ssa_v0"]
    assert "unused__ssa_v0" in ir.python_print(k0)


def test_unhoistable_scalar_live_out_is_a_user_error_naming_the_variable():
    with pytest.raises(ValueError, match=r"the scalar 'v' \(v__rv_v1\) is computed inside the InCore scope.*"
                                         r"\(1\).*\[1\] tensor.*\(2\).*pl\.tensor\.read\(t, \[0\]\).*\(3\)"):
        outline(HEADER + '''
@pl.program
class Bad:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        with pl.at(level=pl.Level.CORE_GROUP):
            v = n
            for i in pl.range(2):
                v = v + i
        return v
''')


def test_naming_hints_and_clashes():
    after = outline(HEADER + '''
@pl.program
class Names:
    @pl.function
    def single_a(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="dup_scope"):
            o = pl.store(pl.load(x, [0], [64]), [0], o)
        return o

    @pl.function
    def single_b(self, x: pl.Tensor[[64], pl.FP32], o: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="dup_scope"):
            o = pl.store(pl.load(x, [0], [64]), [0], o)
        with pl.at(level=pl.Level.CORE_GROUP):
            o = pl.store(pl.load(x, [0], [64]), [0], o)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="my_kernel"):
            o = pl.store(pl.load(x, [0], [64]), [0], o)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="my_kernel"):
            o = pl.store(pl.load(x, [0], [64]), [0], o)
        return o
''')
    assert sorted(gv.name for gv in after.functions) == sorted(
        ["dup_scope", "single_a", "single_b", "single_b_dup_scope", "single_b_incore_1", "my_kernel",
         "my_kernel_0"])


def test_read_then_overwrite_by_a_callee_is_inout():
    after = outline(HEADER + '''
@pl.program
class Shared:
    @pl.function(type=pl.FunctionType.InCore)
    def overwrite(self, t: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        z = pl.tile.full([16, 128], dtype=pl.FP32, value=0.0)
        t = pl.store(z, [0, 0], t)
        return t

    @pl.function
    def main(self, shared: pl.Tensor[[16, 128], pl.FP32], only_out: pl.Tensor[[16, 128], pl.FP32], dst: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            value = pl.load(shared, [0, 0], [16, 128])
            s2 = self.overwrite(shared)
            o2 = self.overwrite(only_out)
            dst = pl.store(value, [0, 0], dst)
        return dst
''')
    k = function(after, "main_incore_0")
    dirs = dict(zip((p.name_hint for p in k.params), k.param_directions))
    assert dirs == {"shared__ssa_v0": ir.ParamDirection.InOut, "only_out__ssa_v0": ir.ParamDirection.Out,
                    "dst__ssa_v0": ir.ParamDirection.Out}
