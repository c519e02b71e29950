"""The split forms of pypto's own ops: how LowerAutoVectorSplit halves a call whose operands describe the
shape or the window of its result (the `split_form` op interface, interfaces.py;
docs/passes/lower_auto_vector_split.md, ops that describe a shape or an address). Every other op needs nothing but its
halved operands. Each rule is a function named for what it does, so one grep of the name finds it:

windows.py
* `halve_load_window` (tile.load): the window's extent on the split axis halves, its offset moves to the
  lane's part and its valid extent becomes the lane's; `one_element_deep_is_a_broadcast_read`: a window one
  element deep on that axis is kept, every lane reads the same row.
* `store_at_the_lanes_offset` (tile.store of a split tile): the offset moves to the lane's part of the
  destination.
* `halve_slice_window` (tile.slice): of a split tile, `a_window_of_a_split_tile_spans_the_split_axis` and the
  slice halves with its source; of a full-width tile, the window halves and moves like a load's. drop_dims
  is mapped both ways (`axis_after_dropping_dims`, `axis_before_dropping_dims`).

shapes.py
* `halve_full_shape` (tile.full): its shape halves.
* `halve_view` (tile.reshape, tile.reinterpret_view): a split source keeps its split axis when
  `the_split_axis_survives_whole` (its position may move: [N, 1] <-> [1, N]); a full-width source is
  `viewed_whole_then_sliced_per_lane`.
* `halve_fillpad_expand_shape` (tile.fillpad_expand): its shape operand halves with its source, unless the
  split axis is the one expanded (rejected).
* `concat_of_row_split_sources` (tile.concat): it halves with its sources when both are split on the row
  axis; a column split would interleave them (rejected).

values.py
* `position_dependent_values_cannot_be_halved` (tile.ci, tile.random, tile.tri): their values depend on the
  element position, which a halved type cannot express (rejected on the split axis).
* `compare_the_lanes_part` (tile.cmp, tile.cmps): the packed predicate of a lane's part is the compare of
  that part (its byte width is that of the lane's columns, not half the full mask's): re-typed by its
  deducer and split like its operands.

The plugin's `pypto_register_ops` hook registers SPLIT_FORMS; the ops themselves are the ops_tile plugin's.
"""

from __future__ import annotations

from pypto_core.ops.split_form import SplitFormFn
from pypto_plugins.pass_split.split_forms.shapes import (
    concat_of_row_split_sources,
    halve_fillpad_expand_shape,
    halve_full_shape,
    halve_view,
)
from pypto_plugins.pass_split.split_forms.values import (
    compare_the_lanes_part,
    position_dependent_values_cannot_be_halved,
)
from pypto_plugins.pass_split.split_forms.windows import (
    halve_load_window,
    halve_slice_window,
    store_at_the_lanes_offset,
)

SPLIT_FORMS: dict[str, SplitFormFn] = {
    "tile.load": halve_load_window,
    "tile.store": store_at_the_lanes_offset,
    "tile.slice": halve_slice_window,
    "tile.full": halve_full_shape,
    "tile.reshape": halve_view("tile.reshape", row_major_reshape=True),
    "tile.reinterpret_view": halve_view("tile.reinterpret_view", row_major_reshape=False),
    "tile.fillpad_expand": halve_fillpad_expand_shape,
    "tile.concat": concat_of_row_split_sources,
    "tile.ci": position_dependent_values_cannot_be_halved,
    "tile.random": position_dependent_values_cannot_be_halved,
    "tile.tri": position_dependent_values_cannot_be_halved,
    "tile.cmp": compare_the_lanes_part,
    "tile.cmps": compare_the_lanes_part,
}
