"""LowerAutoVectorSplit, AUTO path, the rules it shares with PyPTO (docs/passes/lower_auto_vector_split.md):
a view of a full-width tile viewed whole then sliced per lane, the reinterpret_view and scope wordings, the
lane stride chosen only when it helps, a declined rebalance lowered with the box partition (ExpandMixedKernel
reports what cannot be placed), a reshape of a split value by its flat layout, a reduction over the split axis
rejected whatever its input, and no placement stamp. Before / Expected compared structurally on both
backends, every accepted program run before and after on the reference machine (two AIV lanes)."""

from __future__ import annotations

import pytest

from pypto import ir, passes

from .emk_helpers import BACKENDS, emk, on_backend
from .helpers import expect, function, lavs, parse


def lavs_on(backend: str, src: str, run: bool = True) -> ir.Program:
    with on_backend(backend):
        return lavs(src, run)


def _stmts(program: ir.Program, name: str = "k") -> list:
    return ir.flatten_to_stmts(function(program, name).body)


def _dims(dims) -> str:
    return "[" + ", ".join(ir.python_print(d) for d in dims) + "]"


# -- a view of a full-width tile: viewed whole, then sliced per lane ---------------------------------------------

VIEW_OF_A_LOAD = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat], bias: pl.Tensor[[16], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 128], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        popped = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        o = pl.tile.store(popped, [0, 0], out)
        b = pl.tile.load(bias, [0], [16], [16], target_memory=pl.Mem.Vec)
        col = pl.tile.reshape(b, [16, 1])
        sq = pl.tile.mul(col, col)
        o2 = pl.tile.store(sq, [0, 0], out2)
        return o, o2
'''

VIEW_OF_A_LOAD_EXPECTED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat], bias: pl.Tensor[[16], pl.FP32],
          out: pl.Out[pl.Tensor[[16, 128], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[16, 1], pl.FP32]]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        popped: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(qk, split=1)
        o: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(popped, [0 + subblock_idx * 8, 0], out)
        b: pl.Tile[[16], pl.FP32, pl.Mem.Vec] = pl.tile.load(bias, [0], [16], [16], target_memory=pl.Mem.Vec)
        col: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(b, [16, 1])
        col_1: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(col, [8, 1], [subblock_idx * 8, 0])
        sq: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.mul(col_1, col_1)
        o2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(sq, [0 + subblock_idx * 8, 0], out2)
        return o, o2
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reshape_of_a_rank_1_load_is_viewed_whole_then_sliced_at_the_bare_lane_offset(backend: str):
    after = lavs_on(backend, VIEW_OF_A_LOAD)
    expect(after, VIEW_OF_A_LOAD_EXPECTED)
    stmts = _stmts(after)
    assert [s.var.name_hint for s in stmts[4:6]] == ["col", "col_1"]
    assert ir.python_print(stmts[5].value.args[2]) == "[subblock_idx * 8, 0]"  # no `0 +` on the slice
    assert ir.python_print(stmts[7].value.args[1]) == "[0 + subblock_idx * 8, 0]"  # the store keeps it


UNTRACKED_VIEW = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat], src: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec],
          out: pl.Out[pl.Tensor[[16, 128], pl.FP32]], out2: pl.Out[pl.Tensor[[16, 128], pl.INT32]]) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[16, 128], pl.INT32]]:
        pl.func_attr({"split": pl.SplitMode.MODE})
        popped = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        o = pl.tile.store(popped, [0, 0], out)
        BODY
        return o, o2
'''


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("mode", "shape", "offset"), [("UP_DOWN", "[8, 128]", "[subblock_idx * 8, 0]"),
                                                       ("LEFT_RIGHT", "[16, 64]", "[0, subblock_idx * 64]")])
