"""Entry point of the pass_ssa plugin (group `pypto.plugins`)."""
