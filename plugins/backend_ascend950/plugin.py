"""Entry point of the backend_ascend950 plugin (group `pypto.plugins`)."""
