"""The DSA_RP solver (docs/passes/allocate_memory_addr.md, DSA_RP): a canonical greedy placement of one memory
space's buffers within its capacity.

Buffers are taken largest first (then earliest defined, then in definition order). Each one's candidate
addresses are the space's start (the reserved windows' end) and the 32-byte aligned end of every buffer placed
so far. A candidate is feasible when the buffer ends within the capacity (0: unbounded) and every placed buffer
whose bytes it would overlap may share with it (no hard separation). Among the feasible candidates the one with
the smallest total reuse penalty over the buffers it overlaps wins, the lowest address breaking ties: with room
to spare no buffer reuses bytes at a cost, under pressure the cheapest reuse is taken.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from pypto_core.analysis.memory import align
from pypto_plugins.pass_memory.dsa_rp.buffers import Buffer


@dataclass
class SpaceSolution:
    addresses: dict[int, int] = field(default_factory=dict)  # Buffer.index -> address
    unplaced: Buffer | None = None  # the first buffer with no feasible address

    @property
    def ok(self) -> bool:
        return self.unplaced is None


def place(buffers: list[Buffer], start: int, capacity: int, may_share: Callable[[Buffer, Buffer], bool],
          cost: Callable[[Buffer, Buffer], int]) -> SpaceSolution:
    solution = SpaceSolution()
    placed: list[Buffer] = []
    for buf in sorted(buffers, key=lambda b: (-b.size, b.start, b.index)):
        candidates = sorted({start} | {align(solution.addresses[p.index] + p.size) for p in placed})
        best: tuple[int, int] | None = None
        for address in candidates:
            if capacity and address + buf.size > capacity:
                break  # candidates are ascending: the rest end even later
            total = 0
            for other in placed:
                lo = solution.addresses[other.index]
                if address < lo + other.size and lo < address + buf.size:  # the bytes overlap
                    if not may_share(buf, other):
                        break
                    total += cost(buf, other)
            else:
                if best is None or total < best[0]:
                    best = (total, address)
                if total == 0:
                    break  # nothing cheaper comes at a higher address
        if best is None:
            solution.unplaced = buf
            return solution
        solution.addresses[buf.index] = best[1]
        placed.append(buf)
    return solution
