"""The pass_ssa plugin (filled in by its issue's work)."""
