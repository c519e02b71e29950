"""The bias of a `matmul_bias` M/N grid (docs/passes/auto_tile_matmul_l0.md, bias windows): each L0 tile adds
the bias columns of its own N window.

A bias already in Bias spans all of N (the chooser keeps `n = N` for it) and is used as it is. A Mat bias is
moved to Bias whole when a tile spans all of N; for a narrower tile its `[1, n]` window is loaded again from
the GM tensor the Mat bias came from (`<name>_mat = tile.load(<bias tensor>, [r, c + ni], [1, n], [1, n],
<the original load's kwargs>)`) and moved to Bias. Which statement is such a load is the registry's answer
(the `l0_operand_load` op interface).
"""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ops.registry import create_op_call, op_registry
from pypto_plugins.pass_matmul.interfaces import L0_OPERAND_LOAD
from pypto_plugins.pass_matmul.l0_rewrite.build import Emitter, index, offset_by


def bias_window_load(defining: S.Stmt | None) -> S.AssignStmt | None:
    """The `[1, N]` window load that defined a Mat bias, when it is one."""
    if not isinstance(defining, S.AssignStmt) or not isinstance(defining.value, E.Call) or \
            type(defining.value.op) is not E.Op:
        return None
    form = op_registry().implementation(L0_OPERAND_LOAD.name, defining.value.op.name)
    if form is None:
        return None
    offsets = defining.value.args[form.offsets]
    return defining if isinstance(offsets, E.MakeTuple) and len(offsets.elements) == 2 else None


@dataclass(frozen=True)
class BiasSource:
    """Where the tiles of one grid take their bias from."""

    bias: E.Var
    load: S.AssignStmt | None  # the Mat bias's own window load (needed for tiles narrower than N)
    big_n: int

    @property
    def resident(self) -> bool:
        return self.bias.type.memory_space is MemorySpace.Bias  # type: ignore[attr-defined]

    def windowed(self, n: int) -> bool:
        return not self.resident and n < self.big_n

    def can_window(self, n: int) -> bool:
        return not self.windowed(n) or self.load is not None

    def whole(self, em: Emitter, name: str) -> E.Expr:
        """The bias spanning all of N, in Bias."""
        if self.resident:
            return self.bias
        return em.bind(name, em.call("tile.move", [self.bias], target_memory=MemorySpace.Bias))

    def window(self, em: Emitter, name: str, col: E.Expr | int, n: int) -> E.Expr:
        """The bias of columns [col, col + n), in Bias."""
        if not self.windowed(n):
            return self.whole(em, name)
        assert self.load is not None
        call = self.load.value
        assert isinstance(call, E.Call)
        form = op_registry().implementation(L0_OPERAND_LOAD.name, call.op.name)
        offsets = call.args[form.offsets]
        assert isinstance(offsets, E.MakeTuple)
        args = list(call.args)
        args[form.offsets] = E.MakeTuple([offsets.elements[0], offset_by(offsets.elements[1], col)])
        args[form.shape] = E.MakeTuple([index(1), index(n)])
        if len(args) > form.valid_shape:
            args[form.valid_shape] = E.MakeTuple([index(1), index(n)])
        else:
            args.append(E.MakeTuple([index(1), index(n)]))
        mat = em.bind(f"{name}_mat", create_op_call(call.op.name, args, kwargs=dict(call.kwargs), span=em.span))
        return em.bind(name, em.call("tile.move", [mat], target_memory=MemorySpace.Bias))
