"""The K-loop rewrite of one `[m, n]` output tile (docs/passes/auto_tile_matmul_l0.md, K-only rewrite).

`B` is the base name (the matmul result's name, or `B_t<s>` for a sub-tile of a grid). With `nf = K // k` full
K blocks and a tail `t = K - nf*k`:

    B_l0_init = tile.create([m, n], acc dtype, Acc)                    # plain / bias, nf >= 2
    for B_l0_ko, (B_l0_c,) in pl.pipeline(0, nf*k, k, stage=2, init_values=(B_l0_init,)):
        B_l0_a = tile.extract(lhs, row, B_l0_ko, [m, k], Left)
        B_l0_b = tile.extract(rhs, B_l0_ko, col, [k, n], Right)
        if B_l0_ko == 0: first block (matmul / matmul_bias)  else: matmul_acc(B_l0_c, a, b)
        B = pl.yield_(...)
    B_l0_at / B_l0_bt / B_l0_ct = the tail block, accumulated into the loop's result (then named B_l0_kmain)

A matmul_acc accumulates into the caller's accumulator from the first block (no if, no create). A single full
block (nf == 1, only with a tail) is straight-line code (`B_l0_a0`, `B_l0_b0`, `B_l0_c0`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pypto_core.ir import expr as E
from pypto_core.ir import stmt as S
from pypto_core.ir.enums import MemorySpace
from pypto_core.ir.scalar_ops import and_, eq
from pypto_plugins.pass_matmul.l0_rewrite.build import Emitter, index, pipeline_loop, plus
from pypto_plugins.pass_matmul.l0_rewrite.candidate import MatmulSite
from pypto_plugins.pass_matmul.l0_rewrite.streamed_operands import Operand, extract_from


@dataclass(frozen=True)
class Window:
    """The output tile a K loop computes: rows [row, row+m), columns [col, col+n)."""

    row: int
    col: int
    m: int
    n: int


def k_loop(em: Emitter, site: MatmulSite, lhs: Operand, bias: E.Expr | None, window: Window, k: int, base: str,
           result_name: str, carried: E.Expr | None = None, first_when: E.Expr | None = None,
           rhs: Operand | None = None) -> E.Var:
    """Emit the K loop of `window` into `em`; returns the variable holding the finished tile, named
    `result_name` (exactly) when it is the loop's result.

    `carried` / `first_when` (a first-block matmul only): the loop starts from the accumulator `carried` instead
    of a fresh `B_l0_init`, and its first block is the fresh matmul only when `first_when` also holds, else it
    accumulates onto `carried` like the others (a user K step on its loop's carry, carried_accumulator.py).
    `lhs` / `rhs` (default: the matmul's rhs) may be streamed: their slabs are loaded from GM
    (streamed_operands.py)."""
    _, _, big_k = site.dims()
    m, n = window.m, window.n
    full = big_k // k
    tail = big_k - full * k
    acc_dtype = site.acc_dtype
    row, col = index(window.row), index(window.col)
    caller_acc = site.acc
    rhs = site.rhs if rhs is None else rhs
    done: E.Var

    def first_block(a: E.Var, b: E.Var, name: str, acc: E.Expr | None) -> E.Var:
        if acc is not None:
            return em.bind(name, em.call(site.form.accumulate_op, [acc, a, b]))
        operands = [a, b] if bias is None else [a, b, bias]
        return em.bind(name, em.call(site.form.first_op, operands))

    if full == 1:
        a0 = extract_from(em, f"{base}_l0_a0", lhs, row, index(0), [m, k], MemorySpace.Left)
        b0 = extract_from(em, f"{base}_l0_b0", rhs, index(0), col, [k, n], MemorySpace.Right)
        if first_when is None or carried is None:
            done = first_block(a0, b0, f"{base}_l0_c0", caller_acc)
        else:
            done = _first_or_carried(em, f"{base}_l0_c0", first_when,
                                     lambda e, name: e.bind(name, e.call(site.form.first_op, [a0, b0])),
                                     lambda e, name: e.bind(name, e.call(site.form.accumulate_op, [carried, a0, b0])))
    else:
        init: E.Expr
        if caller_acc is not None:
            init = caller_acc
        elif carried is not None:
            init = carried
        else:
            init = em.create(f"{base}_l0_init", [m, n], acc_dtype, MemorySpace.Acc)
        ko = em.loop_var(f"{base}_l0_ko")
        carry = E.IterArg(em.fresh(f"{base}_l0_c"), init.type, init, em.span)
        body = Emitter(em.fresh, em.span)
        a = extract_from(body, f"{base}_l0_a", lhs, row, ko, [m, k], MemorySpace.Left)
        b = extract_from(body, f"{base}_l0_b", rhs, ko, col, [k, n], MemorySpace.Right)
        if caller_acc is not None:
            step = body.bind(f"{base}_l0_c_acc", body.call(site.form.accumulate_op, [carry, a, b]))
        else:
            then = Emitter(em.fresh, em.span)
            first = then.bind(f"{base}_l0_c_first", then.call(site.form.first_op, [a, b] if bias is None else [a, b, bias]))
            other = Emitter(em.fresh, em.span)
            acc = other.bind(f"{base}_l0_c_acc", other.call(site.form.accumulate_op, [carry, a, b]))
            phi = E.Var(em.fresh(f"{base}_l0_c_phi"), first.type, em.span)
            then.stmts.append(S.YieldStmt([first], em.span))
            other.stmts.append(S.YieldStmt([acc], em.span))
            first_block_now = eq(ko, 0) if first_when is None else and_(eq(ko, 0), first_when)
            body.stmts.append(S.IfStmt(first_block_now, S.SeqStmts(then.stmts, em.span),
                                       S.SeqStmts(other.stmts, em.span), [phi], em.span))
            step = phi
        body.stmts.append(S.YieldStmt([step], em.span))
        name = f"{base}_l0_kmain" if tail else result_name
        done = E.Var(em.fresh(name) if tail else name, carry.type, em.span)
        em.stmts.append(pipeline_loop(ko, 0, full * k, k, carry, body.stmts, done, em.span))
    if tail:
        at = extract_from(em, f"{base}_l0_at", lhs, row, index(full * k), [m, tail], MemorySpace.Left)
        bt = extract_from(em, f"{base}_l0_bt", rhs, index(full * k), col, [tail, n], MemorySpace.Right)
        done = em.bind(f"{base}_l0_ct", em.call(site.form.accumulate_op, [done, at, bt]))
    return done


def _first_or_carried(em: Emitter, name: str, first_when: E.Expr,
                      first: Callable[[Emitter, str], E.Var], later: Callable[[Emitter, str], E.Var]) -> E.Var:
    """`if first_when: name_first = <first> else: name_acc = <later>`, the if's result named `name`."""
    then, other = Emitter(em.fresh, em.span), Emitter(em.fresh, em.span)
    a = first(then, f"{name}_first")
    b = later(other, f"{name}_acc")
    then.stmts.append(S.YieldStmt([a], em.span))
    other.stmts.append(S.YieldStmt([b], em.span))
    phi = E.Var(em.fresh(name), a.type, em.span)
    em.stmts.append(S.IfStmt(first_when, S.SeqStmts(then.stmts, em.span), S.SeqStmts(other.stmts, em.span), [phi],
                             em.span))
    return phi


__all__ = ["Window", "k_loop", "plus"]
