"""A tree-sitter reader's captures as position-free records, re-read only where an edit
reached: the definitions query runs over the edited byte ranges of the new version, every
other definition is the old version's record, shifted.

A reader turns one capture (node, capture name) into a ``Rec``: the span it nests by,
its first and last line, what it reads from the tree (``data``: kind, name, flags), and
the bytes that reading depends on (``lo..hi``, plus an optional ``head`` range: a
container's header it asks about, such as the class around a Java member). A record is
kept for the new version when none of those bytes was edited and tree-sitter reports no
change of structure there (``Tree.changed_ranges``): its node is then the same text,
parsed the same way, with the same neighbours it looked at. Every other record is read
again: the query runs (``QueryCursor.set_byte_range``) over the edited ranges, the
structural changes, and where each dropped record's node now lies. A query pattern that
reads a node's ancestors (Rust's trait method signatures) names the ancestor's type in
``context``: a captured ancestor of that type in an edited range is queried whole.

The whole query and this one give the same records (``tests/test_lang_regions.py``; the
corpora's event digests, ``bench/README.md``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any

from warpline.git.filecaps import too_large
from warpline.lang.tsdefs import MAX_ERROR_SHARE, Edit, Offsets

__all__ = ["EDITED_REGIONS", "Rec", "Recorder", "records", "stats"]

# Off: every version's query runs over the whole tree (the reference the tests and
# ``bench/profile_walk.py --check-regions`` compare against).
EDITED_REGIONS = True
# On: every version re-read in regions is read whole as well and the two compared (a
# difference is counted in ``stats["differ"]`` and kept in ``DIFFERENCES``).
CHECK = False
DIFFERENCES: list[tuple[bytes, bytes, list[Rec], list[Rec]]] = []

Span = tuple[int, int]


class Rec:
    """One capture read, free of the tree: bytes ``start..end`` (what it nests by; the
    captured node starts at ``at``), lines ``first..last`` (1-based, inclusive), the
    bytes its reading depends on (``lo..hi``, ``head`` or None), the capture's index in
    the query (``prio``) and the reader's ``data``."""

    __slots__ = ("at", "data", "end", "first", "head", "hi", "last", "lo", "prio", "start")

    def __init__(self, start: int, end: int, first: int, last: int, lo: int, hi: int,
                 data: Any, head: Span | None = None, prio: int = 0,
                 at: int | None = None) -> None:
        self.at = start if at is None else at  # the captured node's first byte
        self.start = start
        self.end = end
        self.first = first
        self.last = last
        self.lo = min(lo, start)
        self.hi = max(hi, end)
        self.data = data
        self.head = head
        self.prio = prio

    def order(self) -> tuple[int, int, int]:
        return (self.start, -self.end, self.prio)

    def __repr__(self) -> str:
        return (f"Rec({self.start}..{self.end}, lines {self.first}..{self.last}, "
                f"{self.data!r})")

    def same(self, other: Rec) -> bool:
        return (self.start, self.end, self.first, self.last, self.data, self.prio, self.at,
                self.lo, self.hi, self.head) == (
            other.start, other.end, other.first, other.last, other.data, other.prio, other.at,
            other.lo, other.hi, other.head)


_ORDER: Callable[[Rec], tuple[int, int, int]] = Rec.order
Recorder = Callable[[Any, str], Rec]

# The last trees parsed, by (parser, source), each with its records: the old side of an
# edit is re-parsed incrementally (``Tree.edit`` with the diff's hunks, then parse with
# the old tree) and re-read only where edited. A tree is handed over once (editing it
# makes it the new version's). Bounded by its sources' bytes: a tree takes about 27 times
# its source (measured on ripgrep), so 1.5 MB of sources hold about 40 MB of trees. Half
# that re-parsed a quarter of ripgrep's versions whole (large files pushed out between
# their edits): bench/README.md, "second pass".
_TREES: OrderedDict[tuple[int, bytes], tuple[Any, list[Rec] | None]] = OrderedDict()
_TREES_KEPT = 256
_TREES_BYTES = 1536 << 10
_trees_bytes = 0

# Counters for the benches: versions read whole and re-read in regions, records kept
# from the version before and read from the tree, regional reads differing (``CHECK``).
stats = {"whole": 0, "regions": 0, "kept": 0, "read": 0, "differ": 0}


