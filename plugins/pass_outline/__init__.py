"""The pass_outline plugin (filled in by its issue's work)."""
