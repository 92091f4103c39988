"""A new version's definitions from the old version's, re-parsing only what a diff touched.

The backfill's hot path: parsing a whole file per changed blob costs 10-100x what the
diff costs. Instead each hunk is placed in a *region* of the innermost definition body
that holds it: the lines between two untouched statements of that body, or between one
and the body's edge (its first statement, when that starts a line of its own; its end).
At module level the file's start and end are edges too. Only the region's new text is
parsed, on its own; the rest of the tree is kept and shifted. Why this is exact:

* the text before the region is unchanged, so the tokenizer reaches the region's first
  line in the same state as before (a fresh statement of that body);
* the region parsed on its own (inside ``if 1:`` and closed by a ``pass`` at the body's
  indentation, for a nested body), so it leaves no bracket, string or block open, and
  what follows it (an untouched statement, or the body's end) reads as before. A region
  that runs to the body's end must also leave the definition ending where it did.

A module-level region whose new text opens indented continues the statement above it (a
method appended to a class, the diff placing it after the class's blank lines): it is
grown over that statement, which bounds it as well. When anything does not hold (the
region does not parse alone, an encoding cookie, a lone CR, a deeper-indented comment
that may extend the preceding definition) the new version is parsed whole. The regions
double as attribution windows: outside them, lines and their owners are identical in both
versions.
"""

from __future__ import annotations

import ast
import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from warpline.git.filecaps import MAX_ENTITIES, too_large
from warpline.git.hunks import Hunk
from warpline.lang.entities import (
    EntityKey,
    FileEntities,
    Node,
    Window,
    line_count,
    module_root,
    no_gc,
)
from warpline.lang.pyentities import parse_body, parse_entities
from warpline.lang.pyscan import extend_over_comments, scan_body

__all__ = ["Window", "reparse"]

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


@dataclass(slots=True)
class _Region:
    """The old lines one re-parse replaces, inside the innermost body that holds a hunk."""
    path: list[int]  # child indices from the module root to the body's node
    start: int  # absolute first line of that node (old version)
    first: int  # old lines first..last are replaced
    last: int
    touched: tuple[int, int]
    # Nested bodies: an untouched body statement whose indentation the body has (its first
    # line relative to the node, and whether it comes after the region), and whether the
    # region runs to the node's end (then the node's new end must be the region's).
    anchor: tuple[int, bool] = (0, False)
    to_end: bool = False
    delta: int = 0
    new_first: int = 0

    @property
    def new_last(self) -> int:
        """The last line the region's text takes in the new version."""
        return self.new_first + self.last - self.first + self.delta


def reparse(
    old: FileEntities, new_source: bytes, new_lines: list[bytes], hunks: Sequence[Hunk]
) -> tuple[FileEntities | None, list[Window] | None]:
    """(new entities or None when the new source does not parse, attribution windows or
    None meaning "compare whole files")."""
    if too_large(new_source) or _needs_whole_parse(new_source, new_lines):
        return parse_entities(new_source), None
    if old.tolerant:
        # The old version only the tolerant parser could read: whether this one parses
        # is its own fact. Spliced, it kept the old flag, and every later version of the
        # file with it (their nature unknown for good). ``ast`` first; a version still
        # broken is spliced as before (its flag is right).
        whole = parse_entities(new_source, tolerant_fallback=False)
        if whole is not None:
            return whole, None
    regions = _regions(old, hunks)
    spliced = _splice_all(old, regions, new_lines)
    retried = spliced is None and not old.tolerant and any(r.path for r in regions)
    if retried:
        # A region inside a definition did not parse alone (or changed where its
        # definition ends): the top-level statements around the edit usually do, at a
        # fraction of a whole parse. The same result as a whole parse, compared as one
        # (no windows), as when the whole file is parsed. Not for a version ``ast``
        # could not read: its whole parse is the tolerant parser's.
        regions = _regions(old, hunks, top=True)
        spliced = _splice_all(old, regions, new_lines)
    if spliced is None and not old.tolerant and _opens_indented(regions, new_lines):
        # The edit continues the statement above the region (a method appended at the
        # end of a class, just above the next top-level statement): grown over it.
        spliced = _splice_all(old, _regions(old, hunks, top=True, grow=1), new_lines)
    if spliced is None:
        return parse_entities(new_source), None
    return (spliced[0], None) if retried else spliced


def _splice_all(
    old: FileEntities, regions: list[_Region], new_lines: list[bytes]
) -> tuple[FileEntities | None, list[Window] | None] | None:
    """``regions`` re-parsed and spliced into ``old``; None when one does not parse."""
    delta_before = 0
    for region in regions:  # ascending: where each region lands in the new version
        region.new_first = region.first + delta_before
        delta_before += region.delta
    root, counts = old.root, dict(old.counts)
    with no_gc():
        for region in reversed(regions):  # bottom-up: positions above stay valid
            spliced = _apply(root, counts, region, new_lines)
            if spliced is None:
                return None
            root = spliced
    if len(counts) > MAX_ENTITIES:
        return None, None
    windows = [
        Window(r.first, r.last, r.new_first, r.new_last)
        for r in regions
    ]
    count = line_count(new_lines)
    root = module_root(root.firsts, root.lasts, root.children, count)
    return FileEntities(root, counts, count, old.tolerant), windows


