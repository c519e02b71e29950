"""The pipeline_presets plugin (filled in by its issue's work)."""
