"""`pypto.backend` (filled in with the pipeline work)."""