def _needs_whole_parse(source: bytes, lines: list[bytes]) -> bool:
    for line in lines[:2]:
        match = _COOKIE.match(line)
        if match and not match.group(1).lower().replace(b"_", b"-").startswith(b"utf-8"):
            return True  # fragments would be decoded as UTF-8
    # A lone CR ends a line for Python but not for git: line numbers would disagree.
    return b"\r" in source and source.count(b"\r") != source.count(b"\r\n")


def _opens_indented(regions: list[_Region], new_lines: list[bytes]) -> bool:
    """Whether a module-level region's new text starts with an indented statement."""
    for region in regions:
        if region.path:
            continue
        for line in new_lines[region.new_first - 1 : region.new_last]:
            code = line.lstrip(b" \t\f")
            if code and not code.startswith(b"#"):
                if len(code) < len(line):
                    return True
                break
    return False


def _touched(hunk: Hunk) -> tuple[int, int]:
    old_start, old_lines, _, _ = hunk
    if old_lines:
        return old_start, old_start + old_lines - 1
    return old_start, old_start + 1  # an insertion touches both neighbouring lines


def _regions(
    old: FileEntities, hunks: Sequence[Hunk], top: bool = False, grow: int = 0
) -> list[_Region]:
    """The regions re-parsed for ``hunks``: in the innermost bodies, or (``top``) among
    the module's statements only, each with the ``grow`` statements above it too."""
    regions = sorted(
        (_locate(old, *_touched(h), top, grow) for h in hunks), key=lambda r: r.first
    )
    merged: list[_Region] = []
    for region in regions:
        while merged and region.first <= merged[-1].last:
            prev = merged.pop()
            low = min(prev.touched[0], region.touched[0])
            region = _locate(old, low, max(prev.touched[1], region.touched[1]), top, grow)
        merged.append(region)
    for hunk in hunks:
        low = _touched(hunk)[0]
        owner = next(r for r in reversed(merged) if r.first <= max(low, 1))
        owner.delta += hunk[3] - hunk[1]
    return merged


def _locate(
    old: FileEntities, low: int, high: int, top: bool = False, grow: int = 0
) -> _Region:
    """The region of the innermost body with untouched statements around ``low..high``
    (``top``: of the module's body, with the ``grow`` statements above it too)."""
    assert top or not grow
    node, start, path = old.root, 1, list[int]()
    i, j = _bounds(node, start, low, high)
    i -= grow
    best = _Region(
        [],
        1,
        1 if i < 0 else start + node.lasts[i] + 1,
        old.line_count if j >= len(node.firsts) else start + node.firsts[j] - 1,
        (low, high),
    )
    while not top:
        # Siblings are disjoint and in order: only the last one starting before ``low``
        # can hold ``low..high``.
        index = bisect_left(node.starts(), low - start) - 1
        if index < 0:
            return best
        child = node.children[index]
        child_start = start + node.starts()[index]
        if high > child_start + child.span or child.stub:
            return best
        node, start = child, child_start
        path = [*path, index]
        region = _nested(node, start, path, low, high)
        if region is not None:
            best = region
    return best


def _nested(node: Node, start: int, path: list[int], low: int, high: int) -> _Region | None:
    """The region inside ``node``'s body, or None when the body cannot bound one: a region
    needs an untouched statement on one side and, on the other, another untouched
    statement or the body's own edge (its first statement on a line of its own, its end).
    """
    i, j = _bounds(node, start, low, high)
    count = len(node.firsts)
    if count == 0 or (i < 0 and j >= count):
        return None
    if i >= 0:
        first = start + node.lasts[i] + 1
    elif node.lead and low >= start + node.firsts[0]:
        first = start + node.firsts[0]
    else:
        return None
    if j < count:
        return _Region(path, start, first, start + node.firsts[j] - 1, (low, high),
                       (node.firsts[j], True))  # fmt: skip
    return _Region(path, start, first, start + node.span, (low, high), (node.firsts[i], False),
                   True)  # fmt: skip


def _bounds(node: Node, start: int, low: int, high: int) -> tuple[int, int]:
    """Index of the last statement ending before ``low`` and of the first starting after
    ``high`` (-1 / len when there is none)."""
    return (
        bisect_left(node.lasts, low - start) - 1,
        bisect_right(node.firsts, high - start),
    )


