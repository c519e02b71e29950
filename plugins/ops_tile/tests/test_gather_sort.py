"""Gathers, scatters and sorts (the gather, gm_gather, scatter and sort families): type rules and their errors,
registry facts, DSL round trips, `pl.tile.MaskPattern` as a value, and machine results against numpy formulas.

Kernel-sized programs of every op (as written and after the default pipeline) are in
tests/pypto_corpus/test_gather_sort_kernels.py; here each op is checked at the call level.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import pypto.language as pl
from pypto import ir
from pypto.ir.op import tensor_ops as TT
from pypto.ir.op import tile_ops as T
from pypto_core.interp import run_program
from pypto_core.interp.errors import MachineError
from pypto_core.ops.opdef import Effect
from pypto_core.ops.registry import get_opdef, op_registry

from .gather_sort_cases import CASES
from .helpers import dims, scalar, shape_of, tensor, tile, valid_of
from .test_dsl_roundtrip import program

FP32, FP16, INT32, INT16, UINT32, UINT8 = pl.FP32, pl.FP16, pl.INT32, pl.INT16, pl.UINT32, pl.UINT8
Vec, Mat = pl.Mem.Vec, pl.Mem.Mat
MP = pl.tile.MaskPattern


# -- type deduction --------------------------------------------------------------------------------
def _gm(shape: list[int], dtype: Any = FP32) -> ir.Var:
    return tensor(shape, dtype)


DEDUCED: dict[str, tuple[Callable[[], Any], list[int], Any]] = {
    "mgather_rows": (lambda: T.mgather(_gm([64, 32]), tile([1, 16], INT32)), [16, 32], FP32),
    "mgather_rows_column_index": (lambda: T.mgather(_gm([8, 4, 32]), tile([16, 1], INT32)), [16, 32], FP32),
    "mgather_elements": (lambda: T.mgather(_gm([100], INT32), tile([4, 16], INT32), "elem"), [4, 16], INT32),
    "mgather_mat": (lambda: T.mgather(_gm([64, 32], FP16), _gm([1, 16], INT32), target_memory=Mat), [16, 32], FP16),
    "mscatter": (lambda: T.mscatter(tile([4, 16]), tile([4, 16], INT32), _gm([256])), [256], FP32),
    "gather_mask_half": (lambda: T.gather_mask(tile([8, 64]), MP.P1010), [8, 32], FP32),
    "gather_mask_quarter": (lambda: T.gather_mask(tile([8, 64], INT16), MP.P0100, output_dtype=FP16), [8, 16], FP16),
    "gather_mask_all": (lambda: T.gather_mask(tile([8, 64]), MP.P1111), [8, 64], FP32),
    "scatter_mask": (lambda: T.scatter_mask(tile([8, 128]), tile([8, 32]), MP.P0001), [8, 128], FP32),
    "sort32": (lambda: T.sort32(tile([4, 64]), tile([4, 64], UINT32)), [4, 128], FP32),
    "mrgsort_format1": (lambda: T.mrgsort_format1(tile([1, 256], FP16), 64), [1, 256], FP16),
    "mrgsort_format2": (lambda: T.mrgsort_format2(tile([1, 64]), tile([1, 32]), tile([1, 128])), [1, 128], FP32),
    "mrgsort_format2_4way": (lambda: T.mrgsort_format2(*(tile([2, 64]) for _ in range(4)), tile([2, 256])),
                             [2, 256], FP32),
    "gatherb": (lambda: T.gatherb(tile([8, 64]), tile([2, 16], UINT32)), [2, 128], FP32),
    "gatherb_bytes": (lambda: T.gatherb(tile([8, 64]), tile([2, 8], UINT32), output_dtype=pl.INT8), [2, 256],
                      pl.INT8),
    "tensor.gather": (lambda: TT.gather(_gm([16, 64]), _gm([8, 32], INT32), dim=1), [8, 32], FP32),
    "tensor.gather_mask": (lambda: TT.gather_mask(_gm([16, 64]), mask_pattern=1), [16, 32], FP32),
    "tensor.paged_gather": (lambda: TT.paged_gather(_gm([128, 64]), _gm([16], INT32), _gm([1, 8], INT32), 16, 32, 24),
                            [24, 32], FP32),
    "tensor.paged_gather_trans": (lambda: TT.paged_gather(_gm([128, 64]), _gm([16], INT32), _gm([8], INT32), 16, 64,
                                                          16, is_trans=True), [64, 16], FP32),
    "tensor.scatter": (lambda: TT.scatter(_gm([8, 64]), -1, _gm([8, 16], INT32), _gm([8, 16])), [8, 64], FP32),
    "tensor.scatter_mask": (lambda: TT.scatter_mask(_gm([8, 16]), _gm([8, 64]), MP.P1000), [8, 64], FP32),
    "tensor.scatter_update": (lambda: TT.scatter_update(_gm([32, 4, 1, 8], FP16), _gm([2, 4], INT32),
                                                        _gm([2, 4, 1, 8], FP16)), [32, 4, 1, 8], FP16),
    "tensor.sort32": (lambda: TT.sort32(_gm([2, 64], FP16), _gm([2, 64], UINT32)), [2, 128], FP16),
    "tensor.mrgsort_format1": (lambda: TT.mrgsort_format1(_gm([1, 256]), 64), [1, 256], FP32),
    "tensor.mrgsort_format2": (lambda: TT.mrgsort_format2(_gm([2, 64]), _gm([2, 32]), _gm([2, 32])), [2, 128], FP32),
}


@pytest.mark.parametrize("case", sorted(DEDUCED))
def test_result_type(case):
    build, shape, dtype = DEDUCED[case]
    call = build()
    assert shape_of(call) == shape and call.type.dtype is dtype


def test_result_details():
    mat = T.mgather(_gm([64, 32], FP16), _gm([1, 16], INT32), target_memory=Mat, valid_shape=[8, 32])
    assert mat.type.memory_space is Mat and valid_of(mat) == [8, 32]
    assert T.mgather(_gm([64, 32]), tile([1, 16], INT32)).type.memory_space is Vec
    ragged = T.mgather(_gm([100]), tile([4, 16], INT32, valid=[3, 16]), "elem")
    assert valid_of(ragged) == [3, 16]
    dst = tile([8, 128])
    assert T.scatter_mask(dst, tile([8, 64]), MP.P0101).type == dst.type
    d, c = TT.gather_compare(_gm([16, 64]), ir.ConstFloat(0.5, FP32), cmp_mode=0, out_cols=8,
                             count_dtype=UINT32).type.types
    assert (dims(d.shape), d.dtype, dims(c.shape), c.dtype) == ([16, 8], INT32, [1, 16], UINT32)
    acc = _gm([16, 64])
    assert TT.gather_row(acc, _gm([128, 64]), [0, 0], [scalar(), 0], [4, 64]).type == acc.type


def test_audited_index_ops_take_pyptos_operands():
    d, c = T.gather_compare(tile([16, 128]), 0.5, tile([16, 128], UINT8), out_cols=32).type.types
    assert d.dtype is INT32 and c.dtype is INT32 and dict(
        T.gather_compare(tile([16, 128]), 0.5, tile([16, 128], UINT8), out_cols=32).kwargs)["cmp_mode"] == 0
    assert shape_of(T.gather(tile([8, 64]), tile([16, 1], INT32, valid=[9, 1]), tile([16, 1]))) == [16, 1]
    assert valid_of(T.gather(tile([8, 64]), tile([16, 1], INT32, valid=[9, 1]), tile([16, 1]))) == [16, 1]
    four = T.scatter_update(tile([8, 4, 1, 32], FP16), tile([2, 4], INT32), tile([2, 4, 1, 32], FP16))
    assert shape_of(four) == [8, 4, 1, 32]
    assert [a.name for a in get_opdef("tile.gatherb").args] == ["src", "offset"]
    assert [a.name for a in get_opdef("tile.scatter").args] == ["dst", "src", "indexes"]
    assert [a.name for a in get_opdef("tile.gather_compare").args] == ["src", "kvalue", "tmp"]
    assert [k.name for k in get_opdef("tile.gather_compare").kwargs] == ["cmp_mode", "offset", "out_cols",
                                                                          "count_dtype"]


ERRORS: dict[str, tuple[Callable[[], Any], type, str]] = {
    "mgather_dtype": (lambda: T.mgather(_gm([64, 32], pl.INT64), tile([1, 16], INT32)), TypeError,
                      "tile.mgather: mem is INT64; allowed dtypes: INT8"),
    "mgather_row_index_shape": (lambda: T.mgather(_gm([64, 32]), tile([4, 16], INT32)), TypeError,
                                r"row mode \(coalesce='row'\) takes a \[1, n\] index or \[n, 1\], got \[4, 16\]"),
    "mgather_index_dtype": (lambda: T.mgather(_gm([64, 32]), tile([1, 16], INT16)), TypeError,
                            "idx must be an INT32 2-D tile for target_memory=Vec"),
    "mgather_mat_tile_index": (lambda: T.mgather(_gm([64, 32], FP16), tile([1, 16], INT32), target_memory=Mat),
                               TypeError, "idx must be an INT32 2-D GM tensor for target_memory=Mat"),
    "mgather_mat_alignment": (lambda: T.mgather(_gm([64, 8], FP16), _gm([1, 16], INT32), target_memory=Mat),
                              TypeError, r"rows % 16 == 0 and cols % 16 == 0 \(FP16\), got \[16, 8\]"),
    "mgather_mat_elem_scratch": (lambda: T.mgather(_gm([64, 32], FP16), _gm([16, 16], INT32), "elem",
                                                   target_memory=Mat), TypeError, "needs a GM scratch tensor"),
    "mgather_small_scratch": (lambda: T.mgather(_gm([64, 32], FP16), _gm([16, 16], INT32), "elem",
                                                target_memory=Mat, scratch=_gm([64], FP16)), TypeError,
                              "scratch must be FP16 with at least 256 elements"),
    "mgather_coalesce": (lambda: T.mgather(_gm([64, 32]), tile([1, 16], INT32), "column"), ValueError,
                         "coalesce must be one of 'row', 'elem'"),
    "mscatter_shape": (lambda: T.mscatter(tile([4, 16]), tile([4, 8], INT32), _gm([256])), TypeError,
                       r"idx \[4, 8\] must have src's static shape \[4, 16\]"),
    "mscatter_dtype": (lambda: T.mscatter(tile([4, 16]), tile([4, 16], INT32), _gm([256], FP16)), TypeError,
                       "output_tensor is FP16 but src is FP32"),
    "gather_mask_pattern": (lambda: T.gather_mask(tile([8, 64]), 9), ValueError,
                            "mask_pattern must be one of"),
    "gather_mask_width": (lambda: T.gather_mask(tile([8, 30]), MP.P0001), TypeError,
                          r"source width 30 is not a multiple of 4 \(mask_pattern 3\)"),
    "gather_mask_bits": (lambda: T.gather_mask(tile([8, 64]), MP.P0101, output_dtype=FP16), TypeError,
                         "output_dtype FP16 must have the source's bit width"),
    "scatter_mask_cols": (lambda: T.scatter_mask(tile([8, 100]), tile([8, 32]), MP.P0101), TypeError,
                          "dst has 100 columns but mask_pattern 1 needs src columns x 2 = 64"),
    "sort32_dtype": (lambda: T.sort32(tile([4, 64], INT32), tile([4, 64], UINT32)), TypeError,
                     "tile.sort32: src is INT32; allowed dtypes: FP16, FP32"),
    "sort32_idx_shape": (lambda: T.sort32(tile([4, 64]), tile([4, 32], UINT32)), TypeError,
                         r"idx \[4, 32\] must have src's shape \[4, 64\]"),
    "mrgsort_block_len": (lambda: T.mrgsort_format1(tile([1, 256]), 48), ValueError,
                          "block_len must be a positive multiple of 64"),
    "mrgsort_tmp_small": (lambda: T.mrgsort_format2(tile([1, 64]), tile([1, 64]), tile([1, 64])), TypeError,
                          "the sources hold 128 elements per row but tmp has room for 64"),
    "mrgsort_mixed_dtypes": (lambda: T.mrgsort_format2(tile([1, 64]), tile([1, 64], FP16), tile([1, 128])),
                             TypeError, "source 1 is FP16 but source 0 is FP32"),
    "gatherb_offset_dtype": (lambda: T.gatherb(tile([8, 64]), tile([2, 8], INT32)), TypeError,
                             "offset must be UINT32 byte offsets, got INT32"),
    "gatherb_offset_cols": (lambda: T.gatherb(tile([8, 64]), tile([2, 6], UINT32)), TypeError,
                            "multiple of 8"),
    "gather_index_width": (lambda: T.gather(tile([8, 64]), tile([1, 8], INT16), tile([1, 8])), TypeError,
                           "indices must be INT32 \\(INT16 only with 16-bit data\\), got INT16 for FP32"),
    "scatter_index_width": (lambda: T.scatter(tile([8, 64], FP16), tile([8, 8], FP16), tile([8, 8], INT32)),
                            TypeError, "indexes must be a 16-bit integer for FP16 data, got INT32"),
    "gather_compare_kvalue": (lambda: T.gather_compare(tile([16, 128]), ir.ConstInt(1, INT32), tile([16, 128], UINT8),
                                                       out_cols=8), TypeError,
                              "kvalue is INT32 but must be the source dtype FP32"),
    "gather_row_valid": (lambda: T.gather_row(tile([16, 64]), _gm([64, 64]), [0, 0], [0, 0], [1, 64],
                                              valid_shape=[2, 64]), ValueError,
                         r"valid_shape \[2, 64\] must lie within shapes \[1, 64\]"),
    "tensor.gather_dim": (lambda: TT.gather(_gm([16, 64]), _gm([8, 32], INT32)), ValueError,
                          "tensor.gather: dim is required"),
    "tensor.gather_extent": (lambda: TT.gather(_gm([16, 64]), _gm([32, 32], INT32), dim=1), TypeError,
                             "index extent 32 on dim 0 exceeds input's 16"),
    "tensor.gather_compare_mode": (lambda: TT.gather_compare(_gm([16, 64]), ir.ConstFloat(0.5, FP32), out_cols=8),
                                   ValueError, "cmp_mode 0..5"),
    "tensor.paged_gather_window": (lambda: TT.paged_gather(_gm([128, 64]), _gm([16], INT32), _gm([8], INT32), 16,
                                                           48, 16, col_off=32), ValueError,
                                   "col_off 32 \\+ size 48 must lie within src's 64 columns"),
    "tensor.paged_gather_trans_space": (lambda: TT.paged_gather(_gm([128, 64]), _gm([16], INT32), _gm([8], INT32),
                                                                16, 64, 16, is_trans=True, space=Vec), ValueError,
                                        "is_trans needs space=Mat"),
    "tensor.scatter_dim": (lambda: TT.scatter(_gm([8, 64]), 0, _gm([8, 16], INT32), _gm([8, 16])), ValueError,
                           "dim must be the last axis"),
    "tensor.sort32_width": (lambda: TT.sort32(_gm([2, 48]), _gm([2, 48], UINT32)), TypeError,
                            "last dim must be a static multiple of 32"),
    "tensor.sort32_idx": (lambda: TT.sort32(_gm([2, 64]), _gm([2, 64], INT32)), TypeError, "idx must be UINT32"),
    "tensor.mrgsort_rows": (lambda: TT.mrgsort_format2(_gm([2, 64]), _gm([4, 64])), TypeError,
                            "must agree on all but the last dim"),
    "tensor.scatter_update_4d": (lambda: TT.scatter_update(_gm([32, 4, 1, 8]), _gm([2, 4], INT32),
                                                           _gm([2, 4, 2, 8])), TypeError,
                                 r"a 4-D src must be \[b, s, 1, d\]"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_type_errors(case):
    build, exc, match = ERRORS[case]
    with pytest.raises(exc, match=match):
        build()


# -- registry facts --------------------------------------------------------------------------------
def test_effects():
    mgather = get_opdef("tile.mgather")
    assert mgather.arg_effects({"target_memory": Mat, "coalesce": 1}) == {2: Effect.WRITE}
    assert mgather.arg_effects({"target_memory": Mat}) == {} and mgather.arg_effects({"coalesce": 1}) == {}
    assert get_opdef("tile.mscatter").arg_effects({}) == {2: Effect.WRITE}
    for name in ("tile.scatter_mask", "tile.scatter", "tile.scatter_update", "tile.gather_row"):
        assert get_opdef(name).arg_effect(0, {}) is Effect.READ_WRITE, name
    for name in ("tile.gather_mask", "tile.sort32", "tile.mrgsort_format1", "tile.mrgsort_format2"):
        assert get_opdef(name).arg_effects({}) == {}, name
    assert get_opdef("tile.mgather").retarget_kwarg.name == "target_memory"
    assert get_opdef("tile.mscatter").input_memory == {0: (Vec,), 1: (Vec,)}


def test_every_op_has_a_doc_and_an_evaluator():
    names = ["tile.mgather", "tile.mscatter", "tile.gather_mask", "tile.scatter_mask", "tile.sort32",
             "tile.mrgsort_format1", "tile.mrgsort_format2", *(f"tensor.{n}" for n in (
                 "gather", "gather_compare", "gather_mask", "gather_row", "paged_gather", "scatter", "scatter_mask",
                 "scatter_update", "sort32", "mrgsort_format1", "mrgsort_format2"))]
    for name in names:
        opdef = get_opdef(name)
        assert opdef.doc and opdef.evaluate is not None, name
        if name.startswith("tensor."):
            assert op_registry().implementation("tile_form", name) is not None, name


# -- DSL -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_print_parse_roundtrip(name: str):
    body, expected_call = CASES[name]
    parsed = pl.parse(program(body))
    text = ir.python_print(parsed)
    assert expected_call in text, text
    reparsed = pl.parse(text)
    ir.assert_structural_equal(parsed, reparsed)
    assert ir.python_print(reparsed) == text


def test_mask_pattern_members():
    assert {m.name: int(m) for m in MP} == {"P0101": 1, "P1010": 2, "P0001": 3, "P0010": 4, "P0100": 5,
                                            "P1000": 6, "P1111": 7}


def test_mask_pattern_held_in_a_python_variable():
    pattern = pl.tile.MaskPattern.P0100

    @pl.function
    def f(x: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec]) -> pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec]:
        y = pl.tile.gather_mask(x, pattern)
        n: pl.Scalar[pl.INT32] = pattern
        return y

    text = ir.python_print(f)
    assert "pl.tile.gather_mask(x, mask_pattern=5)" in text
    ir.assert_structural_equal(pl.parse(text), f)


def test_mask_pattern_on_the_text_path():
    src = textwrap.dedent("""
        import pypto.language as pl
        PATTERN = pl.tile.MaskPattern.P1111

        @pl.function
        def f(x: pl.Tensor[[16, 64], pl.FP32]) -> pl.Tensor[[16, 64], pl.FP32]:
            y = pl.tensor.gather(x, mask_pattern=PATTERN)
            return y
    """)
    assert "pl.tensor.gather_mask(x, mask_pattern=7)" in ir.python_print(pl.parse(src))


def test_dsl_errors():
    from pypto_core.language.parser.errors import InvalidOperationError

    bad = {
        "x = pl.tile.mrgsort(v, w)": "2-4 sorted sources and tmp=",
        "x = pl.gather(a, a, a)": "works on tiles; load the tensor into a tile first",
        "x = pl.tile.gather_mask(v, 'P0202')": "mask_pattern must be one of",
        "x = pl.scatter(a, mask_pattern=1)": "a mask scatter needs dst=",
        "x = pl.mrgsort(a, b, tmp=a)": "a tensor merge sort takes no tmp",
    }
    for body, message in bad.items():
        with pytest.raises(InvalidOperationError, match=message):
            pl.parse(program(body))


# -- machine results (numpy formulas written here) -------------------------------------------------
def _run(body: str, params: str, inputs: dict[str, Any]) -> Any:
    text = ("import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def main(self, "
            f"{params}):\n" + textwrap.indent(textwrap.dedent(body).strip(), " " * 8) + "\n")
    return run_program(pl.parse(text), inputs)


def test_machine_mgather_element_mode_into_mat_writes_the_scratch():
    table = np.arange(256, dtype=np.float16).reshape(16, 16)
    idx = np.random.default_rng(1).integers(0, 256, (16, 16)).astype(np.int32)
    scratch = np.zeros(256, np.float16)
    out = _run("""
        g = pl.tile.mgather(t, i, 'elem', target_memory=pl.Mem.Mat, scratch=sc)
        v = pl.move(g, target_memory=pl.Mem.Vec)
        o = pl.store(v, [0, 0], o)
        return o
    """, "t: pl.Tensor[[16, 16], pl.FP16], i: pl.Tensor[[16, 16], pl.INT32], sc: pl.InOut[pl.Tensor[[256], pl.FP16]], "
         "o: pl.Out[pl.Tensor[[16, 16], pl.FP16]]", {"t": table, "i": idx, "sc": scratch, "o": np.zeros((16, 16), np.float16)})
    np.testing.assert_array_equal(out["o"], table.reshape(-1)[idx])
    np.testing.assert_array_equal(out["sc"], table.reshape(-1)[idx].reshape(-1))


def test_machine_mgather_undefined_oob_is_an_error():
    with pytest.raises(MachineError, match="index 40 at \\[0, 1\\] is outside a table of 32"):
        _run("""
            i = pl.load(ix, [0, 0], [1, 2])
            g = pl.tile.mgather(t, i, 'elem')
            o = pl.store(g, [0, 0], o)
            return o
        """, "t: pl.Tensor[[32], pl.FP32], ix: pl.Tensor[[1, 2], pl.INT32], o: pl.Out[pl.Tensor[[1, 2], pl.FP32]]",
             {"t": np.zeros(32, np.float32), "ix": np.array([[1, 40]], np.int32), "o": np.zeros((1, 2), np.float32)})


def test_machine_mscatter_out_of_range_is_an_error():
    with pytest.raises(MachineError, match="tile.mscatter: index 9 at \\[0, 1\\] is outside a tensor of 8"):
        _run("""
            s = pl.load(x, [0, 0], [1, 2])
            i = pl.load(ix, [0, 0], [1, 2])
            o = pl.mscatter(s, i, o)
            return o
        """, "x: pl.Tensor[[1, 2], pl.FP32], ix: pl.Tensor[[1, 2], pl.INT32], o: pl.InOut[pl.Tensor[[8], pl.FP32]]",
             {"x": np.ones((1, 2), np.float32), "ix": np.array([[1, 9]], np.int32), "o": np.zeros(8, np.float32)})


def test_machine_sort32_fp16_pairs_and_ties():
    x = np.array([[1, 3, 3, 2] * 8], np.float16)
    ids = np.arange(32, dtype=np.uint32)[None]
    out = _run("""
        y = pl.tensor.sort32(x, i)
        o = pl.assemble(o, y, [0, 0])
        return o
    """, "x: pl.Tensor[[1, 32], pl.FP16], i: pl.Tensor[[1, 32], pl.UINT32], o: pl.Out[pl.Tensor[[1, 64], pl.FP16]]",
        {"x": x, "i": ids, "o": np.zeros((1, 64), np.float16)})["o"]
    order = np.argsort(-x[0].astype(np.float64), kind="stable")
    np.testing.assert_array_equal(out[0, 0::2], x[0, order])
    np.testing.assert_array_equal(out[0, 1::2].view(np.uint16), order.astype(np.uint16))  # ties keep input order


def test_machine_gather_compare_indices_offset_and_counts():
    x = np.array([[0.1, 0.9, 0.7, 0.2], [0.8, 0.8, 0.0, 0.9]], np.float32)
    out = _run("""
        t = pl.load(a, [0, 0], [2, 4])
        u = pl.tile.create([2, 4], dtype=pl.UINT8, target_memory=pl.Mem.Vec)
        d, c = pl.tile.gather_compare(t, 0.5, u, cmp_mode='gt', offset=10, out_cols=2)
        o = pl.store(d, [0, 0], o)
        n = pl.store(c, [0, 0], n)
        return o
    """, "a: pl.Tensor[[2, 4], pl.FP32], o: pl.Out[pl.Tensor[[2, 2], pl.INT32]], n: pl.Out[pl.Tensor[[1, 2], pl.INT32]]",
        {"a": x, "o": np.zeros((2, 2), np.int32), "n": np.zeros((1, 2), np.int32)})
    np.testing.assert_array_equal(out["o"], [[11, 12], [10, 11]])  # capped at out_cols
    np.testing.assert_array_equal(out["n"], [[2, 2]])


def test_machine_format1_merges_a_short_tail_group():
    rng = np.random.default_rng(3)
    runs = []
    for k in range(2):  # two runs of 32 pairs: the group of four is short
        v = -np.sort(-rng.permutation(1000)[:32].astype(np.float32))
        run = np.empty(64, np.float32)
        run[0::2], run[1::2] = v, np.arange(32, dtype=np.uint32).view(np.float32) + k
        runs.append(run)
    x = np.concatenate(runs)[None]
    out = _run("""
        y = pl.tensor.mrgsort_format1(x, 64)
        o = pl.assemble(o, y, [0, 0])
        return o
    """, "x: pl.Tensor[[1, 128], pl.FP32], o: pl.Out[pl.Tensor[[1, 128], pl.FP32]]",
        {"x": x, "o": np.zeros((1, 128), np.float32)})["o"]
    both = x.reshape(-1, 2)
    want = both[np.argsort(-both[:, 0], kind="stable")].reshape(1, -1)
    np.testing.assert_array_equal(out, want)


# -- GM race check: mscatter / mgather report the elements they touch ------------------------------
LANES = """
import pypto.language as pl

