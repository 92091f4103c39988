"""One file's change -> entity events. Pure: parsed sides in, events out.

How a two-sided Python edit is attributed (DESIGN §4):

* Every hunk is mapped, on the old side (``old_start``/``old_lines``) and on the new side,
  to the entities owning those lines. A pure insertion has no old lines: it touches the
  old side only as an insertion point and contributes nothing there; the inserted lines
  are owned on the new side (a line appended to a function body lies inside that
  function's new span; a new function between two others owns its own lines).
* Those owners are candidates. A candidate present in both versions is ``modified`` when
  its own non-blank lines differ inside the attribution windows (outside them, lines and
  owners are identical). This confirmation drops diff "slider" artefacts (a hunk aligned
  across a neighbour's identical last line) and blank-line-only edits, without comparing
  whole files.
* A candidate whose whole span lies inside the hunks on both sides (cut at one place and
  pasted at another within its file) and whose own text is the same is not ``modified``:
  the definition was relocated, its text and locator are unchanged (docs/lineage.md).
* Own text is compared without line endings: a CRLF <-> LF conversion is no change of
  any definition (Python reads both alike); the file event still records the bytes.
* Definitions present in one version only are ``added``/``removed`` (compared by locator).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from warpline.git.events import ChangeKind, EntityChange
from warpline.git.hunks import Hunk
from warpline.git.paths import shown
from warpline.git.window import one_window
from warpline.lang import WireKind, by_name
from warpline.lang.entities import MODULE_KEY, EntityKey, FileEntities, Window
from warpline.lang.locators import file_locator

__all__ = [
    "PySide",
    "all_changes",
    "definition_spans",
    "edited_changes",
    "file_event",
    "finalize",
    "moved_changes",
    "own_texts",
    "whole_texts",
]


_RANGE_END = b"\x00"


@dataclass(frozen=True, slots=True)
class PySide:
    """One version of a source file that a language row read (``dotted``: its module in
    that language's locators; ``entities.language`` names the row)."""

    path: str
    dotted: str
    entities: FileEntities

    def locator(self, key: EntityKey) -> str:
        return by_name(self.entities.language).locator(key, self.dotted)

    def kind(self, key: EntityKey) -> WireKind:
        """The wire's kind of one of this file's entities."""
        return by_name(self.entities.language).wire_kind(key)

    def key_of(self, locator: str) -> EntityKey:
        """The entity key of one of this file's locators."""
        return by_name(self.entities.language).key_of(locator, self.dotted)


def file_event(change_kind: ChangeKind, path: str, previous_path: str | None,
               also_modified: bool = False) -> EntityChange:
    if change_kind == "moved" and previous_path is not None:
        return EntityChange(
            file_locator(path), "file", "moved", path, file_locator(previous_path), previous_path,
            also_modified,
        )
    return EntityChange(file_locator(path), "file", change_kind, path)


def all_changes(side: PySide, change_kind: ChangeKind, out: list[EntityChange]) -> None:
    """Every entity of a file that appeared (``added``) or disappeared (``removed``)."""
    for key in side.entities.keys():
        out.append(EntityChange(side.locator(key), side.kind(key), change_kind, side.path))


def moved_changes(old: PySide, new: PySide, out: list[EntityChange],
                  edited: set[EntityKey] | None = None) -> None:
    """A rename that changed the dotted name: survivors move (edited or not, one event
    each, carrying where they came from, ``also_modified`` for those in ``edited``); the
    rest are added or removed."""
    old_keys, new_keys = old.entities.keys(), new.entities.keys()
    edited = edited or set()
    for key in new_keys:
        if key in old_keys:
            out.append(
                EntityChange(
                    new.locator(key), new.kind(key), "moved", new.path, old.locator(key), old.path,
                    key in edited,
                )
            )
        else:
            out.append(EntityChange(new.locator(key), new.kind(key), "added", new.path))
    for key in old_keys - new_keys:
        out.append(EntityChange(old.locator(key), old.kind(key), "removed", old.path))


def edited_changes(
    old: PySide,
    new: PySide,
    hunks: Sequence[Hunk],
    windows: Sequence[Window] | None,
    old_lines: list[bytes],
    new_lines: list[bytes],
    out: list[EntityChange],
) -> None:
    """An edit that kept the dotted name. ``windows`` None: compare whole files."""
    old_fe, new_fe = old.entities, new.entities
    old_keys, new_keys = old_fe.counts.keys(), new_fe.counts.keys()  # the module is in both
    for key in new_keys - old_keys:
        out.append(EntityChange(new.locator(key), new.kind(key), "added", new.path))
    for key in old_keys - new_keys:
        out.append(EntityChange(old.locator(key), old.kind(key), "removed", old.path))
    candidates: set[EntityKey] = set()
    for old_start, old_count, new_start, new_count in hunks:
        if old_count:
            candidates.update(old_fe.paint(old_start, old_start + old_count - 1))
        if new_count:
            candidates.update(new_fe.paint(new_start, new_start + new_count - 1))
    candidates = {k for k in candidates if k in old_fe and k in new_fe}
    if not candidates:
        return
    if windows is None:
        # Python's whole parses keep comparing whole files (their events are pinned).
        window = one_window(old_fe, new_fe, hunks) if new_fe.language != "python" else None
        windows = [window or Window(1, old_fe.line_count, 1, new_fe.line_count)]
    before = own_texts(old_fe, old_lines, [(w.old_first, w.old_last) for w in windows], candidates)
    after = own_texts(new_fe, new_lines, [(w.new_first, w.new_last) for w in windows], candidates)
    previous_path = old.path if old.path != new.path else None
    changed = {key for key in candidates if before[key] != after[key]}
    if changed - {MODULE_KEY}:
        changed -= _relocated(old_fe, new_fe, hunks, old_lines, new_lines, changed)
    for key in changed:  # finalize() orders the events
        out.append(
            EntityChange(new.locator(key), new.kind(key), "modified", new.path, None, previous_path)
        )


Span = tuple[int, int]


def _relocated(
    old_fe: FileEntities,
    new_fe: FileEntities,
    hunks: Sequence[Hunk],
    old_lines: list[bytes],
    new_lines: list[bytes],
    changed: set[EntityKey],
) -> set[EntityKey]:
    """The definitions of ``changed`` cut and pasted whole within the file, text unchanged
    (every occurrence inside one hunk on each side: the cost is bounded by the diff)."""
    keys = changed - {MODULE_KEY}
    old_spans, new_spans = definition_spans(old_fe, keys), definition_spans(new_fe, keys)
    old_hunks = [(h[0], h[0] + h[1] - 1) for h in hunks if h[1]]
    new_hunks = [(h[2], h[2] + h[3] - 1) for h in hunks if h[3]]
    whole = {k for k in keys if _inside(old_spans.get(k, []), old_hunks)
             and _inside(new_spans.get(k, []), new_hunks)}
    if not whole:
        return set()
    out: set[EntityKey] = set()
    for key in whole:
        before = own_texts(old_fe, old_lines, old_spans[key], (key,))[key]
        after = own_texts(new_fe, new_lines, new_spans[key], (key,))[key]
        if before == after:
            out.add(key)
    return out


def definition_spans(fe: FileEntities, keys: set[EntityKey]) -> dict[EntityKey, list[Span]]:
    """Every occurrence's (first, last) line of each of ``keys`` (one walk of the tree)."""
    out: dict[EntityKey, list[Span]] = {}
    stack = [(fe.root, 1)]
    while stack:
        node, start = stack.pop()
        for child, at in zip(node.children, node.starts(), strict=True):
            first = start + at
            if child.key in keys and not (child.stub and child.key not in fe.counts):
                out.setdefault(child.key, []).append((first, first + child.span))
            if child.children:
                stack.append((child, first))
    for spans in out.values():
        spans.sort()
    return out


def _inside(spans: list[Span], ranges: list[Span]) -> bool:
    """Every span lies inside one of ``ranges`` (sorted, disjoint)."""
    if not spans:
        return False
    starts = [r[0] for r in ranges]
    for first, last in spans:
        index = bisect_right(starts, first) - 1
        if index < 0 or ranges[index][1] < last:
            return False
    return True


def own_texts(
    entities: FileEntities,
    lines: list[bytes],
    ranges: Iterable[tuple[int, int]],
    keys: Iterable[EntityKey],
) -> dict[EntityKey, list[bytes]]:
    """The non-blank lines each of ``keys`` owns inside ``ranges``, in order, each range
    closed by a separator: a line moved from one range to another (a statement moved
    within a definition, across unchanged lines) makes the texts differ. A line's
    carriage return is dropped: line endings are no part of the text."""
    out: dict[EntityKey, list[bytes]] = {key: [] for key in keys}
    for first, last in ranges:
        if last >= first:
            for line, owner in zip(lines[first - 1 : last], entities.paint(first, last),
                                   strict=False):
                if owner in out and line.strip():
                    out[owner].append(line[:-1] if line[-1:] == b"\r" else line)
        for text in out.values():
            text.append(_RANGE_END)
    return out


def whole_texts(entities: FileEntities, lines: list[bytes]) -> dict[EntityKey, list[bytes]]:
    """``own_texts`` of every entity over the whole file."""
    return own_texts(entities, lines, [(1, entities.line_count)], entities.keys())


def _shown(change: EntityChange) -> EntityChange:
    """The change with its paths and locators in their stored form (``paths.shown``: a
    name that is not UTF-8 escaped), so the store and the wire can hold it."""
    texts = (change.locator, change.path, change.previous_locator or "",
             change.previous_path or "")
    if all(text.isascii() for text in texts):
        return change
    return EntityChange(
        shown(change.locator), change.kind, change.change_kind, shown(change.path),
        None if change.previous_locator is None else shown(change.previous_locator),
        None if change.previous_path is None else shown(change.previous_path),
        change.also_modified, change.facts)


def finalize(changes: Iterable[EntityChange]) -> tuple[EntityChange, ...]:
    """One event per (locator, change_kind), in a deterministic order, every path and
    locator in its stored form (``warpline.git.paths``).

    An entity removed from one path and added at another under the same locator in one
    commit (a move git did not pair as a rename, ``a.py`` -> ``a/__init__.py``) is one
    ``modified`` event carrying the previous path.
    """
    by_locator: dict[str, dict[str, EntityChange]] = {}
    for change in sorted(map(_shown, changes), key=lambda c: (c.locator, c.change_kind,
                                                              c.path)):
        # The first per kind wins (by path): one event per entity per commit.
        by_locator.setdefault(change.locator, {}).setdefault(change.change_kind, change)
    out: list[EntityChange] = []
    for locator, kinds in by_locator.items():
        added, removed = kinds.get("added"), kinds.get("removed")
        if added is not None and removed is not None:
            del kinds["added"], kinds["removed"]
            previous = removed.path if removed.path != added.path else None
            kinds.setdefault(
                "modified",
                EntityChange(locator, added.kind, "modified", added.path, None, previous,
                             facts=added.facts),
            )
        out.extend(kinds[k] for k in sorted(kinds))
    return tuple(out)