def test_a_reinterpret_view_of_an_untracked_tile_is_viewed_whole_then_sliced(backend: str, mode: str, shape: str,
                                                                            offset: str):
    src = UNTRACKED_VIEW.replace("MODE", mode).replace(
        "BODY", "r = pl.tile.reinterpret_view(src, dtype=pl.INT32)\n        o2 = pl.tile.store(r, [0, 0], out2)")
    after = lavs_on(backend, src)
    stmts = _stmts(after)
    view, part = stmts[3], stmts[4]
    assert view.value.op.name == "tile.reinterpret_view" and view.var.name_hint == "r"
    assert _dims(view.var.type.shape) == "[16, 128]"
    assert part.value.op.name == "tile.slice" and part.var.name_hint == "r_1" and part.value.args[0] is view.var
    assert ir.python_print(part.value.args[1]) == shape
    assert ir.python_print(part.value.args[2]) == offset


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reinterpret_view_with_its_inferred_shape_written_out_is_accepted(backend: str):
    src = UNTRACKED_VIEW.replace("MODE", "UP_DOWN").replace(
        "BODY", "r = pl.tile.reinterpret_view(src, dtype=pl.INT32, shape=[16, 128])\n"
                "        o2 = pl.tile.store(r, [0, 0], out2)")
    after = lavs_on(backend, src)
    assert ir.python_print(_stmts(after)[4].value.args[2]) == "[subblock_idx * 8, 0]"


REINTERPRET_WORDING = (r"SplitVectorKernel: tile\.reinterpret_view with an explicit shape inside a split kernel must "
                       r"match its auto-inferred shape\. Omit shape= \(recommended\), or move an arbitrary "
                       r"byte-equivalent reinterpret_view outside the split scope\.")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("mode", "shape", "reshape"), [("UP_DOWN", "[8, 256]", "[16, 128]"),
                                                        ("LEFT_RIGHT", "[8, 256]", "[16, 128]"),
                                                        ("UP_DOWN", "[2048, 1]", "[16, 128]")])
def test_a_reinterpret_view_with_another_explicit_shape_is_rejected_with_pypto_s_wording(backend: str, mode: str,
                                                                                         shape: str, reshape: str):
    src = UNTRACKED_VIEW.replace("MODE", mode).replace(
        "BODY", f"r = pl.tile.reinterpret_view(src, dtype=pl.INT32, shape={shape})\n"
                f"        o2 = pl.tile.store(pl.tile.reshape(r, {reshape}), [0, 0], out2)")
    with pytest.raises(ValueError, match=REINTERPRET_WORDING) as caught:
        lavs_on(backend, src, run=False)
    assert caught.value.span.begin_line == 12  # type: ignore[attr-defined]


SCOPED_REGION = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True})
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.NONE):
            t = pl.load(a, [aiv_id * 32, 0], [32, 64])
            o = pl.store(pl.tile.exp(t), [aiv_id * 32, 0], out)
        return o