def records(parser: Any, query: Any, source: bytes, edit: Edit | None, record: Recorder,
            context: frozenset[str] = frozenset()) -> tuple[Any, list[Rec]] | None:
    """The tree of ``source`` and the records of every capture of ``query`` in it, in
    ``Rec.order``; None when the source cannot be read (past the per-file caps, or error
    regions covering more than ``MAX_ERROR_SHARE`` of its lines: a guess, not a
    reading)."""
    if too_large(source):
        return None
    kept = _take((id(parser), edit.old_source)) if edit is not None else None
    old_tree, old_recs = kept if kept is not None else (None, None)
    mapping = _Map(edit, source) if old_tree is not None and edit is not None else None
    try:
        if old_tree is not None and mapping is not None:
            mapping.tell(old_tree)
            tree = parser.parse(source, old_tree)
        else:
            tree = parser.parse(source)
    except (ValueError, RuntimeError, MemoryError):
        return None
    key = (id(parser), source)
    root = tree.root_node
    if root.has_error:
        lines = max(root.end_point[0] + 1, 1)
        broken = sum(node.end_point[0] - node.start_point[0] + 1 for node in root.children
                     if node.is_error or node.is_missing)
        if broken > MAX_ERROR_SHARE * lines:
            _keep(key, (tree, None))
            return None
    found = None
    if EDITED_REGIONS and old_recs is not None and mapping is not None:
        found = _reread(old_tree, old_recs, tree, mapping, query, record, context)
        if CHECK and found is not None and edit is not None:
            whole = _whole(tree, query, record)
            if not check(found, whole):
                stats["differ"] += 1
                DIFFERENCES.append((edit.old_source, source, found, whole))
    if found is None:
        found = _whole(tree, query, record)
    _keep(key, (tree, found))
    return tree, found


def _whole(tree: Any, query: Any, record: Recorder) -> list[Rec]:
    import tree_sitter

    stats["whole"] += 1
    prio = _priorities(query)
    captures = tree_sitter.QueryCursor(query).captures(tree.root_node)
    out: list[Rec] = []
    for name, nodes in captures.items():
        for node in nodes:
            rec = record(node, name)
            rec.prio = prio[name]
            out.append(rec)
    out.sort(key=_ORDER)
    stats["read"] += len(out)
    return out


_PRIO: dict[int, dict[str, int]] = {}


def _priorities(query: Any) -> dict[str, int]:
    found = _PRIO.get(id(query))
    if found is None:
        found = {query.capture_name(i): i for i in range(query.capture_count)}
        _PRIO[id(query)] = found
    return found


class _Map:
    """Byte positions between the two versions, from the hunks: each hunk's old and new
    byte ranges (closed: a pure insertion or deletion is the point where it happens)."""

    def __init__(self, edit: Edit, source: bytes) -> None:
        old_at = Offsets(edit.old_lines, len(edit.old_source))
        new_at = Offsets(edit.new_lines, len(source))
        self.size = len(source)
        self.old: list[Span] = []
        self.new: list[Span] = []
        self.rows: list[tuple[int, int, int]] = []  # first row, old rows, new rows
        self.bytes: list[int] = [0]  # cumulative byte delta after hunk k (index k + 1)
        self.lines: list[int] = [0]
        for old_start, old_count, new_start, new_count in edit.hunks:
            os = old_at.at(old_start if old_count else old_start + 1)
            oe = old_at.at(old_start + old_count) if old_count else os
            ns = new_at.at(new_start if new_count else new_start + 1)
            ne = new_at.at(new_start + new_count) if new_count else ns
            self.rows.append(((new_start if new_count else new_start + 1) - 1, old_count,
                              new_count))
            self.old.append((os, oe))
            self.new.append((ns, ne))
            self.bytes.append(self.bytes[-1] + (ne - ns) - (oe - os))
            self.lines.append(self.lines[-1] + new_count - old_count)
        self.old_ends = [e for _, e in self.old]
        self.new_starts = [s for s, _ in self.new]
        self.new_ends = [e for _, e in self.new]
        self.old_starts = [s for s, _ in self.old]
        self.sound = self.bytes[-1] == len(source) - len(edit.old_source)

    def tell(self, tree: Any) -> None:
        """Tell ``tree`` (of the old version) every hunk, in order: each in the
        coordinates of the document with the hunks before it applied (the new
        version's)."""
        for (os, oe), (ns, ne), (row, old_rows, new_rows) in zip(self.old, self.new,
                                                                 self.rows, strict=True):
            tree.edit(ns, ns + oe - os, ne, (row, 0), (row + old_rows, 0),
                      (row + new_rows, 0))

    def to_old(self, position: int, low: bool) -> int:
        """A new position in the old version (inside a hunk: that hunk's edge)."""
        k = bisect_right(self.new_starts, position) - 1
        if k >= 0 and position <= self.new_ends[k]:
            return self.old[k][0] if low else self.old[k][1]
        return position - self.bytes[k + 1]

    def to_new(self, position: int, low: bool) -> int:
        k = bisect_right(self.old_starts, position) - 1
        if k >= 0 and position <= self.old_ends[k]:
            return self.new[k][0] if low else self.new[k][1]
        return position + self.bytes[k + 1]


def _merge(spans: list[Span]) -> list[Span]:
    """Closed spans -> sorted, disjoint, touching ones joined."""
    spans.sort()
    out: list[Span] = []
    for low, high in spans:
        if out and low <= out[-1][1] + 1:
            if high > out[-1][1]:
                out[-1] = (out[-1][0], high)
        else:
            out.append((low, high))
    return out


