"""Subcommands of the `pypto` command: each module exposes `register(subparsers)` and its handler."""
