"""numpy semantics of the system_matmul ops (issue 14): launch queries, ordering ops, task ids, MX matmul.

The reference machine runs one core group per launch (semantics/cross_core.py: block index 0), so a
block query answers index 0 of 1 block; the group has `machine.shape.aiv_lanes` AIV lanes (2 on Ascend)
and the subblock index is the lane running the call. Barriers, fences and pipe flags order pipes of a
real core; the machine runs each core's ops in program order, so they change no value (None). Task ids:
task_invalid is -1 (cross_core.py), task_dummy a task that completes at once (id 0), task_is_valid
tells them apart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pypto_plugins.ops_tile.semantics import system_matmul_mx

CLUSTERS = 1  # one core group (cluster) per launch


def block_idx(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(0)


def block_num(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(CLUSTERS)


def subblock_idx(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(ctx.lane)


def aiv_count(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int32(ctx.machine.shape.aiv_lanes * CLUSTERS)


def cluster_count(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int32(CLUSTERS)


def no_value(ctx: Any, call: Any, args: list, kwargs: dict) -> None:
    return None


def task_dummy(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(0)


def task_is_valid(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.bool_(int(args[0]) != -1)


def evaluators() -> dict[str, Callable[..., Any]]:
    return {
        "tile.get_block_num": block_num, "tensor.get_block_idx": block_idx, "tensor.get_block_num": block_num,
        "tensor.get_subblock_idx": subblock_idx, "system.available_aiv_count": aiv_count,
        "system.available_cluster_count": cluster_count,
        **{f"system.{n}": no_value for n in ("bar_all", "bar_m", "bar_v", "fence", "sync_src", "sync_dst")},
        "system.task_dummy": task_dummy, "system.task_is_valid": task_is_valid,
        **system_matmul_mx.evaluators(),
    }
