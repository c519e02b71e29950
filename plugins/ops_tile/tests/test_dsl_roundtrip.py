"""Every DSL name of the plugin in a small program whose printed text re-parses to an equal program.

The printer writes `pl.tile.X(<IR operands>, <kwargs>)`; the DSL function of each op must accept exactly
that text, so print -> parse is the identity (docs/dsl.md, the text path and the printed form).
"""

from __future__ import annotations

import textwrap

import pytest

import pypto.language as pl
from pypto import ir
from pypto_plugins.ops_tile.common import names as ew

from . import elementwise_extra_cases, gather_sort_cases, system_matmul_cases, views_alloc_cases
from .test_broadcast_reduce import CASES as BROADCAST_REDUCE_CASES

# One signature for every case: the bodies below use what they need.
PARAMS = ", ".join([
    "a: pl.Tensor[[64, 128], pl.FP32]", "b: pl.Tensor[[64, 128], pl.FP32]", "ai: pl.Tensor[[64, 128], pl.INT32]",
    "col_t: pl.Tensor[[64, 1], pl.FP32]", "row_t: pl.Tensor[[1, 128], pl.FP32]",
    "ta: pl.Tensor[[64, 32], pl.FP16]", "tb: pl.Tensor[[32, 16], pl.FP16]", "tacc: pl.Tensor[[64, 16], pl.FP32]",
    "v: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec]", "w: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec]",
    "vi: pl.Tile[[16, 128], pl.INT32, pl.Mem.Vec]", "wi: pl.Tile[[16, 128], pl.INT32, pl.Mem.Vec]",
    "col: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec]", "row: pl.Tile[[1, 128], pl.FP32, pl.Mem.Vec]",
    "mat: pl.Tile[[64, 128], pl.FP16, pl.Mem.Mat]", "lhs: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left]",
    "rhs: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right]", "acc: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc]",
    "s: pl.Scalar[pl.INT32]", "f: pl.Scalar[pl.FP32]", "flag: pl.Scalar[pl.BOOL]",
])


def program(body: str) -> str:
    body = textwrap.indent(textwrap.dedent(body).strip(), " " * 8)
    return f"import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n    def main(self, {PARAMS}):\n" \
           f"{body}\n"


def _kw(name: str) -> str:
    return name + "_" if name in ("and", "or", "not") else name


INT_ONLY = set(ew.INTEGER_ONLY)

# DSL name -> (body, the op call the printed text must contain)
CASES: dict[str, tuple[str, str]] = {}
for _n in ew.BINARY:
    _t, _T = ("vi, wi", "ai, ai") if _n in INT_ONLY else ("v, w", "a, b")
    CASES[f"tile.{_kw(_n)}"] = (f"x = pl.tile.{_kw(_n)}({_t})", f"pl.tile.{_kw(_n)}(")
    CASES[f"tensor.{_kw(_n)}"] = (f"x = pl.tensor.{_kw(_n)}({_T})", f"pl.tensor.{_kw(_n)}(")
    CASES[_kw(_n)] = (f"x = pl.{_kw(_n)}({_t})\ny = pl.{_kw(_n)}({_T})", f"pl.tensor.{_kw(_n)}(")
for _n in ew.SCALAR:
    _t, _T = ("vi, 3", "ai, s") if _n[:-1] in INT_ONLY else ("v, 2.0", "a, f")
    CASES[f"tile.{_n}"] = (f"x = pl.tile.{_n}({_t})", f"pl.tile.{_n}(")
    CASES[f"tensor.{_n}"] = (f"x = pl.tensor.{_n}({_T})", f"pl.tensor.{_n}(")
    CASES[_n] = (f"x = pl.{_n}({_t})\ny = pl.{_n}({_T})", f"pl.tensor.{_n}(")
for _n in (*ew.UNARY, "recip", "rsqrt"):
    _t, _T = ("vi", "ai") if _n in INT_ONLY else ("v", "a")
    CASES[f"tile.{_kw(_n)}"] = (f"x = pl.tile.{_kw(_n)}({_t})", f"pl.tile.{_kw(_n)}(")
    CASES[f"tensor.{_kw(_n)}"] = (f"x = pl.tensor.{_kw(_n)}({_T})", f"pl.tensor.{_kw(_n)}(")
    CASES[_kw(_n)] = (f"x = pl.{_kw(_n)}({_t})\ny = pl.{_kw(_n)}({_T})", f"pl.tile.{_kw(_n)}(")
