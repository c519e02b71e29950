"""Entry point of the pipeline_presets plugin (group `pypto.plugins`)."""
