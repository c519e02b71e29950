"""The DSA_RP reuse penalties (docs/passes/allocate_memory_addr.md, DSA_RP): soft edges between two buffers that
may share bytes (no hard separation) when sharing would make a pipe wait for another.

Buffer `b` taking bytes of an earlier buffer `a` means `b`'s first writer must wait until every access to `a`
is done: when some pipe that writes or reads `a` is not `b`'s first writer's pipe, that wait is a cross-pipe
synchronisation (a WAR or WAW hazard across pipes) and the pair costs 1. Same-pipe reuse is free (the pipe
orders its own work). Edges are listed for each later buffer, nearest earlier buffer first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pypto_plugins.pass_memory.dsa_rp.buffers import Buffer
from pypto_plugins.pass_memory.dsa_rp.pipes import BufferPipes

CROSS_PIPE_COST = 1


@dataclass(frozen=True)
class SoftEdge:
    first: Buffer
    second: Buffer
    cost: int

    def as_dict(self) -> dict[str, object]:
        return {"first_interval": self.first.index, "second_interval": self.second.index,
                "first_name": self.first.name, "second_name": self.second.name, "cost": self.cost}


def reuse_cost(earlier: BufferPipes | None, later: BufferPipes | None) -> int:
    if earlier is None or later is None or later.first_writer is None:
        return 0
    return CROSS_PIPE_COST if any(p is not later.first_writer for p in earlier.touching) else 0


def soft_edges(buffers: list[Buffer], may_share: Callable[[Buffer, Buffer], bool],
               pipes: dict[int, BufferPipes]) -> list[SoftEdge]:
    ordered = sorted((b for b in buffers if not b.fixed), key=lambda b: (b.start, b.index))
    edges = []
    for j, later in enumerate(ordered):
        for earlier in reversed(ordered[:j]):
            if earlier.space is not later.space or not may_share(earlier, later):
                continue
            cost = reuse_cost(pipes.get(id(earlier.base)), pipes.get(id(later.base)))
            if cost:
                edges.append(SoftEdge(earlier, later, cost))
    return edges