for _d in ("row", "col"):
    for _n in ("add", "sub", "mul", "div"):
        _name = f"{_d}_expand_{_n}"
        _vec, _tvec = ("col", "col_t") if _d == "row" else ("row", "row_t")
        CASES[f"tile.{_name}"] = (f"x = pl.tile.{_name}(v, {_vec})", f"pl.tile.{_name}(")
        CASES[f"tensor.{_name}"] = (f"x = pl.tensor.{_name}(a, {_tvec})", f"pl.tensor.{_name}(")
        CASES[_name] = (f"x = pl.{_name}(v, {_vec})\ny = pl.{_name}(a, {_tvec})", f"pl.tile.{_name}(")
for _n in ("row_sum", "row_max", "row_min"):
    CASES[f"tile.{_n}"] = (f"x = pl.tile.{_n}(v, w)", f"pl.tile.{_n}(")
    CASES[f"tensor.{_n}"] = (f"x = pl.tensor.{_n}(a)", f"pl.tensor.{_n}(")
    CASES[_n] = (f"x = pl.{_n}(v, w)\ny = pl.{_n}(a)", f"pl.tile.{_n}(")
for _n in ("col_sum", "col_max", "col_min"):
    CASES[f"tile.{_n}"] = (f"x = pl.tile.{_n}(v)\ny = pl.tile.{_n}(v, w)", f"pl.tile.{_n}(v, w)")
    CASES[f"tensor.{_n}"] = (f"x = pl.tensor.{_n}(a)", f"pl.tensor.{_n}(")
    CASES[_n] = (f"x = pl.{_n}(v)\ny = pl.{_n}(a)", f"pl.tensor.{_n}(")

# Matmul-family operands the shared signature does not have.
_BIAS = "bias = pl.tile.create([1, 32], dtype=pl.FP32, target_memory=pl.Mem.Bias)"
_ROW = "row_l = pl.tile.create([1, 64], dtype=pl.FP16, target_memory=pl.Mem.Left)"
_BATCH = ("bl = pl.tile.create([2, 16, 64], dtype=pl.FP16, target_memory=pl.Mem.Left)\n"
          "br = pl.tile.create([2, 64, 32], dtype=pl.FP16, target_memory=pl.Mem.Right)")