def _apply(
    root: Node, counts: dict[EntityKey, int], region: _Region, new_lines: list[bytes]
) -> Node | None:
    new_last = region.new_last
    text = b"".join(line + b"\n" for line in new_lines[region.new_first - 1 : new_last])
    # The node's first line, as positioned in the new version (see _splice on "base").
    base = region.start + region.new_first - region.first
    node = root
    for index in region.path:
        node = node.children[index]
    if region.path:
        anchor_rel, after = region.anchor
        anchor = new_lines[base + anchor_rel + (region.delta if after else 0) - 1]
        indent = anchor[: len(anchor) - len(anchor.lstrip(b" \t"))]
        body = _parse_nested(text, indent)
        shift = region.new_first - 2
    else:
        indent = b""
        body = parse_body(text)
        shift = region.new_first - 1
    if body is None or _opens_with_deep_comment(text, len(indent)):
        return None
    try:
        firsts, lasts, children, added = scan_body(
            body, base, shift, _scope_prefix(node), new_lines
        )
    except RecursionError:
        return None
    if region.to_end:
        # The node must still end where the region does: else its parent changes too.
        tail = (
            lasts[-1]
            if lasts
            else node.lasts[bisect_left(node.lasts, region.first - region.start) - 1]
        )
        if extend_over_comments(new_lines, base + tail, node.col) != new_last:
            return None
    for key, n in added.items():
        counts[key] = counts.get(key, 0) + n
    return _splice(root, 1, region, 0, (firsts, lasts, children), counts)


def _parse_nested(text: bytes, indent: bytes) -> list[ast.stmt] | None:
    if not indent:
        return None
    body = parse_body(b"if 1:\n" + text + indent + b"pass\n")
    if body is None or len(body) != 1 or not isinstance(body[0], ast.If) or body[0].orelse:
        return None  # something in the region dedented out of the body
    inner = body[0].body
    return inner[:-1] if isinstance(inner[-1], ast.Pass) else None


def _opens_with_deep_comment(text: bytes, indent: int) -> bool:
    """A leading comment indented past the body may belong to the definition before the
    region (its trailing comments), which this region's parse cannot see."""
    for line in text.split(b"\n"):
        body = line.lstrip(b" \t\f")
        if body.strip():
            return body.startswith(b"#") and len(line) - len(body) > indent
    return False


def _scope_prefix(node: Node) -> str:
    kind, qualname = node.key
    if kind == "module":
        return ""
    return qualname + (".<locals>." if kind == "function" else ".")


Fragment = tuple["array[int]", "array[int]", tuple[Node, ...]]


def _splice(
    node: Node,
    start: int,
    region: _Region,
    depth: int,
    fragment: Fragment,
    counts: dict[EntityKey, int],
) -> Node:
    delta = region.delta
    if depth == len(region.path):
        low, high = region.first - start, region.last - start
        i, j = bisect_left(node.lasts, low), bisect_right(node.firsts, high)
        before: list[Node] = []  # (children are relative to the previous one: see Node)
        after: list[Node] = []
        at = after_at = before_at = 0
        for child in node.children:
            at += child.off
            if at + child.span < low:
                before.append(child)
                before_at = at
            elif at > high:
                if not after:
                    after_at = at + delta
                after.append(child)
            else:
                for gone in child.walk():  # the region's old definitions
                    if not gone.stub:
                        counts[gone.key] -= 1
                        if not counts[gone.key]:
                            del counts[gone.key]
        added = list(fragment[2])
        at = before_at
        if added:  # the fragment's first child was placed relative to the node
            at = sum(c.off for c in added)
            added[0] = _moved(added[0], added[0].off - before_at)
        if after:
            after[0] = _moved(after[0], after_at - at)
        children = (*before, *added, *after)
        firsts = node.firsts[:i] + fragment[0] + _shift(node.firsts[j:], delta)
        lasts = node.lasts[:i] + fragment[1] + _shift(node.lasts[j:], delta)
        return node.replaced(node.off, node.span + delta, firsts, lasts, children)
    index = region.path[depth]
    child = node.children[index]
    child_at = node.starts()[index]
    inner = _splice(child, start + child_at, region, depth + 1, fragment, counts)
    later = node.children[index + 1 :]
    if delta and later:
        later = (later[0].shifted(delta), *later[1:])
    children = (*node.children[:index], inner, *later)
    k = bisect_right(node.firsts, child_at) - 1  # the statement holding the child
    firsts = node.firsts[: k + 1] + _shift(node.firsts[k + 1 :], delta)
    lasts = node.lasts[:k] + _shift(node.lasts[k:], delta)
    return node.replaced(node.off, node.span + delta, firsts, lasts, children)


def _moved(node: Node, off: int) -> Node:
    return node if node.off == off else node.shifted(off - node.off)


def _shift(values: array[int], delta: int) -> array[int]:
    return array("i", [v + delta for v in values]) if delta else values
