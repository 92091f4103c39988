"""A wrapper that absorbs the body it delegated to: renamed_away's mirror (the rule is
``absorbed``'s docstring).

Before the commit, ``GenManTree(cmd, ...)`` was one line calling the method
``cmd.GenManTree(...)``, which held the body; the commit deletes the method and the
function now holds the body (cobra ``b3f29e9``, the file renamed into package ``doc`` on
the way). The body's history goes on in the function, as ``git log -L`` follows it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from warpline.git.deftext import (
    MAX_COMPARISONS,
    PLACEHOLDER,
    RENAME_MIN,
    RENAME_MIN_LINES,
    SHORT_RENAME_MIN,
    SHORT_TEXT_LINES,
    SideIndex,
    Text,
    code_lines,
    leaf,
    own_text,
    replace_name,
    score,
    span_texts,
)
from warpline.git.diffmap import PySide
from warpline.git.events import EntityChange

__all__ = ["absorbed"]

Sides = dict[str, tuple[PySide, Callable[[], list[bytes]]]]


def absorbed(changes: list[EntityChange], sides: SideIndex) -> list[EntityChange]:
    """A function D on both sides of the commit (edited in place, or carried by a file
    rename under the same qualified name) whose old text was a short delegation (fewer
    than ``SHORT_TEXT_LINES`` code lines) naming a function R the commit removes from the
    same file, and whose new text is not its old one (below ``RENAME_MIN``) but is R's
    body (R's old text against D's new text: the rename thresholds, ``RENAME_MIN``,
    ``SHORT_RENAME_MIN`` below ``SHORT_TEXT_LINES`` lines, at least ``RENAME_MIN_LINES``):
    D's event becomes ``moved`` from R (R's lineage goes on in D) and R's ``removed``
    event is dropped. The wrapper's own lineage ends: carried by a file rename, its old
    locator gets a ``removed`` event; edited in place, its earlier events keep a lineage of
    their own that no name carries on (the store keeps a lineage with its own beginning
    apart). Pairs are one-to-one, best first. A function two or more callers called
    before and now hold instead was inlined into them (a revert): none takes its lineage.
    Only commits removing a function from a file
    that also holds an edited or carried one are read, and only those files' texts."""
    removed = [c for c in changes if c.change_kind == "removed" and c.kind == "function"]
    if not removed:
        return changes
    renamed = {(c.previous_path, c.path) for c in changes
               if c.kind == "file" and c.change_kind == "moved"}
    where = {c.path for c in removed}
    wrappers = [c for c in changes if c.kind == "function" and _old_path(c, renamed) in where]
    if not wrappers or len(wrappers) * len(removed) > MAX_COMPARISONS:
        return changes
    old_texts = span_texts([(c.path, c.locator) for c in removed]
                       + [(_old_path(c, renamed) or "", c.previous_locator or c.locator)
                          for c in wrappers], sides.old)
    new_texts = span_texts([(c.path, c.locator) for c in wrappers], sides.new)
    inlined = _inlined_into_several(wrappers, removed, old_texts, new_texts, renamed)
    found: list[tuple[float, str, str, int, int]] = []
    for i, wrapper in enumerate(wrappers):
        old_path = _old_path(wrapper, renamed) or ""
        before = old_texts.get((old_path, wrapper.previous_locator or wrapper.locator))
        now = new_texts.get((wrapper.path, wrapper.locator))
        if before is None or now is None or before[0] != now[0] or len(code_lines(
                before[1])) >= SHORT_TEXT_LINES or score(before[1], now[1]) >= RENAME_MIN:
            continue  # not one definition on both sides, no short wrapper, or still one
        for j, body in enumerate(removed):
            text = old_texts.get((body.path, body.locator))
            if text is None or body.path != old_path or id(body) in inlined or not _delegates(
                    before[1], leaf(before[0]), leaf(text[0])):
                continue
            value, shorter = score(text[1], now[1]), min(len(text[1]), len(now[1]))
            if shorter >= RENAME_MIN_LINES and value >= (
                    SHORT_RENAME_MIN if shorter < SHORT_TEXT_LINES else RENAME_MIN):
                found.append((-value, wrapper.locator, body.locator, i, j))
    if not found:
        return changes
    found.sort()
    swap: dict[int, EntityChange] = {}
    dropped: set[int] = set()
    ended: list[EntityChange] = []
    for *_, i, j in found:
        wrapper, body = wrappers[i], removed[j]
        if id(wrapper) in swap or id(body) in dropped:
            continue
        dropped.add(id(body))
        swap[id(wrapper)] = replace(
            wrapper, change_kind="moved", previous_locator=body.locator,
            previous_path=body.path, also_modified=_own(body, sides.old) != _own(
                wrapper, sides.new))
        if wrapper.previous_locator not in (None, wrapper.locator):
            ended.append(EntityChange(wrapper.previous_locator, wrapper.kind, "removed",
                                      wrapper.previous_path or body.path))
    return [swap.get(id(c), c) for c in changes if id(c) not in dropped] + ended