'''


def test_a_scope_surviving_inside_a_region_body_is_rejected_with_pypto_s_wording():
    program = parse(SCOPED_REGION)
    func = function(program, "k")
    (region,) = [s for s in ir.flatten_to_stmts(func.body) if isinstance(s, ir.SplitAivScopeStmt)]
    inner = ir.flatten_to_stmts(region.body)
    scope = ir.HierarchyScopeStmt(ir.Level.CORE_GROUP, body=ir.SeqStmts(inner[1:], region.span), span=inner[1].span)
    wrapped = region.with_fields(body=ir.SeqStmts([inner[0], scope], region.span))
    body = [wrapped if s is region else s for s in ir.flatten_to_stmts(func.body)]
    bad = ir.Program([func.with_fields(body=ir.SeqStmts(body, func.body.span))], program.name, program.span)
    with pytest.raises(ValueError, match=r"LowerAutoVectorSplit: a scope survives inside a pl\.split_aiv region body\. "
                                         r"Region lowering does not cross a scope boundary"):
        passes.lower_auto_vector_split()(bad)


def test_a_region_nested_in_a_region_is_not_a_surviving_scope():
    # The region wrapper is kept (PyPTO erases it): the scan for surviving scopes skips split_aiv regions (the
    # parser never nests them; IR a pass built could).
    from pypto_plugins.pass_split.vector_split.region_path import rescan

    program = parse(SCOPED_REGION)
    func = function(program, "k")
    (region,) = [s for s in ir.flatten_to_stmts(func.body) if isinstance(s, ir.SplitAivScopeStmt)]
    inner = ir.flatten_to_stmts(region.body)
    nested = ir.SplitAivScopeStmt(ir.SplitMode.NONE, body=ir.SeqStmts(inner[1:], region.span), span=region.span)
    rescan(func, region.with_fields(body=ir.SeqStmts([inner[0], nested], region.span)))  # no error
    scope = ir.HierarchyScopeStmt(ir.Level.CORE_GROUP, body=ir.SeqStmts(inner[1:], region.span), span=region.span)
    with pytest.raises(ValueError, match=r"a scope survives inside a pl\.split_aiv region body"):
        rescan(func, region.with_fields(body=ir.SeqStmts([inner[0], scope], region.span)))


# -- the lane stride, only when it helps -----------------------------------------------------------------------

RAGGED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[BOX, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[VALID, 128])],
          out: pl.Out[pl.Tensor[[BOX, 128], pl.FP32]]) -> pl.Tensor[[BOX, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        popped = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        f = pl.tile.exp(popped)
        o = pl.tile.store(f, [0, 0], out)
        return o
'''
# An empty boundary: the program as written stores the padded tile (a store of no valid row is refused).
EMPTY = RAGGED.replace("pl.tile.exp(popped)", "pl.tile.fillpad(popped, pad_value=pl.PadValue.zero)").replace(
    "BOX", "16").replace("VALID", "0")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("box", "valid", "stride"), [(16, 13, 7), (16, 15, None), (16, 16, None),
                                                      (17, 16, 8), (17, 17, None), (16, 3, 2)])
def test_a_lane_stride_is_chosen_only_when_it_helps(backend: str, box: int, valid: int, stride: int | None):
    # S = ceil(V / 2): chosen when S > 0, V < B and S != ceil(B / 2); V = 0 keeps the box partition.
    after = lavs_on(backend, RAGGED.replace("BOX", str(box)).replace("VALID", str(valid)))
    stmts = _stmts(after)
    shard = stmts[1].value
    assert shard.op.name == "tile.aiv_shard"
    assert shard.kwargs.get("lane_stride") == stride, shard.kwargs
    s = stride if stride is not None else (box + 1) // 2
    assert ir.python_print(stmts[3].value.args[1]) == f"[0 + subblock_idx * {s}, 0]"


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_empty_boundary_keeps_the_box_partition_with_the_lane_valid_extent(backend: str):
    after = lavs_on(backend, EMPTY)
    assert "lane_stride" not in _stmts(after)[1].value.kwargs  # S = 0: the box partition
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[0, 128])],
          out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        popped: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(0, pl.INDEX), subblock_idx * pl.const(8, pl.INDEX)) - subblock_idx * pl.const(8, pl.INDEX), pl.const(8, pl.INDEX)), 128])] = pl.tile.aiv_shard(qk, split=1)
        f: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major, pad=pl.PadValue.zero)] = pl.tile.fillpad(popped, pad_value=pl.PadValue.zero)
        o: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(f, [0 + subblock_idx * 8, 0], out)
        return o