CASES.update({
    # -- data movement --
    "tile.load": ("t = pl.tile.load(a, [0, 0], [16, 128], [8, 128], target_memory=pl.Mem.Mat, clamp=True)",
                  "pl.tile.load(a, [0, 0], [16, 128], [8, 128], target_memory=pl.Mem.Mat, clamp=True)"),
    "load": ("t = pl.load(a, [16, 0], [16, 128])", "pl.tile.load(a, [16, 0], [16, 128], [16, 128], "),
    "tile.store": ("o = pl.tile.store(v, [0, 0], a, [8, 128], atomic=pl.AtomicType.Add)",
                   "pl.tile.store(v, [0, 0], a, [8, 128], atomic=pl.AtomicType.Add)"),
    "store": ("o = pl.store(v, [16, 0], a)", "pl.tile.store(v, [16, 0], a)"),
    "tile.move": ("t = pl.tile.move(mat, target_memory=pl.Mem.Left, blayout=pl.TileLayout.row_major)",
                  "pl.tile.move(mat, target_memory=pl.Mem.Left, blayout=pl.TileLayout.row_major)"),
    "move": ("t = pl.move(v, pl.Mem.Mat)", "pl.tile.move(v, target_memory=pl.Mem.Mat)"),
    "tile.extract": ("t = pl.tile.extract(mat, 16, 0, [16, 64], target_memory=pl.Mem.Left)",
                     "pl.tile.extract(mat, 16, 0, [16, 64], target_memory=pl.Mem.Left)"),
    "extract": ("t = pl.extract(mat, s, 0, [16, 64], target_memory=pl.Mem.Right)", "pl.tile.extract(mat, "),
    "tile.read": ("x = pl.tile.read(v, [1, s])", "pl.tile.read(v, [1, "),
    "read": ("x = pl.read(v, [1, 2])\ny = pl.read(a, [s, 0])", "pl.tensor.read(a, "),
    "tensor.read": ("x = pl.tensor.read(ai, [s, 3])", "pl.tensor.read(ai, ["),
    "tensor.write": ("pl.tensor.write(ai, [0, 1], 7)", "pl.tensor.write(ai, [0, 1], pl.const(7, pl.INT32))"),
    "tensor.expand_clone": ("src = pl.tensor.create([2, 1, 8], dtype=pl.FP32)\n"
                            "dst = pl.tensor.create([2, 4, 8], dtype=pl.FP32)\n"
                            "x = pl.tensor.expand_clone(src, dst)", "pl.tensor.expand_clone(src, dst)"),
    "expand_clone": ("src = pl.tensor.create([2, 4, 1], dtype=pl.FP16)\n"
                     "dst = pl.tensor.create([2, 4, 8], dtype=pl.FP32)\n"
                     "x = pl.expand_clone(src, dst)", "pl.tensor.expand_clone(src, dst)"),
    "tile.write": ("t = pl.tile.write(v, [0, 1], 2.5)", "pl.tile.write(v, [0, 1], 2.5)"),
    "write": ("t = pl.write(v, [0, 1], f)\nu = pl.write(a, [0, 1], 1.0)", "pl.tensor.write(a, [0, 1], 1.0)"),
    # -- generators --
    "tile.full": ("t = pl.tile.full([16, 128], dtype=pl.FP16, value=0)\nu = pl.tile.full([4, 4], pl.INT32, 7)\n"
                  "z = pl.tile.full([4, 4], dtype=pl.BOOL, value=True)",
                  "pl.tile.full([16, 128], dtype=pl.FP16, value=0.0)"),
    "tile.create": ("t = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Mat, transpose=True)",
                    "pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Mat, transpose=True)"),
    "tile.ci": ("t = pl.tile.ci(0, [1, 128], dtype=pl.INT32, descending=True)",
                "pl.tile.ci(pl.const(0, pl.INT32), [1, 128], dtype=pl.INT32, descending=True)"),
    "tile.random": ("t = pl.tile.random(1, 2, 0, 0, 0, s, [16, 128], [8, 128], rounds=7)",
                    "pl.tile.random(1, 2, 0, 0, 0, s, [16, 128], [8, 128], dtype=pl.UINT32, rounds=7)"),
    "full": ("t = pl.full([64, 128], dtype=pl.FP32, value=1.5)", "pl.tensor.full([64, 128], dtype=pl.FP32, value=1.5)"),
    "tensor.full": ("t = pl.tensor.full([8], dtype=pl.INT8, value=-3)", "pl.tensor.full([8], dtype=pl.INT8, value=-3)"),
    "tensor.create": ("t = pl.tensor.create([64, 64], pl.BF16, pl.TensorLayout.DN, True, 0.0)",
                      "pl.tensor.create([64, 64], dtype=pl.BF16, layout=pl.TensorLayout.DN, manual_dep=True, "
                      "init_value=0.0)"),
    "create_tensor": ("t = pl.create_tensor([64, 64], dtype=pl.FP32)",
                      "pl.tensor.create([64, 64], dtype=pl.FP32, layout=pl.TensorLayout.ND)"),
    # -- casts, compares, selects --
    "tile.cast": ("x = pl.tile.cast(v, pl.FP16, mode='floor')", "pl.tile.cast(v, target_type=pl.FP16, mode='floor')"),
    "tensor.cast": ("x = pl.tensor.cast(a, target_type=pl.INT32, mode='trunc')",
                    "pl.tensor.cast(a, target_type=pl.INT32, mode='trunc')"),
    "cast": ("x = pl.cast(v, pl.BF16)\ny = pl.cast(a, pl.FP16, mode='rint')", "pl.tile.cast(v, target_type=pl.BF16, mode='round')"),
    "sels": ("m = pl.cmp(v, w)\nx = pl.sels(m, v, w, 1.0)", "pl.tile.sels(m, v, w, 1.0)"),
    # -- views --
    "tile.slice": ("x = pl.tile.slice(v, [1, 64], [2, 0], [], [0])\ny = pl.tile.slice(v, [8, 64], [8, 64], [4, 64], "
                   "pad_value=pl.PadValue.zero)", "pl.tile.slice(v, [1, 64], [2, 0], [], [0])"),
    "tensor.slice": ("x = pl.tensor.slice(a, [16, 128], [60, 0], clamp=True)",
                     "pl.tensor.slice(a, [16, 128], [60, 0], clamp=True)"),
    "slice": ("x = pl.slice(v, [8, 128], [8, 0], [6, 128])\ny = pl.slice(a, [1, 128], [3, 0], drop_dims=[0])",
              "pl.tensor.slice(a, [1, 128], [3, 0], [], [0])"),
    "tile.reshape": ("x = pl.tile.reshape(v, [128, 16])", "pl.tile.reshape(v, [128, 16])"),
    "tensor.reshape": ("x = pl.tensor.reshape(a, [8192])", "pl.tensor.reshape(a, [8192])"),
    "reshape": ("x = pl.reshape(col, [1, 16])\ny = pl.reshape(a, [128, 64])", "pl.tile.reshape(col, [1, 16])"),
    "tile.reinterpret_view": ("x = pl.tile.reinterpret_view(v, dtype=pl.FP16)\n"
                              "y = pl.tile.reinterpret_view(v, dtype=pl.INT8, shape=[64, 128])",
                              "pl.tile.reinterpret_view(v, dtype=pl.INT8, shape=[64, 128])"),
    "tensor.reinterpret_view": ("x = pl.tensor.reinterpret_view(a, pl.INT32)",
                                "pl.tensor.reinterpret_view(a, dtype=pl.INT32)"),
    "reinterpret_view": ("x = pl.reinterpret_view(v, pl.BF16, shape=[16, 256])",
                         "pl.tile.reinterpret_view(v, dtype=pl.BF16, shape=[16, 256])"),
    "tile.transpose": ("x = pl.tile.transpose(v, 0, 1)\ny = pl.tile.transpose(v, 0, 1, w)",
                       "pl.tile.transpose(v, 0, 1, w)"),
    "tensor.transpose": ("x = pl.tensor.transpose(a, 1, 0)", "pl.tensor.transpose(a, 1, 0)"),
    "transpose": ("x = pl.transpose(v, 0, 1)\ny = pl.transpose(a, 0, -1)", "pl.tensor.transpose(a, 0, -1)"),
    "tile.transpose_view": ("x = pl.tile.transpose_view(row)", "pl.tile.transpose_view(row)"),
    "transpose_view": ("x = pl.transpose_view(v)", "pl.tile.transpose_view(v)"),
    "tile.set_validshape": ("x = pl.tile.set_validshape(v, 15, s)", "pl.tile.set_validshape(v, 15, "),
    "set_validshape": ("x = pl.set_validshape(v, 1, 64)", "pl.tile.set_validshape(v, 1, 64)"),
    "tile.assemble": ("x = pl.tile.assemble(v, col, [0, 5], atomic=pl.AtomicType.Add)",
                      "pl.tile.assemble(v, col, [0, 5], atomic=pl.AtomicType.Add)"),
    "tensor.assemble": ("x = pl.tensor.assemble(a, col_t, [0, 3])", "pl.tensor.assemble(a, col_t, [0, 3])"),
    "assemble": ("x = pl.assemble(v, row, [3, 0])\ny = pl.assemble(a, row_t, [s, 0])\na[0:1, 0:128] = row_t",
                 "pl.tensor.assemble(a, row_t, [0, 0])"),
    "tensor.dim": ("n = pl.tensor.dim(a, 1)", "pl.tensor.dim(a, 1)"),
    "dim": ("n = pl.dim(a, 0)", "pl.tensor.dim(a, 0)"),
    # -- reductions --
    "tile.row_argmax": ("x = pl.tile.row_argmax(v, w)", "pl.tile.row_argmax(v, w)"),
    "tensor.row_argmax": ("x = pl.tensor.row_argmax(a)", "pl.tensor.row_argmax(a)"),
    "row_argmax": ("x = pl.row_argmax(v, w)\ny = pl.row_argmax(a)", "pl.tensor.row_argmax(a)"),
    # -- matmul --
    "tile.matmul": ("c = pl.tile.matmul(lhs, rhs)", "pl.tile.matmul(lhs, rhs)"),
    "tile.matmul_acc": ("c = pl.tile.matmul_acc(acc, lhs, rhs, flag)", "pl.tile.matmul_acc(acc, lhs, rhs, flag)"),
    "tensor.matmul": ("c = pl.tensor.matmul(ta, tb, pl.FP32, c_matrix_nz=True)\n"
                      "d = pl.tensor.matmul(tb, ta, a_trans=True, b_trans=True)",
                      # the defaulted flags are recorded and print (recorded kwargs: docs/plugins.md, OpDef fields)
                      "pl.tensor.matmul(ta, tb, out_dtype=pl.FP32, a_trans=False, b_trans=False, c_matrix_nz=True)"),
    "tensor.matmul_acc": ("c = pl.tensor.matmul_acc(tacc, ta, tb)", "pl.tensor.matmul_acc(tacc, ta, tb)"),
    "matmul": ("c = pl.matmul(lhs, rhs)\nd = pl.matmul(ta, tb, out_dtype=pl.FP32)", "pl.tile.matmul(lhs, rhs)"),
    "matmul_acc": ("c = pl.matmul_acc(acc, lhs, rhs)\nd = pl.matmul_acc(tacc, ta, tb, b_trans=False)",
                   "pl.tensor.matmul_acc(tacc, ta, tb)"),
    "tile.matmul_bias": (f"{_BIAS}\nc = pl.tile.matmul_bias(lhs, rhs, bias)", "pl.tile.matmul_bias(lhs, rhs, bias)"),
    "matmul_bias": (f"{_BIAS}\nc = pl.matmul_bias(lhs, rhs, bias)", "pl.tile.matmul_bias(lhs, rhs, bias)"),
    "tile.gemv": (f"{_ROW}\nc = pl.tile.gemv(row_l, rhs)\nd = pl.tile.gemv(row_l, rhs, acc_phase='partial')",
                  "pl.tile.gemv(row_l, rhs, acc_phase='partial')"),
    "gemv": (f"{_ROW}\nc = pl.gemv(row_l, rhs, 'final')", "pl.tile.gemv(row_l, rhs, acc_phase='final')"),
    "tile.gemv_acc": (f"{_ROW}\nc = pl.tile.gemv(row_l, rhs)\nd = pl.tile.gemv_acc(c, row_l, rhs, acc_phase='final')",
                      "pl.tile.gemv_acc(c, row_l, rhs, acc_phase='final')"),
    "gemv_acc": (f"{_ROW}\nc = pl.gemv(row_l, rhs)\nd = pl.gemv_acc(c, row_l, rhs)", "pl.tile.gemv_acc(c, row_l, rhs)"),
    "tile.gemv_bias": (f"{_ROW}\n{_BIAS}\nc = pl.tile.gemv_bias(row_l, rhs, bias, acc_phase='partial')",
                       "pl.tile.gemv_bias(row_l, rhs, bias, acc_phase='partial')"),
    "gemv_bias": (f"{_ROW}\n{_BIAS}\nc = pl.gemv_bias(row_l, rhs, bias)", "pl.tile.gemv_bias(row_l, rhs, bias)"),
    "tile.batch_matmul": (f"{_BATCH}\nc = pl.tile.batch_matmul(bl, br)", "pl.tile.batch_matmul(bl, br)"),
    "batch_matmul": (f"{_BATCH}\nc = pl.batch_matmul(bl, rhs)", "pl.tile.batch_matmul(bl, rhs)"),
    "tile.batch_matmul_acc": (f"{_BATCH}\nc = pl.tile.batch_matmul(bl, br)\nd = pl.tile.batch_matmul_acc(c, bl, br)",
                              "pl.tile.batch_matmul_acc(c, bl, br)"),
    # -- index-addressed --
    "tile.gather": ("x = pl.tile.gather(v, vi, w)", "pl.tile.gather(v, vi, w)"),
    "gather": ("x = pl.gather(v, vi, w)", "pl.tile.gather(v, vi, w)"),
    "tile.gatherb": ("x = pl.tile.gatherb(v, vi, output_dtype=pl.FP32)",
                     "pl.tile.gatherb(v, vi, output_dtype=pl.FP32)"),
    "gatherb": ("x = pl.gatherb(v, vi)", "pl.tile.gatherb(v, vi)"),
    "tile.scatter": ("x = pl.tile.scatter(v, w, wi)", "pl.tile.scatter(v, w, wi)"),
    "scatter": ("x = pl.scatter(v, w, wi)", "pl.tile.scatter(v, w, wi)"),
    "tile.scatter_update": ("ix = pl.tile.create([2, 8], dtype=pl.INT32)\nx = pl.tile.scatter_update(w, ix, v, dim=0)",
                            "pl.tile.scatter_update(w, ix, v, dim=0)"),
    "scatter_update": ("ix = pl.tile.create([16, 1], dtype=pl.INT32)\nx = pl.scatter_update(w, ix, v)",
                       "pl.tile.scatter_update(w, ix, v, dim=-2)"),
    "tile.gather_compare": ("d, c = pl.tile.gather_compare(v, 0.5, w, cmp_mode=3, out_cols=32)",
                            "pl.tile.gather_compare(v, 0.5, w, cmp_mode=3, out_cols=32)"),
    "gather_compare": ("p = pl.gather_compare(v, f, w, cmp_mode=0, out_cols=8)\nd = p[0]",
                       "pl.tile.gather_compare(v, f, w, cmp_mode=0, out_cols=8)"),
    "tile.gather_row": ("x = pl.tile.gather_row(v, a, [0, 0], [s, 0], [1, 128], valid_shape=[1, 128])",
                        "pl.tile.gather_row(v, a, [0, 0], [s, 0], [1, 128], valid_shape=[1, 128])"),
    "gather_row": ("x = pl.gather_row(col, a, [0, 0], [0, 5], [1, 16], True)",
                   "pl.tile.gather_row(col, a, [0, 0], [0, 5], [1, 16], transpose=True)"),
    # -- lanes and cross-core --
    "tile.get_subblock_idx": ("i = pl.tile.get_subblock_idx()", "pl.tile.get_subblock_idx()"),
    "tile.get_block_idx": ("i = pl.tile.get_block_idx()", "pl.tile.get_block_idx()"),
    "tile.aiv_shard": ("h = pl.tile.aiv_shard(acc, split=1, lane_stride=7)\n"
                       "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):\n    k = pl.aiv_shard(acc)",
                       "pl.tile.aiv_shard(acc, split=1, lane_stride=7)"),
    "tile.aic_gather": ("g = pl.tile.aic_gather(v, split=2)\n"
                        "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    k = pl.tile.aic_gather(w)",
                        "pl.tile.aic_gather(v, split=2)"),
    "tensor.aiv_shard": ("for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    h = pl.tensor.aiv_shard(a)",
                         "pl.tensor.aiv_shard(a)"),
    "tensor.aic_gather": ("for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):\n    g = pl.aic_gather(a)",
                          "pl.tensor.aic_gather(a)"),
    "tile.tpush_to_aiv": ("pl.tile.tpush_to_aiv(acc, split=3, lane_stride=8, id=1)",
                          "pl.tile.tpush_to_aiv(acc, split=3, lane_stride=8, id=1)"),
    "tile.tpush_to_aic": ("pl.tile.tpush_to_aic(v, split=2)", "pl.tile.tpush_to_aic(v, split=2)"),
    "tile.tpop_from_aic": ("x: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=1)\n"
                           "y = pl.tile.tpop_from_aic(shape=[8, 32], dtype=pl.FP32, id=2)",
                           "y: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0, id=2)"),
    "tile.tpop_from_aiv": ("x: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv(split=2)",
                           "pl.tile.tpop_from_aiv(split=2)"),
    "system.tfree_to_aic": ("pl.system.tfree_to_aic(v)", "pl.system.tfree_to_aic(v)"),
    "system.tfree_to_aiv": ("pl.system.tfree_to_aiv(mat, split=0, id=3)", "pl.system.tfree_to_aiv(mat, split=0, id=3)"),
    "system.reserve_buffer": ("b0 = pl.system.reserve_buffer(name='c2v', size=131072)",
                              "pl.system.reserve_buffer(name='c2v', size=131072, base=-1)"),
    "system.import_peer_buffer": ("b0 = pl.system.import_peer_buffer(name='c2v', peer_func='k_aiv')",
                                  "pl.system.import_peer_buffer(name='c2v', peer_func='k_aiv')"),
    "system.aic_initialize_pipe": ("pl.system.aic_initialize_pipe(s, dir_mask=1, slot_size=4096)",
                                   "pl.system.aic_initialize_pipe(s, pl.const(0, pl.INT32), dir_mask=1, slot_size=4096)"),
    "system.aiv_initialize_pipe": ("pl.system.aiv_initialize_pipe(0, s, dir_mask=2, slot_size=4096, slot_num=4, "
                                   "local_slot_num=2, id=1)",
                                   "pl.system.aiv_initialize_pipe(pl.const(0, pl.INT32), s, dir_mask=2, slot_size=4096, "
                                   "slot_num=4, local_slot_num=2, id=1)"),
    "system.sync_set": ("pl.system.sync_set(0, pipe=pl.PipeType.MTE2, ffts_mode=2, core_type='aiv')",
                        "pl.system.sync_set(0, pipe=pl.PipeType.MTE2, ffts_mode=2, core_type='aiv')"),
    "system.sync_wait": ("pl.system.sync_wait(s, pipe=pl.PipeType.V)", "pl.system.sync_wait(s, pipe=pl.PipeType.V)"),
    "system.set_ffts": ("pl.system.set_ffts(s)", "pl.system.set_ffts(s)"),
    "system.syncall": ("pl.system.syncall()\npl.system.syncall(a, 4, core_type='aiv_only', mode='soft')",
                       "pl.system.syncall(a, 4, core_type='aiv_only', mode='soft')"),
    "system.cacheinvalid": ("pl.system.cacheinvalid()\npl.system.cacheinvalid(a, [16, 128], [0, 0])",
                            "pl.system.cacheinvalid(a, [16, 128], [0, 0])"),
    "system.task_invalid": ("t = pl.system.task_invalid()\nu = None", "pl.system.task_invalid()"),
})
CASES.update(elementwise_extra_cases.CASES)  # cmp / sel / maximums / ... and the fused, fmod, part_* and expands ops
for _name in elementwise_extra_cases.ERROR_ONLY:  # no tensor form: test_elementwise_extra checks the error
    CASES.pop(_name, None)
