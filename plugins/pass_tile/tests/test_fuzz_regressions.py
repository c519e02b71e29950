"""Three rules of the tile passes that programs of the program generator (tests/fuzz) exercised, with variants of
each.

Each program is compiled by the whole `default` pipeline (every pass verified, printed and re-parsed, and
checked on the reference machine after every pass: verify = "check-run"), then the program as written and
the compiled one are run on the same inputs and their outputs compared.

* Rule 1 (ConvertTensorToTileOps; docs/passes/lower_auto_vector_split.md, outside the regions): in a function with pl.split_aiv regions, the
  vector tail of a cube op written outside every region (the cast of an FP16 / BF16 matmul's FP32
  accumulator) is done by the cube's store (the fixpipe converts on the way to GM); another use is a
  located ValueError, not vector work outside the regions.
* Rule 2 (InferTileMemorySpace; docs/passes/lower_auto_vector_split.md, outside the regions): a vector move (Mat -> Vec) that code after the regions needs of
  a value a region computed goes at the end of that region.
* Rule 3 (ConvertTensorToTileOps; docs/passes/convert_tensor_to_tile_ops.md, errors): a write the registry declares into a kernel tensor
  that is now a tile is in place: later reads of the target read the write's result; a write the
  functional tile form cannot express (inside a loop into an outer tensor, in one branch of an if with a
  read after it) is a located ValueError.
"""

from __future__ import annotations

import pytest

import pypto.language as pl
from pypto import ir
from pypto_core.ir.enums import FunctionType
from pypto_plugins.pass_tile.tests.helpers import BACKENDS, compiled, rejected


def kernel_text(program: ir.Program, func_type: FunctionType) -> str:
    return "\n".join(ir.python_print(f, format=False) for f in program.functions.values()
                     if f.func_type is func_type)


HEAD = "import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"

# -- rule 1: a cube op's conversion tail outside every region ------------------------------------------------

FINDING_1 = HEAD + '''    def main(self, a: pl.Tensor[[64, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16],
             out: pl.Out[pl.Tensor[[64, 32], pl.BF16]]) -> pl.Tensor[[64, 32], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                s = pl.slice(a, [32, 64], [aiv * 32, 0])
                full = pl.aic_gather(pl.neg(s))
            c = pl.matmul(full, b)
            out = pl.assemble(out, c, [0, 0])
        return out
'''

# FP16, a LEFT_RIGHT region, the product returned from the scope (the store ConvertTensorToTileOps adds).
TAIL_RETURNED = HEAD + '''    def main(self, a: pl.Tensor[[32, 64], pl.FP16], b: pl.Tensor[[64, 32], pl.FP16]) -> pl.Tensor[[32, 32], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                s = pl.slice(a, [32, 32], [0, aiv * 32])
                full = pl.aic_gather(pl.exp(s))
            c = pl.matmul(full, b)
        return c
'''

# The product stored twice (two windows of one output) after a NONE region.
TAIL_STORED_TWICE = HEAD + '''    def main(self, a: pl.Tensor[[32, 32], pl.BF16], b: pl.Tensor[[32, 32], pl.BF16],
             out: pl.Out[pl.Tensor[[64, 32], pl.BF16]]) -> pl.Tensor[[64, 32], pl.BF16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                full = pl.aic_gather(pl.abs(a))
            c = pl.matmul(full, b)
            out = pl.assemble(out, c, [0, 0])
            out = pl.assemble(out, c, [32, 0])
        return out
'''

# The converted product feeding another cube op: the cube has no FP32 -> BF16 conversion before GM.
TAIL_INTO_MATMUL = HEAD + '''    def main(self, a: pl.Tensor[[32, 32], pl.BF16], b: pl.Tensor[[32, 32], pl.BF16],
             out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                s = pl.slice(a, [16, 32], [aiv * 16, 0])
                full = pl.aic_gather(pl.neg(s))
            c = pl.matmul(full, b)
            d = pl.matmul(c, b, out_dtype=pl.FP32)
            out = pl.assemble(out, d, [0, 0])
        return out
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_cast_of_a_gathered_matmul_is_the_cube_store(backend: str):
    after = compiled(FINDING_1, backend)
    aic, aiv = kernel_text(after, FunctionType.AIC), kernel_text(after, FunctionType.AIV)
    assert "tile.store(matmul_acc" in aic and "tile.cast" not in aic + aiv


@pytest.mark.parametrize("src", [TAIL_RETURNED, TAIL_STORED_TWICE], ids=["returned", "stored-twice"])
def test_a_conversion_tail_outside_the_regions_folds_into_its_stores(src: str):
    after = compiled(src, "Ascend910B")
    assert "tile.cast" not in kernel_text(after, FunctionType.AIC) + kernel_text(after, FunctionType.AIV)


def test_a_conversion_tail_used_by_a_cube_op_is_a_located_error():
    rejected(TAIL_INTO_MATMUL, "Ascend910B", r"computed on the cube outside every pl\.split_aiv region.*tile\.cast")


# -- rule 2: a vector move of a region's value, needed after the regions -------------------------------------

FINDING_2 = HEAD + '''    def main(self, x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[64, 32], pl.FP16]]) -> pl.Tensor[[64, 32], pl.FP16]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                full = pl.aic_gather(x)
        out = pl.cast(full, pl.FP16)
        return out
