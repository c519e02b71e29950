"""Entry point of the backend_ascend910b plugin (group `pypto.plugins`)."""
