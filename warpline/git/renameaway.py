"""A definition renamed while a new one takes its old name in the same commit
(``f -> g`` and a new ``f``): git's diff sees the old name ``modified`` and the new name
``added``; this rule tells such a pair from an ordinary edit beside an addition (the rule
is ``renamed_away``'s docstring)."""

from __future__ import annotations

import re
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
    replace_name,
    score,
    span_texts,
)
from warpline.git.diffmap import PySide
from warpline.git.events import EntityChange
from warpline.git.pairscore import parameters

__all__ = ["renamed_away"]

_IDENT = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def renamed_away(changes: list[EntityChange], added: list[EntityChange],
                  sides: SideIndex) -> list[EntityChange]:
    """A definition renamed while a new one takes its old name in the same commit
    (``f -> g`` and a new ``f``): the diff sees the old name ``modified`` and the new name
    ``added``. When the added definition, in the same file, is the old one renamed (the
    rename thresholds: >= ``RENAME_MIN``, ``SHORT_RENAME_MIN`` below ``SHORT_TEXT_LINES``
    lines, at least ``RENAME_MIN_LINES``) and the definition now under the old name is not
    (below ``RENAME_MIN`` against the old text, and not naming the added one: an
    extraction leaves the old name calling it, unless the added name extends the old one:
    a variant, ``_variant``, or the old function became its first parameter's method,
    ``_became_method``), the added one is ``moved`` from the old
    name and the old name's event becomes ``added``: a new lineage (the store applies a
    commit's moves before its additions). A line-set overlap screens pairs first, and
    texts come from one walk of each file's definition tree, so commits that only add and
    edit definitions pay little."""
    where = {(c.path, c.kind) for c in added}
    modified = [c for c in changes if c.change_kind == "modified"
                and (c.path, c.kind) in where and c.previous_path is None]
    if modified:
        paths = {c.path for c in modified}
        added = [c for c in added if c.path in paths]
    if not modified or len(modified) * len(added) > MAX_COMPARISONS:
        return changes
    olds, nows = _span_texts(modified, sides.old), _span_texts(modified, sides.new)
    news = _span_texts(added, sides.new)
    found: list[tuple[float, str, str, int, int]] = []
    for i, old in enumerate(modified):
        before, now = olds.get(id(old)), nows.get(id(old))
        if not before or now is None:
            continue
        lines = set(before)
        for j, new in enumerate(added):
            text = news.get(id(new))
            shorter = min(len(text), len(before)) if text is not None else 0
            if text is None or new.kind != old.kind or new.path != old.path or shorter < (
                    RENAME_MIN_LINES):
                continue
            bound = SHORT_RENAME_MIN if shorter < SHORT_TEXT_LINES else RENAME_MIN
            if sum(line in lines for line in text) < bound * max(len(text), len(before)):
                continue  # the overlap of lines already rules it out
            value = score(before, text)
            if value < bound or score(before, now) >= RENAME_MIN:
                continue
            if not _names(now, old, new, before, text) or _became_method(
                    now, _qualname(old, sides.old), _qualname(new, sides.new)):
                found.append((-value, old.locator, new.locator, i, j))
    found.sort()
    used_old: set[int] = set()
    used_new: set[int] = set()
    swap: dict[int, EntityChange] = {}
    for *_, i, j in found:
        if i in used_old or j in used_new:
            continue
        used_old.add(i)
        used_new.add(j)
        old, new = modified[i], added[j]
        swap[id(old)] = replace(old, change_kind="added")
        swap[id(new)] = replace(new, change_kind="moved", previous_locator=old.locator,
                                previous_path=old.path,
                                also_modified=olds[id(old)] != news[id(new)])
    return [swap.get(id(c), c) for c in changes] if swap else changes


