"""The backend_ascend950 plugin (filled in by its issue's work)."""
