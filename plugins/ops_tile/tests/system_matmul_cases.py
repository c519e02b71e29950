"""Print / parse round-trip cases of the system_matmul DSL names (for test_dsl_roundtrip.CASES).

DSL name -> (body, the op call the printed text must contain). Bodies build what they need besides
test_dsl_roundtrip.PARAMS (lhs [16, 64] FP16 Left, rhs [64, 32] FP16 Right, acc [16, 32] FP32 Acc,
ta / tb / tacc FP16 / FP32 tensors, flag a BOOL scalar).
"""

from __future__ import annotations

_MX = ("l = pl.tile.create([16, 64], dtype=pl.FP8E4M3FN, target_memory=pl.Mem.Left)\n"
       "lm = pl.tile.create([16, 2], dtype=pl.FP8E8M0, target_memory=pl.Mem.Mat)\n"
       "ls = pl.move(lm, target_memory=pl.Mem.LeftScale)\n"
       "r = pl.tile.create([64, 32], dtype=pl.FP8E4M3FN, target_memory=pl.Mem.Right)\n"
       "rm = pl.tile.create([2, 32], dtype=pl.FP8E8M0, target_memory=pl.Mem.Mat)\n"
       "rs = pl.move(rm, target_memory=pl.Mem.RightScale)")
_MX_ACC = f"{_MX}\nc = pl.tile.create([16, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)"
_MX_BIAS = f"{_MX}\nbias = pl.tile.create([1, 32], dtype=pl.FP32, target_memory=pl.Mem.Bias)"
_RT = "rt = pl.tile.create([32, 64], dtype=pl.FP16, target_memory=pl.Mem.Right)"
_FLAG = "set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=3"

CASES: dict[str, tuple[str, str]] = {
    # -- launch queries --
    "tile.get_block_num": ("n = pl.tile.get_block_num()", "pl.tile.get_block_num()"),
    "tensor.get_block_idx": ("n = pl.tensor.get_block_idx()", "pl.tensor.get_block_idx()"),
    "tensor.get_block_num": ("n = pl.tensor.get_block_num()", "pl.tensor.get_block_num()"),
    "tensor.get_subblock_idx": ("n = pl.tensor.get_subblock_idx()", "pl.tensor.get_subblock_idx()"),
    "get_block_idx": ("n = pl.get_block_idx()", "pl.tensor.get_block_idx()"),
    "get_block_num": ("n = pl.get_block_num()", "pl.tensor.get_block_num()"),
    "get_subblock_idx": ("n = pl.get_subblock_idx()", "pl.tensor.get_subblock_idx()"),
    "system.available_aiv_count": ("n = pl.system.available_aiv_count()", "pl.system.available_aiv_count()"),
    "system.available_cluster_count": ("n = pl.system.available_cluster_count()",
                                       "pl.system.available_cluster_count()"),
    # -- ordering ops and task ids --
    "system.bar_all": ("pl.system.bar_all()", "pl.system.bar_all()"),
    "system.bar_m": ("pl.system.bar_m()", "pl.system.bar_m()"),
    "system.bar_v": ("pl.system.bar_v()", "pl.system.bar_v()"),
    "system.fence": ("pl.system.fence()", "pl.system.fence()"),
    "system.sync_src": (f"pl.system.sync_src({_FLAG})", f"pl.system.sync_src({_FLAG})"),
    "system.sync_dst": (f"pl.system.sync_dst({_FLAG})", f"pl.system.sync_dst({_FLAG})"),
    "system.task_dummy": ("t = pl.system.task_dummy()\nu = pl.system.task_dummy(deps=[t])",
                          "pl.system.task_dummy()"),
    "system.task_is_valid": ("t = pl.system.task_dummy()\nok = pl.system.task_is_valid(t)",
                             "pl.system.task_is_valid(t)"),
    "system.set_ffts": ("ws = pl.create_tensor([256], dtype=pl.INT64)\npl.system.set_ffts(ws)",
                        "pl.system.set_ffts(ws)"),
    # -- MX matmul --
    "tile.matmul_mx": (f"{_MX}\nc = pl.tile.matmul_mx(l, ls, r, rs)", "pl.tile.matmul_mx(l, ls, r, rs)"),
    "matmul_mx": (f"{_MX}\nc = pl.matmul_mx(l, ls, r, rs)", "pl.tile.matmul_mx(l, ls, r, rs)"),
    "tile.matmul_mx_acc": (f"{_MX_ACC}\nd = pl.tile.matmul_mx_acc(c, l, ls, r, rs)",
                           "pl.tile.matmul_mx_acc(c, l, ls, r, rs)"),
    "matmul_mx_acc": (f"{_MX_ACC}\nd = pl.matmul_mx_acc(c, l, ls, r, rs)", "pl.tile.matmul_mx_acc(c, l, ls, r, rs)"),
    "tile.matmul_mx_bias": (f"{_MX_BIAS}\nc = pl.tile.matmul_mx_bias(l, ls, r, rs, bias)",
                            "pl.tile.matmul_mx_bias(l, ls, r, rs, bias)"),
    "matmul_mx_bias": (f"{_MX_BIAS}\nc = pl.matmul_mx_bias(l, ls, r, rs, bias)",
                       "pl.tile.matmul_mx_bias(l, ls, r, rs, bias)"),
    "tile.tget_scale_addr": (f"{_MX}\nls2 = pl.tile.tget_scale_addr(ls, l)", "pl.tile.tget_scale_addr(ls, l)"),
    # -- matmul kwargs (pl.matmul / pl.matmul_acc; docs/reference/ops.md) --
    "tile.matmul": (f"{_RT}\nc = pl.tile.matmul(lhs, rhs)\nd = pl.tile.matmul(lhs, rt, out_dtype=pl.FP16, b_trans=True)",
                    "pl.tile.matmul(lhs, rt, out_dtype=pl.FP16, b_trans=True)"),
    "matmul": (f"{_RT}\nc = pl.matmul(lhs, rhs)\nd = pl.matmul(lhs, rt, b_trans=True, c_matrix_nz=True)\n"
               "e = pl.matmul(ta, tb, out_dtype=pl.FP32)", "pl.tile.matmul(lhs, rt, b_trans=True)"),
    "tile.matmul_acc": (f"{_RT}\nc = pl.tile.matmul_acc(acc, lhs, rhs, flag)\nd = pl.tile.matmul_acc(acc, lhs, rt, "
                        "b_trans=True)", "pl.tile.matmul_acc(acc, lhs, rt, b_trans=True)"),
    "matmul_acc": (f"{_RT}\nc = pl.matmul_acc(acc, lhs, rt, b_trans=True, init_cond=flag)\n"
                   "d = pl.matmul_acc(tacc, ta, tb, b_trans=False)", "pl.tile.matmul_acc(acc, lhs, rt, flag, b_trans=True)"),
    "tensor.matmul_acc": ("c = pl.tensor.matmul_acc(tacc, ta, tb)\nd = pl.tensor.matmul_acc(tacc, ta, tb, "
                          "init_cond=flag)", "pl.tensor.matmul_acc(tacc, ta, tb, flag)"),
}
