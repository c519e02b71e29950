"""The op families of the ops_tile plugin (docs/plugins.md, an op): one module per family, each holding, for
each of its ops, the OpDef, the numpy semantics, the op-interface implementations (tile form, 2-D form) and
the `pl` DSL builder. Helpers several families share are in ../common/. The split forms of these ops are the
pass_split plugin's (plugins/pass_split/split_forms/).

| family | ops |
|---|---|
| binary | add sub mul div maximum minimum rem fmod pow and or xor shl shr, their scalar forms |
| unary | exp neg abs sqrt relu floor ceil sin cos tanh sigmoid square not log recip rsqrt |
| cast_compare_select | cast, cmp / cmps, sel / sels |
| partial | part_add part_max part_min part_mul |
| fused | addc subc addsc subsc prelu lrelu |
| reductions | row_* / col_* sum max min prod argmax argmin |
| broadcasts | row_expand* / col_expand* |
| matmul, matmul_mx | the cube products; the MX products and tget_scale_addr |
| memory | load store move extract read write dim |
| views, transpose | slice reshape reinterpret_view set_validshape view; transpose transpose_view |
| assemble, padding | assemble concat expand_clone; fillpad fillpad_inplace fillpad_expand |
| creation, generators | full create create_l1 expands alloc; ci random tri |
| gather, gm_gather, scatter, sort | the index-addressed ops |
| cross_core, pipes, sync, launch | AIV split boundaries and FIFOs; pipe setup; synchronisation; launch queries, task ids |
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pypto_core.ops.family import OpFamily
from pypto_plugins.ops_tile.families import (
    assemble,
    binary,
    broadcasts,
    cast_compare_select,
    creation,
    cross_core,
    fused,
    gather,
    generators,
    gm_gather,
    launch,
    matmul,
    matmul_mx,
    memory,
    padding,
    partial,
    pipes,
    reductions,
    scatter,
    sort,
    sync,
    transpose,
    unary,
    views,
)
from pypto_plugins.ops_tile.families.in_place_safety import apply_in_place_safety

FAMILIES: tuple[OpFamily, ...] = tuple(m.family for m in (
    binary, unary, cast_compare_select, partial, fused, reductions, broadcasts, matmul, matmul_mx,
    memory, views, transpose, assemble, padding, creation, generators, gather, gm_gather, scatter, sort,
    cross_core, pipes, sync, launch,
))
apply_in_place_safety(FAMILIES)


# -- what the families registered, by name (for tests and tools that inspect the plugin) ------------------
def tile_forms() -> dict[str, Any]:
    """The registered tile forms (the `tile_form` implementations), by op name."""
    from pypto_core.ops.registry import op_registry

    return op_registry().implementations("tile_form")


def flatten_rules() -> dict[str, Any]:
    """The registered 2-D forms (the `flatten_2d` implementations), by op name."""
    from pypto_core.ops.registry import op_registry

    return op_registry().implementations("flatten_2d")


class _Builders(Mapping[str, Mapping[str, Any]]):
    """The IR builders by namespace: `NAMESPACES["tile"]["load"]` is `pypto.ir.op.tile_ops.load`."""

    def _table(self) -> dict[str, dict[str, Any]]:
        from pypto_core.ops.registry import op_registry

        return op_registry().builders

    def __getitem__(self, namespace: str) -> Mapping[str, Any]:
        return self._table()[namespace]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


NAMESPACES: Mapping[str, Mapping[str, Any]] = _Builders()
