"""Print / parse round-trip cases of the views_alloc DSL names (to be merged into test_dsl_roundtrip.CASES).

DSL name -> (body, the op call the printed text must contain). The body may use the parameters of
test_dsl_roundtrip.PARAMS (v, w: [16, 128] FP32 Vec tiles; vi: INT32 tile; a, b: [64, 128] FP32 tensors;
ai: INT32 tensor; acc: [16, 32] FP32 Acc tile; s: INT32 scalar).
"""

from __future__ import annotations

_PART = "p = pl.tile.set_validshape(v, 8, 100)"
_PART_T = "q = pl.tensor.set_validshape(a, 40, 100)"

CASES: dict[str, tuple[str, str]] = {
    "tile.alloc": ("x = pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)", "pl.tile.alloc(pl.Mem.Vec, 16384, pinned=True)"),
    "tensor.alloc": ("x = pl.tensor.alloc(pl.Mem.DDR, 4096)", "pl.tensor.alloc(pl.Mem.DDR, 4096)"),
    "tile.tri": ("x = pl.tile.tri(s, [16, 16], [8, 16], dtype=pl.FP32, upper=True)",
                 "pl.tile.tri(s, [16, 16], [8, 16], dtype=pl.FP32, upper=True)"),
    "tri": ("x = pl.tri(-1, [16, 32])", "pl.tile.tri(-1, [16, 32], dtype=pl.INT32, upper=False)"),
    "tile.concat": ("x = pl.tile.concat(v, w)", "pl.tile.concat(v, w)"),
    "tensor.concat": ("x = pl.tensor.concat(a, b)", "pl.tensor.concat(a, b)"),
    "concat": ("x = pl.concat(v, w)\ny = pl.concat(a, b)", "pl.tensor.concat(a, b)"),
    "tile.fillpad": (f"{_PART}\nx = pl.tile.fillpad(p, pad_value=pl.PadValue.min)",
                     "pl.tile.fillpad(p, pad_value=pl.PadValue.min)"),
    "tile.fillpad_inplace": (f"{_PART}\nx = pl.tile.fillpad_inplace(p)",
                             "pl.tile.fillpad_inplace(p, pad_value=pl.PadValue.zero)"),
    "tile.fillpad_expand": (f"{_PART}\nx = pl.tile.fillpad_expand(p, [32, 128], pl.PadValue.max)",
                            "pl.tile.fillpad_expand(p, [32, 128], pad_value=pl.PadValue.max)"),
    "tensor.fillpad": (f"{_PART_T}\nx = pl.tensor.fillpad(q)", "pl.tensor.fillpad(q, pad_value=pl.PadValue.zero)"),
    "tensor.fillpad_expand": (f"{_PART_T}\nx = pl.tensor.fillpad_expand(q, [64, 256])",
                              "pl.tensor.fillpad_expand(q, [64, 256], pad_value=pl.PadValue.zero)"),
    "fillpad": (f"{_PART}\n{_PART_T}\nx = pl.fillpad(p)\ny = pl.fillpad(q, pad_value=pl.PadValue.max)",
                "pl.tensor.fillpad(q, pad_value=pl.PadValue.max)"),
    "fillpad_expand": (f"{_PART}\n{_PART_T}\nx = pl.fillpad_expand(p, [16, 256])\ny = pl.fillpad_expand(q, [64, 128])",
                       "pl.tile.fillpad_expand(p, [16, 256], pad_value=pl.PadValue.zero)"),
    "tensor.set_validshape": (_PART_T, "pl.tensor.set_validshape(a, 40, 100)"),
    "set_validshape": ("x = pl.set_validshape(v, 8, 64)\ny = pl.set_validshape(a, s, 64)",
                       "pl.tensor.set_validshape(a, s, 64)"),
    "tensor.view": ("x = pl.tensor.view(a, [128, 64])\ny = pl.tensor.view(a, layout=pl.TensorLayout.DN)",
                    "pl.tensor.view(a, layout=pl.TensorLayout.DN)"),
    "tensor.reshape": ("x = pl.tensor.reshape(a, [128, 64])\ny = pl.tensor.reshape(a, [128, 64], [100, 64])",
                       "pl.tensor.reshape(a, [128, 64], [100, 64])"),
    "tensor.create_l1": ("x = pl.tensor.create_l1([64, 64], pl.FP16, transpose=True)",
                         "pl.tensor.create_l1([64, 64], dtype=pl.FP16, transpose=True)"),
    "create_l1": ("x = pl.create_l1([64, 64], pl.BF16)", "pl.tensor.create_l1([64, 64], dtype=pl.BF16)"),
    "tensor.ci": ("x = pl.tensor.ci(0, [1, 64], descending=True)",
                  "pl.tensor.ci(pl.const(0, pl.INT32), [1, 64], dtype=pl.INT32, descending=True)"),
    "tensor.arange": ("x = pl.tensor.arange(5, [1, 64], pl.UINT32)",
                      "pl.tensor.ci(pl.const(5, pl.UINT32), [1, 64], dtype=pl.UINT32)"),
    "arange": ("x = pl.arange(5, [1, 32], dtype=pl.INT16)", "pl.tensor.ci(pl.const(5, pl.INT16), [1, 32], dtype=pl.INT16)"),
    "tile.arange": ("x = pl.tile.arange(2, [1, 64])", "pl.tile.ci(pl.const(2, pl.INT32), [1, 64], dtype=pl.INT32"),
    "tile.create_tile": ("x = pl.tile.create_tile([16, 16], pl.FP16, pl.Mem.Mat, True)",
                         "pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Mat, transpose=True)"),
    "create_tile": ("x = pl.create_tile([16, 16], pl.FP32)", "pl.tile.create([16, 16], dtype=pl.FP32"),
    "tensor.create_tensor": ("x = pl.tensor.create_tensor([16, 16], pl.FP32)", "pl.tensor.create([16, 16]"),
    "tensor.random": ("x = pl.tensor.random(1, 2, s, 0, 0, 0, [16, 64], rounds=7)",
                      "pl.tensor.random(1, 2, s, 0, 0, 0, [16, 64], dtype=pl.UINT32, rounds=7)"),
    "random": ("x = pl.random(1, 2, 3, 4, 5, 6, [16, 64], pl.INT32)",
               "pl.tensor.random(1, 2, 3, 4, 5, 6, [16, 64], dtype=pl.INT32)"),
}
