"""LegalizeTileCast: a tile.cast the backend has no single pto.tcvt for becomes the shortest chain of native
casts (each hop keeps the rounding mode); native casts stay; a pair without an admissible chain is a located
error. Each accepted case also runs on the reference machine."""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir, passes
from pypto_core.backend.registry import get_backend
from pypto_core.ir.dtypes import DataType as D
from pypto_plugins.pass_tile.tile_prep.cast_paths import cast_path

from .helpers import HEADER, printed, same_results

SIG = ("x: pl.Tensor[[16, 64], pl.INT32], y: pl.Tensor[[16, 64], pl.FP16], o1: pl.Out[pl.Tensor[[16, 64], pl.FP16]], "
       "o2: pl.Out[pl.Tensor[[16, 64], pl.BF16]], o3: pl.Out[pl.Tensor[[16, 64], pl.INT8]]")
RET = "tuple[pl.Tensor[[16, 64], pl.FP16], pl.Tensor[[16, 64], pl.BF16], pl.Tensor[[16, 64], pl.INT8]]"
MAIN = f'''
    @pl.function
    def main(self, {SIG}) -> {RET}:
        r1, r2, r3 = self.k(x, y, o1, o2, o3)
        return r1, r2, r3
'''
CASTS = f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, {SIG}) -> {RET}:
        t = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        a = pl.cast(t, pl.FP16)
        u = pl.load(y, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        c = pl.cast(u, pl.BF16, mode="rint")
        f = pl.cast(u, pl.FP32)
        d = pl.cast(f, pl.INT8, mode="trunc")
        o1 = pl.store(a, [0, 0], o1)
        o2 = pl.store(c, [0, 0], o2)
        o3 = pl.store(d, [0, 0], o3)
        return o1, o2, o3
{MAIN}'''


def legalize(src: str) -> tuple[ir.Program, ir.Program]:
    before = passes.convert_to_ssa()(pl.parse(HEADER + src))
    after = passes.legalize_tile_cast()(before)
    same_results(before, after)
    return before, after


def expect_ssa(after: ir.Program, expected_src: str) -> None:
    """Structural comparison with a program written in the DSL and put in SSA form (names do not matter)."""
    ir.assert_structural_equal(after, passes.convert_to_ssa()(pl.parse(HEADER + expected_src)))


def _expected(int32_to_fp16_hop: bool) -> str:
    a = ("        a_hop = pl.tile.cast(t, target_type=pl.FP32, mode='round')\n"
         "        a = pl.tile.cast(a_hop, target_type=pl.FP16, mode='round')\n") if int32_to_fp16_hop else \
        "        a = pl.tile.cast(t, target_type=pl.FP16, mode='round')\n"
    return f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, {SIG}) -> {RET}:
        t = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
{a}        u = pl.tile.load(y, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        c_hop = pl.tile.cast(u, target_type=pl.FP32, mode='rint')
        c = pl.tile.cast(c_hop, target_type=pl.BF16, mode='rint')
        f = pl.tile.cast(u, target_type=pl.FP32, mode='round')
        d_hop = pl.tile.cast(f, target_type=pl.FP16, mode='trunc')
        d = pl.tile.cast(d_hop, target_type=pl.INT8, mode='trunc')
        o1_1 = pl.tile.store(a, [0, 0], o1)
        o2_1 = pl.tile.store(c, [0, 0], o2)
        o3_1 = pl.tile.store(d, [0, 0], o3)
        return o1_1, o2_1, o3_1
{MAIN}'''


def test_on_910b_non_native_casts_go_through_fp32_and_fp16_and_keep_their_mode():
    _, after = legalize(CASTS)
    expect_ssa(after, _expected(int32_to_fp16_hop=False))
    text = printed(after, "k")
    assert "c__cast_fp32_tmp_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]" in text
    assert "d__cast_fp16_tmp_v1: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec]" in text


@pytest.mark.pypto_backend("Ascend950")
def test_on_950_int32_to_fp16_needs_an_fp32_hop_and_the_counter_runs_across_casts():
    _, after = legalize(CASTS)
    expect_ssa(after, _expected(int32_to_fp16_hop=True))
    text = printed(after, "k")
    for name in ("a__cast_fp32_tmp_v0", "c__cast_fp32_tmp_v1", "d__cast_fp16_tmp_v2"):
        assert name in text


def test_native_casts_only_leave_the_program_as_it_is():
    before, after = legalize(f'''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, {SIG}) -> {RET}:
        t = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        a = pl.cast(t, pl.FP16)
        u = pl.load(y, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        f = pl.cast(u, pl.FP32, mode="floor")
        c = pl.cast(f, pl.BF16)
        i = pl.cast(u, pl.INT8)
        o1 = pl.store(a, [0, 0], o1)
        o2 = pl.store(c, [0, 0], o2)
        o3 = pl.store(i, [0, 0], o3)
        return o1, o2, o3
{MAIN}''')
    assert after is before


def test_a_cast_inside_a_loop_body_is_chained_there():
    before, after = legalize('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[64, 64], pl.BF16], o: pl.Out[pl.Tensor[[64, 64], pl.FP16]]) -> pl.Tensor[[64, 64], pl.FP16]:
        for i in pl.range(4):
            t = pl.load(x, [i * 16, 0], [16, 64], target_memory=pl.Mem.Vec)
            h = pl.cast(t, pl.FP16, mode="floor")
            o = pl.store(h, [i * 16, 0], o)
        return o

    @pl.function
    def main(self, x: pl.Tensor[[64, 64], pl.BF16], o: pl.Out[pl.Tensor[[64, 64], pl.FP16]]) -> pl.Tensor[[64, 64], pl.FP16]:
        r = self.k(x, o)
        return r
''')
    text = printed(after, "k")
    assert ("h__cast_fp32_tmp_v0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.cast(t__ssa_v0, "
            "target_type=pl.FP32, mode='floor')") in text
    assert "pl.tile.cast(h__cast_fp32_tmp_v0, target_type=pl.FP16, mode='floor')" in text


@pytest.mark.pypto_backend("Ascend950")
def test_a_pair_without_an_admissible_chain_is_a_located_error_naming_the_arch():
    program = passes.convert_to_ssa()(pl.parse(HEADER + '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.UINT32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        t = pl.load(x, [0, 0], [16, 64], target_memory=pl.Mem.Vec)
        f = pl.cast(t, pl.FP32)
        o = pl.store(f, [0, 0], o)
        return o
'''))
    with pytest.raises(ValueError, match=r"LegalizeTileCast: no native cast path from uint32 to fp32 for arch a5; "
                                         r"pto.tcvt does not support this conversion") as info:
        passes.legalize_tile_cast()(program)
    assert info.value.span.begin_line == 9  # type: ignore[attr-defined]


