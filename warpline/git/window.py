"""The attribution window of an edit whose new version was read whole (a tree-sitter
reader, or Python's whole parse): from the first hunk to the last, when every line before
the first and after the last has the same owner in both versions.

Then a definition's own text is its lines before the window, inside it and after it, the
first and last parts identical in both versions: the texts differ exactly when their
parts inside the window differ, so the comparison reads the window instead of both whole
files. Owners are compared through the definitions laid over those lines (each line's
owner is the last definition covering it, in the order ``FileEntities.paint`` lays them),
which costs the definitions, not the lines.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from warpline.git.hunks import Hunk
from warpline.lang.entities import EntityKey, FileEntities, Node, Window

__all__ = ["ENABLED", "one_window"]

# Off: every such edit compares whole files (the reference the benches compare against).
ENABLED = True

_Write = tuple[EntityKey, int, int]


def one_window(old: FileEntities, new: FileEntities, hunks: Sequence[Hunk]) -> Window | None:
    """The window, or None when the lines around the hunks change owner (compare whole)."""
    if not hunks or not ENABLED:
        return None
    first, last = hunks[0], hunks[-1]
    head = first[0] - 1 if first[1] else first[0]  # lines 1..head precede every hunk
    if head != (first[2] - 1 if first[3] else first[2]):
        return None
    old_tail = last[0] + last[1] if last[1] else last[0] + 1  # the first line after
    new_tail = last[2] + last[3] if last[3] else last[2] + 1
    if old.line_count - old_tail != new.line_count - new_tail:
        return None
    if _writes(old, 1, head, 0) != _writes(new, 1, head, 0):
        return None
    if _writes(old, old_tail, old.line_count, old_tail) != _writes(
            new, new_tail, new.line_count, new_tail):
        return None
    return Window(head + 1, old_tail - 1, head + 1, new_tail - 1)


def _writes(fe: FileEntities, low: int, high: int, base: int) -> list[_Write]:
    """What ``paint(low, high)`` lays, in order: (owner, first, last) relative to
    ``base``."""
    out: list[_Write] = []
    if high >= low:
        _lay(fe, fe.root, 1, low, high, base, out)
    return out


def _lay(fe: FileEntities, parent: Node, at: int, low: int, high: int, base: int,
         out: list[_Write]) -> None:
    counts = fe.counts
    nodes = parent.children
    starts = parent.starts()
    for index in range(max(bisect_right(starts, low - at) - 1, 0), len(nodes)):
        start = at + starts[index]
        if start > high:
            break
        node = nodes[index]
        end = start + node.span
        if end < low or (node.stub and node.key not in counts):
            continue  # as paint: a stub without an implementation lays nothing
        out.append((node.key, max(start, low) - base, min(end, high) - base))
        if node.children:
            _lay(fe, node, start, low, high, base, out)
