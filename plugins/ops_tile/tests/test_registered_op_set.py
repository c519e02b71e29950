"""Every op of PyPTO's operator set (the tables below: tile 138, tensor 105, system 22) is registered under
PyPTO's name, and nothing else is registered in these namespaces except the pypto extensions listed here:
the registry is compared with a table of all 265 names, and a missing or extra op fails."""

from __future__ import annotations

from pypto_core.ops.registry import op_registry

TILE_OPS = """
abs add addc adds addsc aic_gather aiv_shard alloc and ands assemble batch_matmul batch_matmul_acc cast ci
cmp cmps col_argmax col_argmin col_expand col_expand_add col_expand_div col_expand_expdif col_expand_max
col_expand_min col_expand_mul col_expand_sub col_max col_min col_prod col_sum concat cos create div divs exp
expands extract fillpad fillpad_expand fillpad_inplace fmod fmods full gather gather_compare gather_mask
gather_row gatherb gemv gemv_acc gemv_bias get_block_idx get_block_num get_subblock_idx load log lrelu matmul
matmul_acc matmul_bias matmul_mx matmul_mx_acc matmul_mx_bias maximum maximums mgather minimum minimums move
mrgsort_format1 mrgsort_format2 mscatter mul muls neg not or ors part_add part_max part_min part_mul prelu
random read recip reinterpret_view relu rem rems reshape row_argmax row_argmin row_expand row_expand_add
row_expand_div row_expand_expdif row_expand_max row_expand_min row_expand_mul row_expand_sub row_max row_min
row_prod row_sum rsqrt scatter scatter_mask scatter_update sel sels set_validshape shl shls shr shrs sin
slice sort32 sqrt store sub subc subs subsc tget_scale_addr tpop_from_aic tpop_from_aiv tpush_to_aic
tpush_to_aiv transpose transpose_view tri write xor xors
""".split()

TENSOR_OPS = """
abs add adds aic_gather aiv_shard alloc and ands assemble cast ci cmp col_argmax col_argmin col_expand
col_expand_add col_expand_div col_expand_expdif col_expand_max col_expand_min col_expand_mul col_expand_sub
col_max col_min col_prod col_sum concat cos create create_l1 dim div divs exp expand_clone expands fillpad
fillpad_expand fmod fmods full gather gather_compare gather_mask gather_row get_block_idx get_block_num
get_subblock_idx log matmul matmul_acc maximum minimum mrgsort_format1 mrgsort_format2 mul muls neg not or
ors paged_gather part_add part_max part_min part_mul random read recip reinterpret_view reshape row_argmax
row_argmin row_expand row_expand_add row_expand_div row_expand_expdif row_expand_max row_expand_min
row_expand_mul row_expand_sub row_max row_min row_prod row_sum rsqrt scatter scatter_mask scatter_update
set_validshape shl shls shr shrs sin slice sort32 sqrt sub subs transpose view write xor xors
""".split()

SYSTEM_OPS = """
aic_initialize_pipe aiv_initialize_pipe available_aiv_count available_cluster_count bar_all bar_m bar_v
cacheinvalid fence import_peer_buffer reserve_buffer set_ffts sync_dst sync_set sync_src sync_wait syncall
task_dummy task_invalid task_is_valid tfree_to_aic tfree_to_aiv
""".split()
PYPTO_OPS = frozenset([*(f"tile.{n}" for n in TILE_OPS), *(f"tensor.{n}" for n in TENSOR_OPS),
                       *(f"system.{n}" for n in SYSTEM_OPS)])

# pypto extensions: element-wise math PyPTO has no op for. Kept so programs using them compile; PyPTO programs
# never produce them. (Other spellings, e.g. `pl.maxs` or `pl.relu` on a tensor, are DSL aliases that build
# PyPTO's op and are not registered under their own name.)
EXTENSIONS = frozenset(f"{ns}.{n}" for ns in ("tile", "tensor")
                       for n in ("ceil", "floor", "pow", "sigmoid", "square", "tanh"))


def registered() -> set[str]:
    return {name for name in op_registry().ops if name.split(".", 1)[0] in ("tile", "tensor", "system")}


def test_table_counts_are_pyptos():
    assert (len(TILE_OPS), len(TENSOR_OPS), len(SYSTEM_OPS)) == (138, 105, 22)
    assert len(PYPTO_OPS) == 265


def test_every_pypto_op_is_registered():
    missing = sorted(PYPTO_OPS - registered())
    assert not missing, f"{len(missing)} PyPTO op(s) are not registered: {missing}"


def test_no_op_is_registered_that_pypto_lacks():
    extra = sorted(registered() - PYPTO_OPS - EXTENSIONS)
    assert not extra, f"registered under a name PyPTO does not have (rename it, or list it as an extension): {extra}"


def test_extensions_stay_registered():
    assert EXTENSIONS <= registered()