def _inlined_into_several(wrappers: list[EntityChange], removed: list[EntityChange],
                          old_texts: dict[tuple[str, str], tuple[str, Text]],
                          new_texts: dict[tuple[str, str], tuple[str, Text]],
                          renamed: set[tuple[str | None, str]]) -> set[int]:
    """The removed functions (by ``id``) that two or more functions of their file called
    before the commit and now hold instead (half of its lines or more): a helper inlined
    back into several callers (a revert), whose lineage none of them takes (each caller
    keeps its own)."""
    callers: dict[int, int] = {}
    for wrapper in wrappers:
        old_path = _old_path(wrapper, renamed) or ""
        before = old_texts.get((old_path, wrapper.previous_locator or wrapper.locator))
        now = new_texts.get((wrapper.path, wrapper.locator))
        if before is None or now is None:
            continue
        for body in removed:
            text = old_texts.get((body.path, body.locator))
            if text is None or body.path != old_path:
                continue
            name = leaf(text[0])
            if _delegates(before[1], leaf(before[0]), name) and not _delegates(
                    now[1], leaf(now[0]), name) and _holds(now[1], text[1]):
                callers[id(body)] = callers.get(id(body), 0) + 1
    return {key for key, count in callers.items() if count > 1}


def _holds(text: Text, body: Text) -> bool:
    """``text`` holds at least half of ``body``'s lines after its first (its header): the
    body was inlined there, not only renamed (pip 5c17db0: a caller now calling the
    helper's new name holds none of it)."""
    lines = set(text)
    rest = body[1:]
    return bool(rest) and 2 * sum(line in lines for line in rest) >= len(rest)


def _old_path(change: EntityChange, renamed: set[tuple[str | None, str]]) -> str | None:
    """Where a function on both sides of the commit lived before it: its own file (edited
    in place), or the old name of the file a rename carried it in, under the same
    qualified name; None for anything else (added, removed, paired across files)."""
    if change.change_kind == "modified" and change.previous_path is None:
        return change.path
    if (change.change_kind == "moved" and change.also_modified
            and (change.previous_path, change.path) in renamed
            and change.previous_locator is not None):
        return change.previous_path  # the same qualified name: checked on the texts' keys
    return None


def _delegates(text: Text, own: str, callee: str) -> bool:
    """The wrapper's old code names the removed function: by its name, or, sharing the
    wrapper's own name (replaced by the placeholder), as a call through a receiver
    (``cmd.GenManTree(header, dir)``)."""
    code = code_lines(text)
    if callee == own:
        return any(b"." + PLACEHOLDER + b"(" in line for line in code)
    name = callee.encode()
    return any(name in line and replace_name(line, name) != line for line in code)


def _own(change: EntityChange, sides: Sides) -> Text | None:
    """A definition's own text (own lines, comments kept, its name replaced): what
    ``also_modified`` compares, as for every other move."""
    side, load = sides[change.path]
    key = side.key_of(change.locator)
    entity = side.entities.get(*key)
    if entity is None:
        return None
    return own_text(load(), entity.own, leaf(key[1]).encode())

