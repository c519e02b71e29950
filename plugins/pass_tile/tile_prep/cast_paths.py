"""The shortest chain of native conversions between two dtypes (docs/passes/legalize_tile_cast.md, rules).

A breadth-first search over the backend's native (source, target) pairs: expanding a node tries the float of
its own width first (an integer of 32 bits: FP32, of 16 bits: FP16), then the pairs in the backend's order. An
intermediate dtype that provably loses values the target can hold is never entered. Among paths of the same
length the cheaper one wins (an integer to the float of its width costs 0, float to float 1, any other hop 2),
else the first found.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from pypto_core.ir.dtypes import DataType

# (significand bits with the implicit one, exponent bits) of the float dtypes a conversion may pass through.
_FLOAT_BITS: dict[DataType, tuple[int, int]] = {
    DataType.FP32: (24, 8), DataType.FP16: (11, 5), DataType.BF16: (8, 8),
    DataType.FP8E4M3FN: (4, 4), DataType.FP8E5M2: (3, 5), DataType.HF8: (4, 5), DataType.FP4: (2, 2),
}
_SAME_WIDTH_FLOAT = {32: DataType.FP32, 16: DataType.FP16}


def _value_bits(dtype: DataType) -> int:
    return dtype.get_bit() - 1 if dtype.is_signed_int() else dtype.get_bit()


def loses_values(node: DataType, target: DataType) -> bool:
    """Passing through `node` may lose a value `target` holds."""
    if node.is_int() and target.is_float():
        return True
    if node.is_float() and target.is_float():
        (ns, ne), (ts, te) = _FLOAT_BITS.get(node, (0, 0)), _FLOAT_BITS.get(target, (0, 0))
        return ns < ts or ne < te
    if node.is_float() and target.is_int():
        return _FLOAT_BITS.get(node, (0, 0))[0] < _value_bits(target)
    if node.is_int() and target.is_int():
        return (not node.is_signed_int() and target.is_signed_int()) or _value_bits(node) < _value_bits(target)
    return True


def _hop_cost(src: DataType, dst: DataType) -> int:
    if src.is_int() and dst.is_float() and src.get_bit() == dst.get_bit():
        return 0
    return 1 if src.is_float() and dst.is_float() else 2


def _successors(node: DataType, edges: Sequence[tuple[DataType, DataType]]) -> list[DataType]:
    targets = [dst for src, dst in edges if src is node]
    preferred = None if node.is_float() else _SAME_WIDTH_FLOAT.get(node.get_bit())
    if preferred in targets:
        targets.remove(preferred)  # type: ignore[arg-type]
        targets.insert(0, preferred)  # type: ignore[arg-type]
    return targets


def cast_path(source: DataType, target: DataType,
              edges: Sequence[tuple[DataType, DataType]]) -> list[DataType] | None:
    """The dtypes after `source` on the shortest admissible chain to `target` (ending with it); [] when no
    conversion is needed or it is native; None when there is no admissible chain."""
    if source is target or (source, target) in edges:
        return []
    depth = {source: 0}
    best: dict[DataType, tuple[int, list[DataType]]] = {source: (0, [])}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        cost, path = best[node]
        for nxt in _successors(node, edges):
            if nxt is not target and loses_values(nxt, target):
                continue
            candidate = (cost + _hop_cost(node, nxt), [*path, nxt])
            if nxt not in depth:
                depth[nxt] = depth[node] + 1
                best[nxt] = candidate
                if nxt is not target:
                    queue.append(nxt)
            elif depth[nxt] == depth[node] + 1 and candidate[0] < best[nxt][0]:
                best[nxt] = candidate
    found = best.get(target)
    return None if found is None else found[1]
