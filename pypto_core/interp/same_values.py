"""Do two writes of overlapping GM windows (or two lanes' no-split pushes) hold the same bytes?

Two concurrent writes of the same values are fine (a dual-dispatch kernel's lanes store the same data
twice, docs/passes/split_vector_kernel.md); of different values they are a race (docs/architecture.md, the reference machine): gm_race.py and fifo.py ask here.
Bytes, not numbers, are compared: GM holds bytes (-0.0 is not 0.0, and a NaN equals itself).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

Difference = tuple[tuple[int, ...], Any, Any]  # (index in the buffer, the second write's value, the first's)


class Window(Protocol):
    """What gm_race._Region gives: the element box in its buffer (None: not a box) and the view itself."""
    box: tuple[tuple[int, int], ...] | None
    view: np.ndarray


def bytes_differ(a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """Element-wise: do the bytes differ? None: not comparable element by element (other item sizes)."""
    if a.dtype.itemsize != b.dtype.itemsize or a.dtype.itemsize not in (1, 2, 4, 8):
        return None
    as_bits = np.dtype(f"u{a.dtype.itemsize}")
    return np.ascontiguousarray(a).view(as_bits) != np.ascontiguousarray(b).view(as_bits)


def first_difference(a: Window, a_data: np.ndarray, b: Window, b_data: np.ndarray,
                     root: np.ndarray) -> Difference | None:
    """The first overlapping element windows `a` and `b` of buffer `root` hold different bytes in `a_data` /
    `b_data` (snapshots of the windows), or None. Its index is () when the overlap cannot be compared
    element by element (a reinterpreted view): reported, to be safe."""
    if a.box is not None and b.box is not None:
        inter = [(max(s1, s2), min(e1, e2)) for (s1, e1), (s2, e2) in zip(a.box, b.box)]
        part_a = a_data[tuple(slice(lo - s, hi - s) for (lo, hi), (s, _) in zip(inter, a.box))]
        part_b = b_data[tuple(slice(lo - s, hi - s) for (lo, hi), (s, _) in zip(inter, b.box))]
    else:
        ia, ib = _flat_index(a.view, root), _flat_index(b.view, root)
        if ia is None or ib is None:
            return (), "?", "?"
        common, pa, pb = np.intersect1d(ia.ravel(), ib.ravel(), return_indices=True)
        part_a, part_b = a_data.ravel()[pa], b_data.ravel()[pb]
    diff = bytes_differ(part_a, part_b)
    if diff is None:
        return (), "?", "?"
    if not diff.any():
        return None
    first = tuple(int(i) for i in np.argwhere(diff)[0])
    if a.box is not None and b.box is not None:
        at = tuple(lo + i for (lo, _), i in zip(inter, first))
    else:
        at = tuple(int(i) for i in np.unravel_index(int(common[first[0]]), root.shape))
    return at, part_b[first], part_a[first]


def _flat_index(view: np.ndarray, root: np.ndarray) -> np.ndarray | None:
    """The flat index in `root` of every element of `view` (None: not an element-aligned view)."""
    item = root.itemsize
    offset = view.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    if (view.dtype.itemsize != item or not root.flags.c_contiguous or offset % item
            or any(st % item for st in view.strides)):
        return None
    index = np.full(view.shape, offset // item, dtype=np.int64)
    for axis, (n, st) in enumerate(zip(view.shape, view.strides)):
        shape = [1] * view.ndim
        shape[axis] = n
        index = index + (np.arange(n, dtype=np.int64) * (st // item)).reshape(shape)
    return index
