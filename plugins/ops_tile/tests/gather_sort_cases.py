"""Print / parse round-trip cases of the gather_sort DSL names (for test_dsl_roundtrip.CASES).

DSL name -> (body, the op call the printed text must contain). Bodies use test_dsl_roundtrip.PARAMS
(v, w: [16, 128] FP32 tiles; vi, wi: INT32 tiles; a, b: [64, 128] FP32 tensors; ai: INT32 tensor;
f: FP32 scalar; s: INT32 scalar). Entries for tile.gatherb / scatter / gather_compare / scatter_update
replace test_dsl_roundtrip's own cases of those names: PyPTO's operands (UINT32 offsets, kvalue, PyPTO's
argument orders).
"""

from __future__ import annotations

_OFF = "o = pl.tile.create([16, 8], dtype=pl.UINT32, target_memory=pl.Mem.Vec)"
_IDX = "ix = pl.tile.create([16, 128], dtype=pl.UINT32, target_memory=pl.Mem.Vec)"
_TIDX = "ti = pl.create_tensor([64, 128], dtype=pl.UINT32)"
_ROWS = "r = pl.tile.create([1, 16], dtype=pl.INT32, target_memory=pl.Mem.Vec)"
_TMP = "t = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)"
_U8 = "u = pl.tile.create([16, 128], dtype=pl.UINT8, target_memory=pl.Mem.Vec)"
_UP = "ui = pl.tile.create([2, 8], dtype=pl.INT32, target_memory=pl.Mem.Vec)"
_TUP = "tu = pl.create_tensor([2, 8], dtype=pl.INT32)\nsrc = pl.create_tensor([16, 128], dtype=pl.FP32)"
_PAGES = "pi = pl.create_tensor([1, 16], dtype=pl.INT32)\nbt = pl.create_tensor([1, 4], dtype=pl.INT32)"
_WIDE = "wd = pl.tile.create([16, 256], dtype=pl.FP32, target_memory=pl.Mem.Vec)"
_TWIDE = "twd = pl.create_tensor([64, 256], dtype=pl.FP32)"

