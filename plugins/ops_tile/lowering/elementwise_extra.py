"""Pass rewrite rules of the elementwise_extra ops (issue 14): tile forms, 2-D flattening, split forms."""

from __future__ import annotations

from typing import Any


def tile_forms() -> dict[str, Any]:
    return {}


def flatten_rules() -> dict[str, Any]:
    return {}


def split_forms() -> dict[str, Any]:
    return {}
