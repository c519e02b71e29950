"""Toy passes and helpers for the pipeline, config, CLI and plugin tests (not tests themselves)."""
