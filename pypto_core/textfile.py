"""Reading a user's text file with a bound (docs/limits.md, files: `/dev/zero` as the program or the configuration is an
error, not a read until memory runs out) and an error that names the file."""

from __future__ import annotations

from pathlib import Path

MAX_PROGRAM_BYTES = 16 * 1024 * 1024  # the parser's own bound (pypto_core/language/parser/limits.py)
MAX_CONFIG_BYTES = 1024 * 1024


class TextFileError(ValueError):
    """The file cannot be read as UTF-8 text of at most the allowed size."""


def read_text_bounded(path: str | Path, limit: int, what: str) -> str:
    """The UTF-8 text of `path`; at most `limit` bytes are read."""
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        if what == "program":  # the shell's wording, as for any file argument
            raise TextFileError(f"{path}: {exc.strerror or exc}") from None
        raise TextFileError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise TextFileError(f"{path}: the {what} is larger than {limit:,} bytes; pypto reads at most that much")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TextFileError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); the {what} must be a "
                            f"UTF-8 text file") from None
