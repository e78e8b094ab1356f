"""YAML from someone else (a workflow file in a checkout, a facts file) loaded with
bounds: aliases may not expand the document past a node budget, nesting may not pass a
depth limit, and the text itself is capped.

Why: PyYAML shares an anchored node between its aliases, so a 600-byte "billion
laughs" document loads quickly into a small object graph, but anything that *walks* the
result visits every alias expansion: nine levels of nine aliases is 387 million nodes.
Counting the expanded size on the composed node graph (each distinct node once, with
memoisation) is linear in the text and refuses the document before any walk. The
composer is recursive, so the depth is checked as nodes are composed.

Pure: text in, Python values out (``safe_load`` semantics: plain data types only).
"""

from __future__ import annotations

from typing import Any

import yaml

MAX_NODES = 100_000  # a large real workflow expands to a few thousand nodes
MAX_DEPTH = 64
MAX_CHARS = 2 * 1024 * 1024


class UnsafeYAML(ValueError):
    """The document is refused; the message says which bound it passed."""


class _BoundedLoader(yaml.SafeLoader):
    """``SafeLoader`` that refuses documents nested deeper than ``max_depth``."""

    max_depth = MAX_DEPTH

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > self.max_depth:
                mark = self.peek_event().start_mark
                raise UnsafeYAML(f"nested deeper than {self.max_depth} levels "
                                 f"(line {mark.line + 1})")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def expanded_size(root: yaml.Node, *, limit: int = MAX_NODES) -> int:
    """The number of nodes ``root`` stands for with every alias expanded; stops with
    ``UnsafeYAML`` past ``limit`` or on a recursive alias. Each distinct node is
    measured once, iteratively."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        kids: list[yaml.Node] = []
        if isinstance(node, yaml.SequenceNode):
            kids = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            kids = [n for pair in node.value for n in pair]
        if children_done:
            on_path.discard(key)
            total = 1 + sum(sizes[id(k)] for k in kids)
            if total > limit:
                raise UnsafeYAML(f"aliases expand it past {limit:,} nodes")
            sizes[key] = total
            continue
        if key in on_path:
            raise UnsafeYAML("an alias refers to a node that contains it")
        on_path.add(key)
        stack.append((node, True))
        for kid in kids:
            if id(kid) in on_path:
                raise UnsafeYAML("an alias refers to a node that contains it")
            if id(kid) not in sizes:
                stack.append((kid, False))
    return sizes[id(root)]


def load(text: str, *, max_nodes: int = MAX_NODES, max_depth: int = MAX_DEPTH,
         max_chars: int = MAX_CHARS) -> Any:
    """Like ``yaml.safe_load``, within the bounds; raises ``UnsafeYAML`` (a
    ``ValueError``) past one, ``yaml.YAMLError`` on invalid YAML."""
    if len(text) > max_chars:
        raise UnsafeYAML(f"{len(text):,} characters, over the {max_chars:,} cap")
    loader = _BoundedLoader(text)
    loader.max_depth = max_depth
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        expanded_size(node, limit=max_nodes)
        return loader.construct_document(node)
    finally:
        loader.dispose()
