"""The ops_tile plugin: every tile.*, tensor.* and system.* op, its `pl` DSL names and IR builders."""