def _names(now: Text, old: EntityChange, new: EntityChange, before: Text,
           text: Text) -> bool:
    """The definition now under the old name names the added one, or its class, or
    delegates to a same-named method elsewhere (``super().__init__(...)``,
    ``self._cache.get(...)``): an extraction (``get_environ_proxies`` now calling the new
    ``should_bypass_proxies``; ``reset_env`` now building a ``TestPipEnvironment``), so
    the old name is still the original. ``before`` is the old name's old text, ``text``
    the added definition's."""
    old_q, new_q = old.locator.rsplit(":", 1)[-1], new.locator.rsplit(":", 1)[-1]
    if _variant(leaf(old_q), leaf(new_q)) and (
            len(parameters(text, new.kind, new.locator)) >= len(
                parameters(before, old.kind, old.locator))
            or _forwards(now, leaf(new_q).encode())):
        return False
    if leaf(old_q) == leaf(new_q) and any(b"." + PLACEHOLDER in line for line in now):
        return True
    names = {part.encode() for part in set(new_q.split(".")) - set(old_q.split("."))
             if part != "<locals>"}
    return any(name in line and replace_name(line, name) != line
               for name in names for line in now)


def _variant(old: str, new: str) -> bool:
    """The new name is the old one extended (``Execute`` -> ``ExecuteC``, ``GenManTree`` ->
    ``GenManTreeFromOpts``, ``GenMarkdown`` -> ``GenMarkdownCustom``): the body went on as
    a variant of the old definition, and the old name, calling it, is kept for its
    callers. The body is the definition that goes on (as ``git log -L`` follows it); an
    extraction gives the new piece a name of its own, or takes fewer parameters than the
    old definition had and the old name is not a mere forwarder to it (``_forwards``)
    (``_initialize`` -> ``_initialize_layout(self)``: a piece of it,
    not a variant with more parameters or results; ``_names`` asks)."""
    return len(new) > len(old) and new.startswith(old)


_CALL_HEAD = re.compile(rb"(?:return\b\s*)?(?:[A-Za-z_][A-Za-z0-9_]*\.)*")


def _forwards(now: Text, name: bytes) -> bool:
    """The old name's new code is one statement calling ``name`` (a forwarding wrapper
    kept for its callers: cobra e291587's ``GenManTree(cmd, header, dir)`` now only
    ``return GenManTreeFromOpts(cmd, GenManTreeOptions{...})``, its parameters folded into
    an options value): the body went on under the new name whatever its parameters."""
    code = code_lines(now)[1:]  # after the header line
    joined = b"\n".join(code)
    start = joined.find(name + b"(")
    if start < 0 or not _CALL_HEAD.fullmatch(joined[:start].strip()):
        return False
    depth = 0
    for at in range(start + len(name), len(joined)):
        char = joined[at:at + 1]
        if char in b"([{":
            depth += 1
        elif char in b")]}":
            depth -= 1
            if depth == 0:
                return not joined[at + 1:].strip(b" \t\n;})]")
    return False


def _qualname(change: EntityChange,
              sides: dict[str, tuple[PySide, Callable[[], list[bytes]]]]) -> str:
    found = sides.get(change.path)
    return "" if found is None else found[0].key_of(change.locator)[1]


def _became_method(now: Text, old_q: str, new_q: str) -> bool:
    """A function that became a method of its first parameter, the old name kept as a
    wrapper calling it (cobra ``9e77886``: ``GenMarkdownCustom(cmd *Command, ...)`` now
    ``cmd.GenMarkdownCustom(...)``, the body in the new ``(cmd *Command)
    GenMarkdownCustom``): the body went on in the method. ``super().__init__(...)`` or
    ``self._cache.get(...)`` call through no parameter of a module-level function, so
    they stay extractions."""
    if not old_q or "." in old_q or "." not in new_q or leaf(old_q) != leaf(new_q):
        return False
    code = code_lines(now)
    if not code:
        return False
    start = code[0].find(PLACEHOLDER + b"(")
    found = _IDENT.match(code[0], start + len(PLACEHOLDER) + 1) if start >= 0 else None
    if found is None:
        return False
    call = found.group() + b"." + PLACEHOLDER + b"("
    return any(call in line for line in code[1:])


def _span_texts(changes: list[EntityChange],
                sides: dict[str, tuple[PySide, Callable[[], list[bytes]]]]) -> dict[int, Text]:
    """Each change's definition text (``span_texts``) on one side, by ``id`` of the
    change."""
    found = span_texts([(c.path, c.locator) for c in changes], sides)
    return {id(c): found[(c.path, c.locator)][1] for c in changes
            if (c.path, c.locator) in found}
