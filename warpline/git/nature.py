"""The facts of what a change means, per entity event: whether the definition's code is
the same apart from comments, layout and docstrings, whether its docstring (or comments)
changed, whether its signature changed (DESIGN §4; ``warpline.lang.codekey``).

Read after pairing, from the sides the commit's diff parsed: a ``modified`` event and a
``moved`` one compare the definition's old and new version through its language row's
``code_key``. A move that left the text alone has the same code; its signature changed
when its own name did. Events with no version on one side (added, removed, files), the
events of merges and of a row with no ``code_key`` carry no facts: their nature is said
from the change kind, or unknown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace

from warpline.git.deftext import SideIndex, leaf
from warpline.git.diffmap import PySide
from warpline.git.events import EntityChange
from warpline.lang import by_name
from warpline.lang.codekey import CodeKey, Facts, Unreadable, facts

__all__ = ["with_facts"]

Loaded = tuple[PySide, Callable[[], list[bytes]]]


def with_facts(changes: Iterable[EntityChange], sides: SideIndex) -> list[EntityChange]:
    """``changes`` with the facts of each modified or moved definition filled in."""
    lines: dict[int, list[bytes]] = {}
    changes = list(changes)
    # A definition removed from one file and added to another under the same locator (a
    # Go package's files: cobra 62fb674 moved ``Find`` from cobra.go into command.go) is
    # one ``modified`` event once finalized; its facts ride on the addition.
    left = {c.locator: c.path for c in changes
            if c.change_kind == "removed" and c.kind != "file"}
    out: list[EntityChange] = []
    for change in changes:
        found = None
        if change.kind != "file" and change.change_kind in ("modified", "moved"):
            found = _facts(change, sides, lines)
        elif change.change_kind == "added" and left.get(change.locator, change.path) != (
                change.path):
            found = _facts(replace(change, change_kind="modified",
                                   previous_path=left[change.locator]), sides, lines)
        out.append(change if found is None else replace(change, facts=found))
    return out


def _facts(change: EntityChange, sides: SideIndex,
           lines: dict[int, list[bytes]]) -> Facts | None:
    before = change.previous_locator or change.locator
    if change.change_kind == "moved" and not change.also_modified:
        return (True, False, leaf(_qualname(before)) != leaf(_qualname(change.locator)))
    new = sides.new.get(change.path)
    old = sides.old.get(change.previous_path or change.path)
    if new is None or old is None:
        return None
    old_key = _key(old, before, lines)
    new_key = _key(new, change.locator, lines)
    if old_key is None or new_key is None:
        return None
    try:
        return facts(old_key, new_key)
    except (Unreadable, RecursionError):
        return None


def _key(loaded: Loaded, locator: str, lines: dict[int, list[bytes]]) -> CodeKey | None:
    side, loader = loaded
    entities = side.entities
    code_key = by_name(entities.language).code_key
    if code_key is None or entities.tolerant:
        return None
    key = side.key_of(locator)
    if key not in entities:
        return None
    text = lines.get(id(loader))
    if text is None:
        text = lines[id(loader)] = loader()
    return code_key(text, entities, key)


def _qualname(locator: str) -> str:
    """The qualname part of a definition locator (``python:function:a.b.C.f`` -> its
    last segments: the leaf is all ``leaf`` reads)."""
    return locator.rpartition(":")[2]
