"""Where each key and array entry of a TOML text is, so that configuration errors name their line.

tomllib reads the values but keeps no positions; the tree-sitter TOML grammar (tree-sitter-toml) parses the
same text into a syntax tree with a position on every node. One parse per text (cached), so reporting many
errors in one file stays linear.
"""

from __future__ import annotations

import functools
from typing import Any

KeyPath = tuple[str, ...]  # ("pipeline", "passes", "2"): an array entry is its index, as a string


@functools.lru_cache(maxsize=8)
def key_lines(text: str) -> dict[KeyPath, int]:
    """The 1-based first line of every table header, key (dotted keys and inline tables included) and array
    entry (nested arrays too) of `text`; an unparsable part is left out."""
    import tree_sitter
    import tree_sitter_toml

    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_toml.language()))
    tree = parser.parse(text.encode("utf-8"))
    found: dict[KeyPath, int] = {}
    table: KeyPath = ()
    for node in tree.root_node.children:
        if node.type == "table":
            table = _key_of(node)
            found.setdefault(table, node.start_point[0] + 1)
            for child in node.children:
                if child.type == "pair":
                    _pair(child, table, found)
        elif node.type == "table_array_element":
            table = ()  # arrays of tables are no part of pypto.toml: their keys are not placed
        elif node.type == "pair":
            _pair(node, (), found)
    return found


def line_of(text: str, path: KeyPath) -> int | None:
    """The line of `path`, else of its nearest enclosing key or table that has one."""
    lines = key_lines(text)
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None


def _pair(node: Any, table: KeyPath, found: dict[KeyPath, int]) -> None:
    path = table + _key_of(node)
    found.setdefault(path, node.start_point[0] + 1)
    value = node.children[-1] if node.children else None
    if value is not None:
        _value(value, path, found)


def _value(node: Any, path: KeyPath, found: dict[KeyPath, int]) -> None:
    if node.type == "array":
        entries = [c for c in node.children if c.is_named and c.type != "comment"]
        for i, entry in enumerate(entries):
            found.setdefault(path + (str(i),), entry.start_point[0] + 1)
            _value(entry, path + (str(i),), found)
    elif node.type == "inline_table":
        for child in node.children:
            if child.type == "pair":
                _pair(child, path, found)


def _key_of(node: Any) -> KeyPath:
    """The key path a table header or a pair names (`a."b c".d` -> ("a", "b c", "d"))."""
    for child in node.children:
        if child.type in ("bare_key", "quoted_key", "dotted_key"):
            return _key_parts(child)
    return ()


def _key_parts(node: Any) -> KeyPath:
    if node.type == "dotted_key":
        parts: KeyPath = ()
        for child in node.children:
            if child.type in ("bare_key", "quoted_key", "dotted_key"):
                parts += _key_parts(child)
        return parts
    raw = node.text.decode("utf-8")
    if node.type == "quoted_key":
        return (_unquote(raw),)
    return (raw,)


def _unquote(raw: str) -> str:
    """A quoted key's name, its escapes read as TOML reads them."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        return str(tomllib.loads(f"k = {raw}")["k"])
    except tomllib.TOMLDecodeError:
        return raw.strip("\"'")
