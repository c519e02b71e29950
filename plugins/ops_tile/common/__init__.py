"""Helpers several op families share (families/ holds the ops themselves, one module per family).

* names.py: the op-name sets the element-wise, reduction and broadcast families are built from;
* shapes.py: shape and valid-region rules of the type deducers (tiles and tensors);
* views.py: the tile view (layout, valid region) a result carries; memory-space declarations;
* elementwise.py: the dtype rules and deducers the element-wise families share;
* indexing.py: the rules of the index-addressed ops (gather, scatter, sort);
* semantics.py: numpy helpers of the ops' semantics (windows, valid regions, element-wise evaluates);
* conversion.py: dtype conversion with the rounding modes of tile.cast;
* tile_forms.py: building blocks of the tile forms (ConvertTensorToTileOps);
* flatten.py: building blocks of the 2-D forms (FlattenTileNdTo2D);
* dsl.py: DSL conversion helpers (literal retyping, optional kwargs, tile / tensor dispatch).
"""
