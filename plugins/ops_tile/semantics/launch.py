"""The numpy semantics of the launch family's ops (../families/launch.py), imported when the reference machine
first runs an op, never by a process that only compiles (pypto_core/ops/semantics_module.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from pypto_core.ops.semantics_module import Semantics
from pypto_plugins.ops_tile.families.launch import CLUSTERS

semantics = Semantics()


@semantics("tile.get_subblock_idx", "tensor.get_subblock_idx")
def subblock_idx(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(ctx.lane)


@semantics("tile.get_block_idx", "tensor.get_block_idx")
def block_idx(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(0)


@semantics("tile.get_block_num", "tensor.get_block_num")
def block_num(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(CLUSTERS)


@semantics("system.available_aiv_count")
def aiv_count(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int32(ctx.machine.shape.aiv_lanes * CLUSTERS)


@semantics("system.available_cluster_count")
def cluster_count(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int32(CLUSTERS)


@semantics("system.task_invalid")
def task_invalid(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(-1)


@semantics("system.task_dummy")
def completed_task_id(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.int64(0)


@semantics("system.task_is_valid")
def task_is_valid(ctx: Any, call: Any, args: list, kwargs: dict) -> Any:
    return np.bool_(int(args[0]) != -1)