''')


# -- a declined rebalance still lowers ---------------------------------------------------------------------------

DECLINED = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[VALID, 128])],
          data: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
          out2: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[16, 128], pl.FP32]]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        popped = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        o = pl.tile.store(popped, [0, 0], out)
        d = pl.tile.load(data, [0, 0], [16, 128], target_memory=pl.Mem.Vec)
        o2 = pl.tile.store(d, [0, 0], out2)
        return o, o2
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_declined_rebalance_lowers_the_box_partition_and_expand_mixed_kernel_reports_the_extents(backend: str):
    after = lavs_on(backend, DECLINED.replace("VALID", "13"))
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat, pl.TileView(valid_shape=[13, 128])],
          data: pl.Tensor[[16, 128], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
          out2: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[16, 128], pl.FP32]]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        popped: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[pl.min(pl.max(pl.const(13, pl.INDEX), subblock_idx * pl.const(8, pl.INDEX)) - subblock_idx * pl.const(8, pl.INDEX), pl.const(8, pl.INDEX)), 128])] = pl.tile.aiv_shard(qk, split=1)
        o: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(popped, [0 + subblock_idx * 8, 0], out)
        d: pl.Tile[[8, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(data, [0 + subblock_idx * 8, 0], [8, 128], [8, 128], target_memory=pl.Mem.Vec)
        o2: pl.Tensor[[16, 128], pl.FP32] = pl.tile.store(d, [0 + subblock_idx * 8, 0], out2)
        return o, o2
''')
    with pytest.raises(ValueError, match=r"ExpandMixedKernel: InCore function 'k': tile\.aiv_shard of 'qk' \(UP_DOWN, "
                                         r"13 of 16 rows valid.*leaves the two AIV lanes 8 and 5 cells") as caught:
        emk(after, backend, run=False)
    assert caught.value.span.begin_line == 11  # type: ignore[attr-defined]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("valid", [16, 15, 8, 0])
def test_a_declined_rebalance_of_placeable_extents_expands_and_runs(backend: str, valid: int):
    src = DECLINED.replace("VALID", str(valid))
    if valid == 0:  # the program as written must store something valid
        src = src.replace("o = pl.tile.store(popped, [0, 0], out)",
                          "o = pl.tile.store(pl.tile.fillpad(popped, pad_value=pl.PadValue.zero), [0, 0], out)")
    after = lavs_on(backend, src)
    assert "lane_stride" not in _stmts(after)[1].value.kwargs
    emk(after, backend)


# -- a reshape of a split value: the flat layout rule ------------------------------------------------------------

RESHAPE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[ROWS, COLS], pl.FP32, pl.Mem.Mat], out: pl.Out[pl.Tensor[[A, B], pl.FP32]]) -> pl.Tensor[[A, B], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN})
        prev = pl.tile.move(qk, target_memory=pl.Mem.Vec)
        flat = pl.tile.reshape(prev, [A, B])
        o = pl.tile.store(flat, [0, 0], out)
        return o
'''


def _reshape(rows: int, cols: int, a: int, b: int) -> str:
    return RESHAPE.replace("ROWS", str(rows)).replace("COLS", str(cols)).replace("A", str(a)).replace("B", str(b))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reshape_of_a_split_value_to_a_column_halves_its_leading_dim(backend: str):
    after = lavs_on(backend, _reshape(16, 16, 256, 1))
    expect(after, '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 16], pl.FP32, pl.Mem.Mat], out: pl.Out[pl.Tensor[[256, 1], pl.FP32]]) -> pl.Tensor[[256, 1], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.UP_DOWN, "split_aiv": True})
        subblock_idx: pl.Scalar[pl.INDEX] = pl.tile.get_subblock_idx()
        prev: pl.Tile[[8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.aiv_shard(qk, split=1)
        flat: pl.Tile[[128, 1], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(prev, [128, 1])
        o: pl.Tensor[[256, 1], pl.FP32] = pl.tile.store(flat, [0 + subblock_idx * 128, 0], out)
        return o
''')


@pytest.mark.parametrize(("rows", "cols", "a", "b", "shape", "offset"), [
    (16, 16, 32, 8, "[16, 8]", "[0 + subblock_idx * 16, 0]"),   # d == s, another row width
    (16, 16, 1, 256, "[1, 128]", "[0, 0 + subblock_idx * 128]"),  # d != s: the split moves to dim 1
    (12, 16, 24, 8, "[12, 8]", "[0 + subblock_idx * 12, 0]"),
])
def test_a_reshape_of_a_split_value_finds_the_dim_holding_each_lane_s_run(rows, cols, a, b, shape, offset):
    after = lavs(_reshape(rows, cols, a, b))
    stmts = _stmts(after)
    assert _dims(stmts[2].var.type.shape) == shape
    assert ir.python_print(stmts[2].value.args[1]) == shape
    assert ir.python_print(stmts[3].value.args[1]) == offset