# The chains PyPTO makes for every non-native pair (docs/passes/legalize_tile_cast.md, rules): `a>b` lists the
# intermediates. Every pair not listed and not native has no admissible chain.
F8 = "FP8E4M3FN/FP8E5M2/HF8"
CHAINS = {
    "Ascend910B": "BF16>FP16 fp32;BF16>INT16 fp32;BF16>INT8/INT4/UINT8 fp32>fp16;FP16>BF16 fp32;"
                  "FP32>INT8/INT4/UINT8 fp16;INT16>BF16 fp32;INT16>INT8/INT4/UINT8 fp16;INT32>BF16 fp32;"
                  "INT32>INT8/INT4/UINT8 fp16;INT64>BF16/FP16/INT16 fp32;INT64>INT8/INT4/UINT8 fp32>fp16;"
                  "INT8>INT4/UINT8 fp16;UINT8>INT4/INT8 fp16;INT4>INT8/UINT8 fp16",
    "Ascend950": f"BF16>{F8}/INT16 fp32;BF16>INT8/UINT8 fp16;BF16>UINT16 int32;FP16>BF16/FP8E4M3FN/FP8E5M2 fp32;"
                 f"FP16>FP4 fp32>bfloat16;FP16>UINT16 int32;FP32>FP4 bfloat16;FP32>INT8/UINT8 fp16;FP32>UINT16 int32;"
                 f"FP4>{F8} bfloat16>fp32;FP4>INT8/UINT8 bfloat16>fp16;{F8}>BF16/FP16/INT16 fp32;"
                 f"FP8E4M3FN>FP8E5M2/HF8 fp32;FP8E5M2>FP8E4M3FN/HF8 fp32;HF8>FP8E4M3FN/FP8E5M2 fp32;"
                 f"{F8}>FP4 fp32>bfloat16;{F8}>INT8/UINT8 fp32>fp16;{F8}>UINT16 fp32>int32;INT8>FP4 fp16>fp32>bfloat16;"
                 f"INT8>FP8E4M3FN/FP8E5M2 fp16>fp32;INT8>HF8/UINT8 fp16;INT8>UINT16 int32;"
                 f"INT16>BF16/FP8E4M3FN/FP8E5M2 fp32;INT16>FP4 fp32>bfloat16;INT16>HF8/INT8 fp16;INT16>UINT16 uint32;"
                 f"INT32>BF16/FP16/{F8} fp32;INT32>FP4 fp32>bfloat16;INT32>INT8 fp32>fp16;"
                 f"INT64>BF16/FP16/{F8}/INT16 fp32;INT64>FP4 fp32>bfloat16;INT64>INT8 fp32>fp16;"
                 f"INT64>UINT8/UINT16 int32;UINT8>FP4 fp16>fp32>bfloat16;UINT8>FP8E4M3FN/FP8E5M2 fp16>fp32;"
                 f"UINT8>HF8/INT8 fp16;UINT32>INT8 int16>fp16",
}
DTYPES = (D.FP32, D.FP16, D.BF16, D.INT16, D.INT32, D.INT64, D.UINT8, D.INT8, D.INT4, D.UINT16, D.UINT32,
          D.FP8E4M3FN, D.FP8E5M2, D.HF8, D.FP4)


def _listed(spec: str) -> dict[tuple[str, str], str]:
    out = {}
    for item in spec.split(";"):
        pair, via = item.split(" ")
        sources, targets = pair.split(">")
        for s in sources.split("/"):
            for t in targets.split("/"):
                out[(s, t)] = via
    return out


@pytest.mark.parametrize("backend", sorted(CHAINS))
def test_every_pair_gets_pyptos_chain_or_none(backend):
    edges = get_backend(backend).fact("native_tile_casts")
    listed = _listed(CHAINS[backend])
    for s in DTYPES:
        for t in DTYPES:
            if s is t or (s, t) in edges:
                assert cast_path(s, t, edges) == []
                continue
            chain = cast_path(s, t, edges)
            got = None if chain is None else ">".join("bfloat16" if d is D.BF16 else d.name.lower()
                                                      for d in chain[:-1])
            assert got == listed.get((s.name, t.name)), (backend, s, t)
