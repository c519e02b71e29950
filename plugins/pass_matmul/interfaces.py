"""The op interfaces AutoTileMatmulL0 asks (docs/plugins.md, op interfaces), declared here and implemented here
for the bundled tile ops, as pass_split does for its split forms: which calls are cube matmuls it may tile (and
which op computes the first and the later K blocks), and which calls store a tile to GM at an offset."""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.ir.enums import CastMode
from pypto_core.ops.interfaces import OpInterface

L0_MATMUL = OpInterface(
    "l0_matmul",
    doc="a cube matmul AutoTileMatmulL0 may tile into L0-sized work: an L0Matmul naming its operand slots "
        "(lhs, rhs, and the caller's accumulator or the bias when it has one), its arity, and the ops of a first "
        "K block and of a later one",
    missing="the op is not a matmul AutoTileMatmulL0 tiles; it is left as written")

L0_RESULT_STORE = OpInterface(
    "l0_result_store",
    doc="a store of a whole tile into a GM tensor at an offset: an L0Store naming the tile, offsets and target "
        "tensor slots; AutoTileMatmulL0 stores each L0 result tile of a matmul directly through it",
    missing="not a store; a matmul result it consumes is not stored tile by tile")

L0_RESULT_CAST = OpInterface(
    "l0_result_cast",
    doc="an element-type conversion of a tile: an L0Cast naming the source slot, the kwargs holding the target "
        "dtype and the rounding mode, and the mode the Acc -> Mat fixpipe conversion applies; AutoTileMatmulL0 "
        "folds such a cast of a matmul result read only as a matmul operand into the Mat scratch it assembles",
    missing="not a cast; a matmul result it consumes is not narrowed into a Mat scratch")


L0_RESULT_ASSEMBLE = OpInterface(
    "l0_result_assemble",
    doc="a write of a whole tile into a window of another tile: an L0Assemble naming the target, tile and "
        "offsets slots; AutoTileMatmulL0 counts a user pipeline draining its L0C tile so into its carry as one "
        "that may double-buffer L0C",
    missing="not a tile assemble; a loop draining its matmul through it keeps a single L0C buffer")

L0_OPERAND_LOAD = OpInterface(
    "l0_operand_load",
    doc="a load of a GM window into a tile: an L0Load naming the tensor, offsets, shape and valid-shape slots; "
        "AutoTileMatmulL0's canonical split-K pre-pass narrows such a load of a matmul operand to one output "
        "tile's rows or columns",
    missing="not a window load; a user K loop reading its operands otherwise is not cloned per output tile")


@dataclass(frozen=True)
class L0Assemble:
    target: int
    tile: int
    offsets: int


@dataclass(frozen=True)
class L0Load:
    tensor: int
    offsets: int
    shape: int
    valid_shape: int


@dataclass(frozen=True)
class L0Matmul:
    lhs: int
    rhs: int
    arity: int
    first_op: str  # the op of the first K block (its result starts the accumulator)
    accumulate_op: str  # the op of a later K block: (acc, lhs, rhs)
    acc: int | None = None  # the caller's accumulator slot (matmul_acc)
    bias: int | None = None  # the bias slot (matmul_bias): the first block's op takes it last

    # Operand slots of a matrix operand: a matmul result read only there may go back to L1 (Mat scratch).
    @property
    def matrix_slots(self) -> tuple[int, int]:
        return (self.lhs, self.rhs)


@dataclass(frozen=True)
class L0Store:
    tile: int
    offsets: int
    target: int
    # The operand giving the N-D partition a 2-D tile covers in a higher-rank target (`[1, .., 1, M, N]`,
    # FlattenTileNdTo2D's form), None when the op has none.
    partition: int | None = None


@dataclass(frozen=True)
class L0Cast:
    source: int
    dtype_kwarg: str
    mode_kwarg: str
    default_mode: int  # the mode of a call without the kwarg
    folded_mode: int  # the rounding of the Acc -> Mat conversion: only a cast with this mode folds into it


MATMUL = L0Matmul(lhs=0, rhs=1, arity=2, first_op="tile.matmul", accumulate_op="tile.matmul_acc")
MATMUL_ACC = L0Matmul(lhs=1, rhs=2, arity=3, first_op="tile.matmul", accumulate_op="tile.matmul_acc", acc=0)
MATMUL_BIAS = L0Matmul(lhs=0, rhs=1, arity=3, first_op="tile.matmul_bias", accumulate_op="tile.matmul_acc", bias=2)

BUNDLED_MATMULS = {"tile.matmul": MATMUL, "tile.matmul_acc": MATMUL_ACC, "tile.matmul_bias": MATMUL_BIAS}
BUNDLED_STORES = {"tile.store": L0Store(tile=0, offsets=1, target=2, partition=3)}
BUNDLED_CASTS = {"tile.cast": L0Cast(source=0, dtype_kwarg="target_type", mode_kwarg="mode",
                                    default_mode=int(CastMode.round), folded_mode=int(CastMode.rint))}
BUNDLED_LOADS = {"tile.load": L0Load(tensor=0, offsets=1, shape=2, valid_shape=3)}
BUNDLED_ASSEMBLES = {"tile.assemble": L0Assemble(target=0, tile=1, offsets=2)}