@pl.program
class Lanes:
    @pl.function(type=pl.FunctionType.AIV)
    def k_aiv(a: pl.Tensor[[16, 16], pl.FP32], ix: pl.Tensor[[16, 16], pl.INT32], out: pl.InOut[pl.Tensor[[256], pl.FP32]],
              y: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        pl.func_attr({"split_aiv": True})
        sb: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        t: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.load(a, [sb * 8, 0], [8, 16])
        i: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.load(ix, [ROWS, 0], [8, 16])
        out = pl.mscatter(t, i, out)
        BACK

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(a: pl.Tensor[[16, 16], pl.FP32], ix: pl.Tensor[[16, 16], pl.INT32], out: pl.InOut[pl.Tensor[[256], pl.FP32]],
             y: pl.Out[pl.Tensor[[8, 16], pl.FP32]]):
        self.k_aiv(a, ix, out, y)
"""
READ_BACK = """if sb == 1:
            j: pl.Tile[[8, 16], pl.INT32, pl.Mem.Vec] = pl.load(ix, [0, 0], [8, 16])
            g: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.mgather(out, j, 'elem')
            y = pl.store(g, [0, 0], y)"""


def _lane_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(5)
    return {"a": rng.standard_normal((16, 16)).astype(np.float32),
            "ix": rng.permutation(256).reshape(16, 16).astype(np.int32),
            "out": np.zeros(256, np.float32), "y": np.zeros((8, 16), np.float32)}


def test_lanes_scattering_to_disjoint_elements_are_no_race():
    inputs = _lane_inputs()
    got = run_program(pl.parse(LANES.replace("ROWS", "sb * 8").replace("BACK", "pass")), inputs, entry="main")
    want = np.zeros(256, np.float32)
    want[inputs["ix"].reshape(-1)] = inputs["a"].reshape(-1)
    np.testing.assert_array_equal(got["out"], want)


def test_lanes_scattering_different_values_to_one_element_are_a_race():
    program = pl.parse(LANES.replace("ROWS", "0").replace("BACK", "pass"))
    with pytest.raises(MachineError, match=r"GM race on tensor 'out': the vector mscatter .* write different values"):
        run_program(program, _lane_inputs(), entry="main")


def test_a_lane_gathering_what_the_other_scattered_without_a_barrier_is_a_race():
    program = pl.parse(LANES.replace("ROWS", "sb * 8").replace("BACK", READ_BACK))
    with pytest.raises(MachineError, match="GM race on tensor 'out'"):
        run_program(program, _lane_inputs(), entry="main")


def test_index_ops_read_indices_only_in_the_valid_region():
    # The second index row is outside the loaded valid region (poison, far out of range): it addresses nothing.
    table = np.arange(32, dtype=np.float32)
    idx = np.array([[3, 1, 4, 1, 5, 9, 2, 6], [99, 99, 99, 99, 99, 99, 99, 99]], np.int32)
    out = _run("""
        i = pl.load(ix, [0, 0], [2, 8], valid_shape=[1, 8])
        g = pl.tile.mgather(t, i, 'elem')
        s = pl.load(x, [0, 0], [2, 8])
        tmp = pl.tile.create([2, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        h = pl.tile.gather(s, i, tmp)
        o = pl.store(pl.tile.slice(g, [1, 8], [0, 0]), [0, 0], o)
        p = pl.store(pl.tile.slice(h, [1, 8], [0, 0]), [0, 0], p)
        q = pl.mscatter(s, i, q)
        return o
    """, "t: pl.Tensor[[32], pl.FP32], x: pl.Tensor[[2, 8], pl.FP32], ix: pl.Tensor[[2, 8], pl.INT32], "
         "o: pl.Out[pl.Tensor[[1, 8], pl.FP32]], p: pl.Out[pl.Tensor[[1, 8], pl.FP32]], q: pl.InOut[pl.Tensor[[32], pl.FP32]]",
        {"t": table, "x": np.arange(16, dtype=np.float32).reshape(2, 8) + 100, "ix": idx,
         "o": np.zeros((1, 8), np.float32), "p": np.zeros((1, 8), np.float32), "q": np.zeros(32, np.float32)})
    np.testing.assert_array_equal(out["o"][0], table[idx[0]])
    np.testing.assert_array_equal(out["p"][0], (np.arange(16) + 100)[idx[0]])
    want = np.zeros(32, np.float32)
    want[idx[0]] = np.arange(8) + 100  # only the valid row is scattered (index 1 twice: the later wins)
    np.testing.assert_array_equal(out["q"], want)


# -- the split passes: rows of a merge are independent, its row is not ----------------------------
MERGE_SPLIT = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[32, 256], pl.FP32, pl.Mem.Acc], out: pl.Out[pl.Tensor[[32, 256], pl.FP32]]) -> pl.Tensor[[32, 256], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.MODE})
        t = pl.move(qk, target_memory=pl.Mem.Vec)
        m = pl.tile.mrgsort(t, block_len=64)
        o = pl.store(m, [0, 0], out)
        return o
'''


def test_a_merge_splits_by_rows_and_not_across_its_row():
    from pypto import passes
    from pypto_core.interp import make_inputs

    up_down = pl.parse(MERGE_SPLIT.replace("MODE", "UP_DOWN"))
    after = passes.lower_auto_vector_split()(up_down)
    assert "[16, 256]" in ir.python_print(after)  # each lane merges its own 16 rows
    inputs = make_inputs(up_down.get_function("k"), seed=2)
    np.testing.assert_array_equal(run_program(after, inputs, entry="k")["out"],
                                  run_program(up_down, inputs, entry="k")["out"])
    with pytest.raises(ValueError, match="reduce op 'tile.mrgsort_format1' reduces on the split axis"):
        passes.lower_auto_vector_split()(pl.parse(MERGE_SPLIT.replace("MODE", "LEFT_RIGHT")))