def _reread(old_tree: Any, old_recs: list[Rec], tree: Any, mapping: _Map, query: Any,
            record: Recorder, context: frozenset[str]) -> list[Rec] | None:
    import tree_sitter

    if not mapping.sound:
        return None
    changed = [(r.start_byte, r.end_byte) for r in old_tree.changed_ranges(tree)]
    dirty = _merge(mapping.old + [(mapping.to_old(a, True), mapping.to_old(b, False))
                                  for a, b in changed])
    starts = [s for s, _ in dirty]
    wanted = mapping.new + changed
    kept: list[Rec] = []
    # Written out flat: this loop runs over every record of every version re-read in
    # regions. A record is hit when a dirty span overlaps its bytes or its head; else it
    # moves by the deltas of the hunks ending at or before its first byte.
    old_ends, byte_deltas, line_deltas = mapping.old_ends, mapping.bytes, mapping.lines
    for rec in old_recs:
        lo = rec.lo
        head = rec.head
        k = bisect_right(starts, rec.hi) - 1
        hit = k >= 0 and dirty[k][1] >= lo
        if not hit and head is not None:
            k = bisect_right(starts, head[1]) - 1
            hit = k >= 0 and dirty[k][1] >= head[0]
        if hit:
            # Its first byte finds the node again (the query returns every capture whose
            # node holds a queried byte): the rest of its span need not be re-read.
            at = mapping.to_new(rec.at, True)
            wanted.append((at, at))
            continue
        k = bisect_left(old_ends, lo)
        db, dl = byte_deltas[k], line_deltas[k]
        if head is not None:
            hb = byte_deltas[bisect_left(old_ends, head[0])]
            if hb:
                head = (head[0] + hb, head[1] + hb)
        if db or dl or head is not rec.head:
            rec = _shifted(rec, db, dl, head)
        kept.append(rec)
    stats["regions"] += 1
    stats["kept"] += len(kept)
    prio = _priorities(query)
    queried: list[Span] = []
    pending = _merge(wanted)
    seen: set[tuple[int, int, str]] = set()
    fresh: list[Rec] = []
    root = tree.root_node
    size = mapping.size
    while pending:
        more: list[Span] = []
        for low, high in pending:
            cursor = tree_sitter.QueryCursor(query)
            cursor.set_byte_range(max(low, 0), min(high + 1, size) if size else 0)
            for name, nodes in cursor.captures(root).items():
                for node in nodes:
                    ident = (node.start_byte, node.end_byte, name)
                    if ident in seen:
                        continue
                    seen.add(ident)
                    if node.type in context:
                        more.append((node.start_byte, node.end_byte))
                    order = (node.start_byte, -node.end_byte, prio[name])
                    at = bisect_left(kept, order, key=_ORDER)
                    if at < len(kept) and kept[at].order() == order:
                        continue  # kept (an ancestor of an edit, itself unchanged)
                    rec = record(node, name)
                    rec.prio = prio[name]
                    fresh.append(rec)
        queried = _merge(queried + pending)
        q_starts = [s for s, _ in queried]
        pending = _merge([span for span in more
                          if not _inside(queried, q_starts, span)])
    stats["read"] += len(fresh)
    for rec in fresh:
        order = rec.order()
        at = bisect_left(kept, order, key=_ORDER)
        if at < len(kept) and kept[at].order() == order:
            continue  # a kept record (nesting by another span than its node's)
        insort(kept, rec, key=_ORDER)
    return kept


_BLANK = object.__new__


def _shifted(rec: Rec, db: int, dl: int, head: Span | None) -> Rec:
    """``rec`` moved by ``db`` bytes and ``dl`` lines (its fields set directly: they
    satisfy ``Rec``'s invariants already)."""
    out: Rec = _BLANK(Rec)
    out.at = rec.at + db
    out.start = rec.start + db
    out.end = rec.end + db
    out.first = rec.first + dl
    out.last = rec.last + dl
    out.lo = rec.lo + db
    out.hi = rec.hi + db
    out.data = rec.data
    out.head = head
    out.prio = rec.prio
    return out


def _inside(spans: list[Span], starts: list[int], span: Span) -> bool:
    k = bisect_right(starts, span[0]) - 1
    return k >= 0 and spans[k][1] >= span[1]


def _take(key: tuple[int, bytes]) -> tuple[Any, list[Rec] | None] | None:
    global _trees_bytes
    item = _TREES.pop(key, None)
    if item is not None:
        _trees_bytes -= len(key[1])
    return item


def _keep(key: tuple[int, bytes], item: tuple[Any, list[Rec] | None]) -> None:
    global _trees_bytes
    if len(key[1]) > _TREES_BYTES:
        return
    _take(key)
    _TREES[key] = item
    _trees_bytes += len(key[1])
    while len(_TREES) > _TREES_KEPT or _trees_bytes > _TREES_BYTES:
        old_key, _ = _TREES.popitem(last=False)
        _trees_bytes -= len(old_key[1])


def clear() -> None:
    """Forget every kept tree (tests: the next read of any version is whole)."""
    global _trees_bytes
    _TREES.clear()
    _trees_bytes = 0


def check(found: Sequence[Rec], whole: Sequence[Rec]) -> bool:
    """Whether two record lists are the same reading (the reference check)."""
    return len(found) == len(whole) and all(a.same(b) for a, b in zip(found, whole,
                                                                        strict=True))