@pytest.mark.parametrize(("rows", "cols", "a", "b", "words"), [
    (12, 16, 3, 64, r"moves the split axis \(dim 0\) across a layout the pass cannot track"),
    (20, 16, 5, 64, r"moves the split axis \(dim 0\) across a layout the pass cannot track"),
    (15, 16, 16, 15, r"reshapes a split axis of odd extent 15 \(dim 0\)"),
])
def test_a_reshape_the_flat_rule_cannot_follow_is_a_located_error(rows, cols, a, b, words):
    with pytest.raises(ValueError, match=r"LowerAutoVectorSplit: tile\.reshape of .*" + words) as caught:
        lavs(_reshape(rows, cols, a, b), run=False)
    assert caught.value.span.begin_line == 10  # type: ignore[attr-defined]


# -- a reduction over the split axis: always rejected ------------------------------------------------------------

REDUCE = '''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, qk: pl.Tile[[16, 128], pl.FP32, pl.Mem.Mat], src: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec],
          out: pl.Out[pl.Tensor[[16, 128], pl.FP32]]) -> pl.Tensor[[16, 128], pl.FP32]:
        pl.func_attr({"split": pl.SplitMode.MODE})
        popped = pl.tile.move(qk, target_memory=pl.Mem.Vec, blayout=pl.TileLayout.row_major,
                               slayout=pl.TileLayout.none_box)  # row ops take a flat tile
        BODY
        o = pl.tile.store(popped, [0, 0], out)
        return o
'''


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("mode", "body", "op", "dim"), [
    ("UP_DOWN", "s = pl.tile.col_sum(src)", "tile.col_sum", 0),  # an untracked full-width input
    ("UP_DOWN", "s = pl.tile.col_max(popped)", "tile.col_max", 0),  # a tracked one
    ("LEFT_RIGHT", "tmp = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                   "        s = pl.tile.row_sum(src, tmp)", "tile.row_sum", 1),
    ("LEFT_RIGHT", "tmp = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                   "        s = pl.tile.row_max(popped, tmp)", "tile.row_max", 1),
])
def test_a_reduction_over_the_split_axis_is_rejected_whatever_its_input(backend, mode, body, op, dim):
    with pytest.raises(ValueError, match=rf"SplitVectorKernel: reduce op '{op}' reduces on the split axis \(dim {dim}\); "
                                         r"partial reduction in a split kernel is not supported"):
        lavs_on(backend, REDUCE.replace("MODE", mode).replace("BODY", body), run=False)


def test_a_reduction_along_the_other_axis_of_a_split_value_is_halved():
    after = lavs(REDUCE.replace("MODE", "UP_DOWN").replace(
        "BODY", "tmp = pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
                "        s = pl.tile.row_sum(popped, tmp)\n        e = pl.tile.row_expand_add(popped, s)").replace(
        "pl.tile.store(popped,", "pl.tile.store(e,"))
    assert _dims(_stmts(after)[3].var.type.shape) == "[8, 1]"


# -- no placement stamp -----------------------------------------------------------------------------------------

def _stamped(program: ir.Program) -> list[str]:
    found: list[str] = []

    class Walk(ir.IRVisitor):
        def visit_call(self, call: ir.Call) -> None:
            if "core_placement" in call.attrs:
                found.append(call.op.name)
            super().visit_call(call)

    for f in program.functions.values():
        Walk().visit_stmt(f.body)
    return found


def test_no_call_is_stamped_with_a_core_placement():
    assert _stamped(lavs(VIEW_OF_A_LOAD)) == []
    assert _stamped(lavs(DECLINED.replace("VALID", "16"))) == []
    region = parse('''
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
        pl.func_attr({"split_aiv": True})
        t = pl.load(a, [0, 0], [64, 64])
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            e = pl.tile.exp(t)
            o = pl.store(e, [0, 0], out)
        return o
''')
    assert _stamped(passes.lower_auto_vector_split()(region)) == []