# The broadcast / reduce, views / alloc, gather / sort and system / matmul ops keep their cases beside their tests.
CASES.update({k: v for k, v in BROADCAST_REDUCE_CASES.items() if k not in CASES})
CASES.update(views_alloc_cases.CASES)
CASES.update(gather_sort_cases.CASES)  # also replaces the gatherb cases above (PyPTO's UINT32 offsets)
CASES.update(system_matmul_cases.CASES)  # also replaces set_ffts and the matmul cases (new kwargs, init_cond)
for _n in ("tpush_to_aiv", "tpush_to_aic", "tpop_from_aic", "tpop_from_aiv"):
    _body, _op = CASES[f"tile.{_n}"]
    CASES[f"system.{_n}"] = (_body.replace("pl.tile.", "pl.system."), _op)
    CASES[_n] = (_body.replace("pl.tile.", "pl."), _op)
for _n in ("tfree_to_aic", "tfree_to_aiv", "reserve_buffer", "import_peer_buffer", "aic_initialize_pipe",
           "aiv_initialize_pipe"):
    _body, _op = CASES[f"system.{_n}"]
    CASES[_n] = (_body.replace("pl.system.", "pl."), _op)


def test_every_dsl_name_has_a_case():
    from pypto_core.ops.registry import op_registry

    names = {n for n, e in op_registry().dsl.items() if e.owner == "ops_tile"}
    assert sorted(names - set(CASES) - elementwise_extra_cases.ERROR_ONLY) == []
    assert sorted(set(CASES) - names) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_print_parse_roundtrip(name: str):
    body, expected_call = CASES[name]
    parsed = pl.parse(program(body))
    text = ir.python_print(parsed)
    assert expected_call in text, text
    reparsed = pl.parse(text)
    ir.assert_structural_equal(parsed, reparsed)
    assert ir.python_print(reparsed) == text


DYNAMIC = """
import pypto.language as pl

M = pl.dynamic("M")

@pl.program
class Dyn:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[M, 128], pl.FP32], out: pl.Out[pl.Tensor[[M, 128], pl.FP32]]) -> pl.Tensor[[M, 128], pl.FP32]:
        n = pl.tensor.dim(a, 0)
        t = pl.load(a, [0, 0], [M, 128])
        m = pl.move(t, target_memory=pl.Mem.Mat)
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            h = pl.aiv_shard(m)
            s = pl.set_validshape(pl.exp(h), n, 128)
            out = pl.store(s, [aiv_id * 64, 0], out)
        return out
"""


def test_dynamic_dims_roundtrip():
    parsed = pl.parse(DYNAMIC)
    text = ir.python_print(parsed)
    assert "pl.Tile[[M // pl.const(2, pl.INDEX), 128], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(m)" in text
    ir.assert_structural_equal(parsed, pl.parse(text))
