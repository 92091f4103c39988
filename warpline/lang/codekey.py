"""What a definition's code is, apart from comments and layout: the key each language row
compares (``Language.code_key``), and the facts two keys give a change event.

A row's ``code_key(lines, entities, key)`` reads one version of one definition (the file's
lines and its ``FileEntities``) and returns a ``CodeKey`` (None: unreadable):

* ``code``: the definition's own code with comments, whitespace, layout, docstrings and
  its own name left out (Python: its ``ast``; other rows: the tree-sitter token stream of
  its own lines, comment nodes dropped);
* ``docs``: its docstring (Python) or its comments (other rows), so a change of only those
  is told apart: the doctest rule reads it at answer time;
* ``signature``: what a caller writes against (parameters, return type, generics, a
  Go method's receiver) with its own name. Only functions have one; other kinds compare
  their name alone.

``facts(old, new)`` -> ``(code_same, docs_changed, signature_changed)``, stored per event
(DESIGN §4, docs/lineage.md "What a change means").
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from itertools import groupby
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from warpline.lang.entities import EntityKey, FileEntities

__all__ = ["CodeKey", "Facts", "Unreadable", "facts", "occurrences", "own_lines",
           "with_markers"]

MARKER = b"__nested_definition__"

Facts = tuple[bool, bool, bool]


@dataclass(frozen=True, slots=True)
class CodeKey:
    """One version of one definition: its code, its docs, its signature (see above)."""

    # Compared by equality only: texts, or trees that compare by structure.
    code: tuple[object, ...]
    docs: tuple[str, ...]
    signature: tuple[object, ...]


class Unreadable(Exception):
    """A key read lazily (Python's, ``pycodekey``) found its version unreadable."""


def facts(old: CodeKey, new: CodeKey) -> Facts:
    """``(code_same, docs_changed, signature_changed)`` of one definition's two versions
    (raises ``Unreadable``). The docs are compared only when the code is the same (a
    lazy key reads them only then): a code change records ``docs_changed`` false."""
    code_same = old.code == new.code
    return (code_same, code_same and old.docs != new.docs, old.signature != new.signature)


def occurrences(entities: FileEntities, key: EntityKey) -> list[tuple[int, int]]:
    """Every (first, last) line of ``key``'s occurrences, ``@overload`` stubs included
    (their lines are the implementation's interface)."""
    return list(_occurrences(entities).get(key, ()))


def own_lines(lines: list[bytes], entities: FileEntities, key: EntityKey) -> bytes:
    """The lines ``key`` owns (its spans minus nested definitions'), joined: the module's
    over the whole file."""
    spans = occurrences(entities, key) if key[1] else [(1, entities.line_count)]
    out: list[bytes] = []
    for first, last in spans:
        at = first - 1
        # The paint runs long (one owner per definition's lines): taken a run at a time.
        for owner, run in groupby(entities.paint(first, last)):
            count = len(list(run))
            if owner == key:
                chunk = lines[at : at + count]
                if chunk:
                    joined = b"\n".join(chunk)
                    if b"\r" in joined:  # each line's own end is cut (\r\n files)
                        joined = b"\n".join(line.rstrip(b"\r\n") for line in chunk)
                    out.append(joined)
            at += count
    return b"\n".join(out)


# Every key's occurrences in the last versions read: a commit's facts ask for several
# definitions of the same two versions in turn (junit4: 7 in 10 asks repeat a version).
_OCCURRENCES: OrderedDict[int, tuple[FileEntities, dict[EntityKey, list[tuple[int, int]]]]] = (
    OrderedDict())
_OCCURRENCES_KEPT = 16


def _occurrences(entities: FileEntities) -> dict[EntityKey, list[tuple[int, int]]]:
    """``occurrences`` of every key of ``entities`` (one walk of the tree, kept)."""
    found = _OCCURRENCES.get(id(entities))
    if found is not None and found[0] is entities:
        _OCCURRENCES.move_to_end(id(entities))
        return found[1]
    out: dict[EntityKey, list[tuple[int, int]]] = {}
    stack = [(entities.root, 1)]
    while stack:
        node, start = stack.pop()
        for child, at in zip(node.children, node.starts(), strict=True):
            first = start + at
            out.setdefault(child.key, []).append((first, first + child.span))
            if child.children:
                stack.append((child, first))
    for spans in out.values():
        spans.sort()
    _OCCURRENCES[id(entities)] = (entities, out)
    while len(_OCCURRENCES) > _OCCURRENCES_KEPT:
        _OCCURRENCES.popitem(last=False)
    return out


def with_markers(lines: list[bytes], entities: FileEntities,
                 key: EntityKey) -> list[tuple[list[bytes], int | None]]:
    """Each occurrence of ``key`` as written (in source order), every nested definition's
    lines replaced by one marker line at its indentation (they are their own entities;
    the marker keeps the code around them parseable): the module's over the whole file.
    With each, how many of its lines come before its body (None: the body starts on the
    header's own line)."""
    found: list[tuple[int, list[bytes], int | None]] = []
    qualname = key[1]
    stack = [(entities.root, 1)]
    while stack:
        node, start = stack.pop()
        if node.key != key:
            # Only down the scopes the qualname runs through (``A.f``: inside ``A``).
            stack.extend((child, start + offset)
                         for child, offset in zip(node.children, node.starts(), strict=True)
                         if child.key == key or qualname.startswith(child.key[1] + "."))
            continue
        last = entities.line_count if node is entities.root else start + node.span
        text: list[bytes] = []
        at = start
        for child, offset in zip(node.children, node.starts(), strict=True):
            first = start + offset
            if first < at:
                continue
            text.extend(lines[at - 1 : first - 1])
            head = lines[first - 1] if first <= len(lines) else b""
            text.append(head[: len(head) - len(head.lstrip())] + MARKER)
            at = first + child.span + 1
        text.extend(lines[at - 1 : last])
        header = node.firsts[0] if node.lead and len(node.firsts) else None
        found.append((start, text, header))
    found.sort(key=lambda item: item[0])
    return [(text, header) for _, text, header in found]
