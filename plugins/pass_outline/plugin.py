"""Entry point of the pass_outline plugin (group `pypto.plugins`)."""
