"""The backend_ascend910b plugin (filled in by its issue's work)."""