'''

# LEFT_RIGHT, the gathered value of a per-lane computation stored into an Out parameter and returned.
MOVE_STORED_AND_RETURNED = HEAD + '''    def main(self, x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                h = pl.slice(x, [16, 32], [0, aiv * 32])
                full = pl.aic_gather(pl.exp(h))
            out = pl.assemble(out, full, [0, 0])
        return out, full
'''

# A NONE region, the gathered value used after the scope; a second region after it.
MOVE_FROM_NONE_REGION = HEAD + '''    def main(self, x: pl.Tensor[[32, 16], pl.FP32], y: pl.Tensor[[32, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 16], pl.FP32]]) -> tuple[pl.Tensor[[32, 16], pl.FP32], pl.Tensor[[32, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.NONE):
                full = pl.aic_gather(pl.add(x, x))
            for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                h = pl.slice(y, [16, 16], [aiv * 16, 0])
                out = pl.assemble(out, pl.neg(h), [aiv * 16, 0])
        return full, out
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_move_of_a_gathered_value_goes_in_its_region(backend: str):
    compiled(FINDING_2, backend)


@pytest.mark.parametrize("src", [MOVE_STORED_AND_RETURNED, MOVE_FROM_NONE_REGION],
                         ids=["stored-and-returned", "none-region"])
def test_a_vector_move_of_a_region_value_goes_in_that_region(src: str):
    compiled(src, "Ascend910B")


def test_the_move_is_placed_once_at_the_end_of_the_region():
    from pypto import passes

    program = pl.parse(MOVE_STORED_AND_RETURNED)
    for name in ("convert_to_ssa", "normalize_stmt_structure", "outline_incore_scopes", "convert_tensor_to_tile_ops",
                 "flatten_tile_nd_to_2d", "infer_tile_memory_space"):
        program = getattr(passes, name)()(program)
    kernel = next(f for f in program.functions.values() if f.func_type is FunctionType.InCore)
    region = next(s for s in ir.flatten_to_stmts(kernel.body) if isinstance(s, ir.SplitAivScopeStmt))
    last = ir.flatten_to_stmts(region.body)[-1]
    assert isinstance(last, ir.AssignStmt) and last.value.op.name == "tile.move"
    assert ir.python_print(kernel, format=False).count("tile.move(full") == 1


# -- rule 3: in-place writes into a kernel tensor that is a tile -------------------------------------------

FINDING_8 = HEAD + '''    def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[64, 16], pl.BF16],
             out: pl.Out[pl.Tensor[[64, 16], pl.BF16]]) -> tuple[pl.Tensor[[64, 16], pl.BF16], pl.Tensor[[64, 16], pl.BF16]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            if n < 4:
                m = x
            else:
                m = pl.abs(x)
            out = pl.assemble(m, out, [0, 0])
        return out, m
'''

# No alias of an input, no poison: m is read after y is assembled into it.
ASSEMBLE_THEN_READ_TARGET = HEAD + '''    def main(self, x: pl.Tensor[[64, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32]) -> tuple[pl.Tensor[[64, 16], pl.FP32], pl.Tensor[[64, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.abs(x)
            k = m
            r = pl.assemble(m, y, [16, 0])
            s = pl.add(k, 1.0)
        return r, s
'''

# tensor.write (one element, in place), the target stored afterwards.
WRITE_THEN_READ_TARGET = HEAD + '''    def main(self, x: pl.Tensor[[64, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> tuple[pl.Tensor[[64, 16], pl.FP32], pl.Tensor[[64, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.abs(x)
            w = pl.tensor.write(m, [3, 5], 2.0)
            out = pl.assemble(out, m, [0, 0])
        return out, w
'''

# Writes whose results are not bound (statements): the later read sees both.
BARE_WRITES = HEAD + '''    def main(self, x: pl.Tensor[[64, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.abs(x)
            pl.tensor.write(m, [1, 1], 3.0)
            pl.assemble(m, y, [16, 0])
            out = pl.assemble(out, m, [0, 0])
        return out
'''

# The carried form of a write in a loop compiles (ConvertToSSA carries m).
CARRIED_WRITES = HEAD + '''    def main(self, x: pl.Tensor[[64, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.abs(x)
            for i in pl.range(4):
                m = pl.assemble(m, y, [i * 16, 0])
            out = pl.assemble(out, m, [0, 0])
        return out
'''

WRITES_IN_LOOP = HEAD + '''    def main(self, x: pl.Tensor[[64, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> tuple[pl.Tensor[[64, 16], pl.FP32], pl.Tensor[[64, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.abs(x)
            for i in pl.range(4):
                out = pl.assemble(m, y, [i * 16, 0])
        return out, m
'''

WRITE_IN_BRANCH_READ_AFTER = HEAD + '''    def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[64, 16], pl.FP32], y: pl.Tensor[[16, 16], pl.FP32],
             out: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> tuple[pl.Tensor[[64, 16], pl.FP32], pl.Tensor[[64, 16], pl.FP32]]:
        with pl.at(level=pl.Level.CORE_GROUP):
            m = pl.abs(x)
            if n < 4:
                out = pl.assemble(m, y, [16, 0])
            else:
                out = pl.assemble(out, m, [0, 0])
        return out, m
'''


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_assemble_into_a_kernel_tensor_is_in_place(backend: str):
    compiled(FINDING_8, backend)


@pytest.mark.parametrize("src", [ASSEMBLE_THEN_READ_TARGET, WRITE_THEN_READ_TARGET, BARE_WRITES, CARRIED_WRITES],
                         ids=["assemble-then-alias-read", "write-then-read", "bare-writes", "carried"])
def test_later_reads_of_a_written_tile_read_the_write(src: str):
    compiled(src, "Ascend910B")


def test_a_write_into_an_outer_tensor_inside_a_loop_is_a_located_error():
    rejected(WRITES_IN_LOOP, "Ascend910B", r"writes 'm' in place inside a loop.*`m = pl\.assemble\(m, \.\.\.\)`")


def test_a_read_after_an_if_that_wrote_in_one_branch_is_a_located_error():
    rejected(WRITE_IN_BRANCH_READ_AFTER, "Ascend910B", r"'m' is written in place in one branch of an if")


ACC_INTO_INT8 = '''
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.INT8]]) -> pl.Tensor[[32, 32], pl.INT8]:
        am = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        bm = pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
        acc = pl.matmul(pl.move(am, target_memory=pl.Mem.Left), pl.move(bm, target_memory=pl.Mem.Right))
        out = pl.store(acc, [0, 0], out)
        return out

    @pl.function
    def main(self, a: pl.Tensor[[32, 32], pl.FP32], b: pl.Tensor[[32, 32], pl.FP32],
             out: pl.Out[pl.Tensor[[32, 32], pl.INT8]]) -> pl.Tensor[[32, 32], pl.INT8]:
        out = self.kern(a, b, out)
        return out
'''


@pytest.mark.parametrize("backend", ["Ascend910B", "Ascend950"])
def test_an_accumulator_stored_into_a_narrow_int_tensor_is_the_programs_error(backend: str):
    # The program's error, located by InferTileMemorySpace, not reported as the pass breaking AccToGmStoreValid.
    rejected(ACC_INTO_INT8, backend, r"InferTileMemorySpace: tile.store stores the accumulator 'acc[_a-z0-9]*' \(Acc\) "
                                     r"straight into the INT8 tensor")


DEAD_MATMUL_IN_A_LOOP = '''import pypto.language as pl

@pl.program
class P:
    @pl.function
    def main(self, n: pl.Scalar[pl.INDEX], x: pl.Tensor[[16, 16], pl.FP16], y: pl.Tensor[[16, 64], pl.FP16],
             out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        if n >= 4:
            with pl.at(level=pl.Level.CORE_GROUP):
                for _w in pl.range(2):
                    v = pl.matmul(x, y)
                    BODY
        return out
'''


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("body", ["pass", "w = pl.add(x, x)"])
def test_a_loop_body_left_with_one_statement_is_a_bare_statement(body: str, backend: str):
    # Dropping a dead definition can leave a one-statement SeqStmts as the loop body, which the printed text
    # parses back as the bare statement (structural equality would fail after ConvertTensorToTileOps).
    compiled(DEAD_MATMUL_IN_A_LOOP.replace("BODY", body), backend)