CASES: dict[str, tuple[str, str]] = {
    # -- tile --
    "tile.MaskPattern": ("x = pl.tile.gather_mask(v, pl.tile.MaskPattern.P0101)", "pl.tile.gather_mask(v, mask_pattern=1)"),
    "tile.gather_mask": ("x = pl.tile.gather_mask(v, 'P0010', output_dtype=pl.INT32)",
                         "pl.tile.gather_mask(v, mask_pattern=4, output_dtype=pl.INT32)"),
    "tile.scatter_mask": (f"{_WIDE}\nx = pl.tile.scatter_mask(wd, v, pl.tile.MaskPattern.P1010)",
                          "pl.tile.scatter_mask(wd, v, mask_pattern=2)"),
    "tile.mgather": (f"{_ROWS}\nx = pl.tile.mgather(a, r)\ny = pl.tile.mgather(a, vi, 'elem', gather_oob='clamp')\n"
                     "ri = pl.create_tensor([1, 16], dtype=pl.INT32)\n"
                     "z = pl.tile.mgather(ta, ri, target_memory=pl.Mem.Mat, valid_shape=[8, 32])",
                     "pl.tile.mgather(ta, ri, [8, 32], target_memory=pl.Mem.Mat)"),
    "tile.mscatter": ("x = pl.tile.mscatter(v, vi, a)", "pl.tile.mscatter(v, vi, a)"),
    "tile.sort32": (f"{_IDX}\nx = pl.tile.sort32(v, ix)", "pl.tile.sort32(v, ix)"),
    "tile.mrgsort": (f"{_TMP}\nx = pl.tile.mrgsort(v, block_len=64)\ny = pl.tile.mrgsort(v, w, tmp=t, exhausted=True)",
                     "pl.tile.mrgsort_format2(v, w, t, exhausted=True)"),
    "tile.mrgsort_format1": ("x = pl.tile.mrgsort_format1(v, 128)", "pl.tile.mrgsort_format1(v, 128)"),
    "tile.mrgsort_format2": (f"{_TMP}\nt4 = pl.tile.create([16, 512], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                             "x = pl.tile.mrgsort_format2(v, w, v, w, t4)", "pl.tile.mrgsort_format2(v, w, v, w, t4)"),
    "tile.gatherb": (f"{_OFF}\nx = pl.tile.gatherb(v, o, output_dtype=pl.INT32)",
                     "pl.tile.gatherb(v, o, output_dtype=pl.INT32)"),
    "tile.scatter": ("x = pl.tile.scatter(v, w, wi)", "pl.tile.scatter(v, w, wi)"),
    "tile.gather_compare": (f"{_U8}\nd, c = pl.tile.gather_compare(v, 0.5, u, cmp_mode='gt', offset=3, out_cols=32, "
                            "count_dtype=pl.UINT32)",
                            "pl.tile.gather_compare(v, 0.5, u, cmp_mode=4, offset=3, out_cols=32, count_dtype=pl.UINT32)"),
    "tile.scatter_update": (f"{_UP}\nx = pl.tile.scatter_update(w, -2, ui, v)\ny = pl.tile.scatter_update(w, ui, v, dim=0)",
                            "pl.tile.scatter_update(w, ui, v, dim=0)"),
    # -- tensor --
    "tensor.gather": ("x = pl.tensor.gather(a, 1, ai)\ny = pl.tensor.gather(a, mask_pattern=7)",
                      "pl.tensor.gather(a, ai, dim=1)"),
    "tensor.gather_mask": ("x = pl.tensor.gather_mask(a, pl.tile.MaskPattern.P1000)",
                           "pl.tensor.gather_mask(a, mask_pattern=6)"),
    "tensor.gather_compare": ("p = pl.tensor.gather_compare(a, f, cmp_mode='ge', out_cols=16)\nd = p[0]",
                              "pl.tensor.gather_compare(a, f, cmp_mode=5, out_cols=16)"),
    "tensor.gather_row": ("x = pl.tensor.gather_row(b, a, [0, 0], [s, 0], [4, 128], valid_shape=[2, 128])",
                          "pl.tensor.gather_row(b, a, [0, 0], [s, 0], [4, 128], [2, 128])"),
    "tensor.paged_gather": (f"{_PAGES}\nx = pl.tensor.paged_gather(a, pi, bt, 16, 64, 16, col_off=32, "
                            "space=pl.Mem.Vec)",
                            "pl.tensor.paged_gather(a, pi, bt, block_size=16, size=64, max_indices=16, col_off=32, "
                            "space=pl.Mem.Vec)"),
    "tensor.scatter": ("x = pl.tensor.scatter(a, 1, ai, b)\ny = pl.tensor.scatter(a, mask_pattern=7, dst=b)",
                       "pl.tensor.scatter(a, ai, b, dim=1)"),
    "tensor.scatter_mask": (f"{_TWIDE}\nx = pl.tensor.scatter_mask(a, twd, mask_pattern=1)",
                            "pl.tensor.scatter_mask(a, twd, mask_pattern=1)"),
    "tensor.scatter_update": (f"{_TUP}\nx = pl.tensor.scatter_update(a, -2, tu, src)",
                              "pl.tensor.scatter_update(a, tu, src, dim=-2)"),
    "tensor.sort32": (f"{_TIDX}\nx = pl.tensor.sort32(a, ti)", "pl.tensor.sort32(a, ti)"),
    "tensor.mrgsort": ("x = pl.tensor.mrgsort(a, block_len=64)\ny = pl.tensor.mrgsort(a, b, exhausted=True)",
                       "pl.tensor.mrgsort_format2(a, b, exhausted=True)"),
    "tensor.mrgsort_format1": ("x = pl.tensor.mrgsort_format1(a, 64)", "pl.tensor.mrgsort_format1(a, 64)"),
    "tensor.mrgsort_format2": ("x = pl.tensor.mrgsort_format2(a, b, a)", "pl.tensor.mrgsort_format2(a, b, a)"),
    # -- top level --
    "gather": ("x = pl.gather(v, vi, w)\ny = pl.gather(a, 0, ai)\nz = pl.gather(v, mask_pattern=2)",
               "pl.tensor.gather(a, ai, dim=0)"),
    "scatter": ("x = pl.scatter(v, w, wi)\ny = pl.scatter(a, -1, ai, b)", "pl.tile.scatter(v, w, wi)"),
    "scatter_update": (f"{_UP}\nx = pl.scatter_update(w, ui, v)", "pl.tile.scatter_update(w, ui, v, dim=-2)"),
    "gather_row": ("x = pl.gather_row(col, a, [0, 0], [0, 5], [1, 16], True)\n"
                   "y = pl.gather_row(b, a, [0, 0], [s, 0], [1, 128])",
                   "pl.tile.gather_row(col, a, [0, 0], [0, 5], [1, 16], transpose=True)"),
    "sort32": (f"{_IDX}\nx = pl.sort32(v, ix)", "pl.tile.sort32(v, ix)"),
    "mrgsort": (f"{_TMP}\nx = pl.mrgsort(v, w, tmp=t)\ny = pl.mrgsort(a, block_len=128)",
                "pl.tensor.mrgsort_format1(a, 128)"),
    "gatherb": (f"{_OFF}\nx = pl.gatherb(v, o)", "pl.tile.gatherb(v, o)"),
    "gather_compare": (f"{_U8}\np = pl.gather_compare(v, f, u, out_cols=8, count_dtype=pl.UINT32)\nd = p[0]",
                       "pl.tile.gather_compare(v, f, u, cmp_mode=0, out_cols=8, count_dtype=pl.UINT32)"),
    "mgather": (f"{_ROWS}\nx = pl.mgather(a, r, 'row')", "pl.tile.mgather(a, r)"),
    "mscatter": ("x = pl.mscatter(v, vi, a)", "pl.tile.mscatter(v, vi, a)"),
    "paged_gather": (f"{_PAGES}\nx = pl.paged_gather(a, pi, bt, 16, 128, 16, is_trans=True)",
                     "pl.tensor.paged_gather(a, pi, bt, block_size=16, size=128, max_indices=16, is_trans=True)"),
}
