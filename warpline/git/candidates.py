"""The removed and added definitions one commit's lineage pairing compares (``lineage.py``):
each one's definition text from one walk of its file's definition tree, its own text read
only when it pairs (the whole paint of the file is built on the first pair's ask)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from warpline.git.deftext import Text, definition_texts, leaf, locate, own_text
from warpline.git.diffmap import PySide
from warpline.git.events import EntityChange
from warpline.lang.entities import Entity, EntityKey, FileEntities

__all__ = ["Candidate", "candidates", "parent_of"]


@dataclass(slots=True)
class Candidate:
    """A removed or added definition that may pair with one on the other side."""
    change: EntityChange
    key: EntityKey
    name: bytes
    text: Text
    # Its own text (``own``) is read only for a pair: from these lines and definitions.
    lines: list[bytes]
    entities: _Entities
    positional: Text | None = None  # ``text`` with parameters by position (lazily)
    # Its text with its comment lines (None: the same as ``text``): a second reading.
    full: Text | None = None
    _own: Text | None = None
    _counts: dict[bytes, int] | None = None
    _words: frozenset[bytes] | None = None
    _substantive: int | None = None

    @property
    def qualname(self) -> str:
        return self.key[1]

    @property
    def family(self) -> str:
        """What a pair must share: the wire's ``function`` for every kind of function (a
        JavaScript function or ``X.prototype.m =`` becoming a class method or constructor,
        a Java method becoming a constructor), the language's own kind otherwise."""
        return "function" if self.change.kind == "function" else self.key[0]

    @property
    def own(self) -> Text:
        """Its own lines (nested definitions' left out), comments kept, name replaced."""
        if self._own is None:
            entity = self.entities.by_key()[self.key]
            self._own = own_text(self.lines, entity.own, self.name)
        return self._own

    def counts(self) -> dict[bytes, int]:
        """How often each line occurs in ``text``."""
        if self._counts is None:
            counts: dict[bytes, int] = {}
            for line in self.text:
                counts[line] = counts.get(line, 0) + 1
            self._counts = counts
        return self._counts


    def substantive(self) -> int:
        """How many lines of ``text`` hold more than brackets and punctuation (a brace
        language's ``}`` says nothing about identity)."""
        if self._substantive is None:
            self._substantive = sum(1 for line in self.text if _WORD.search(line))
        return self._substantive

    def words(self) -> frozenset[bytes]:
        """The identifiers ``text`` holds."""
        if self._words is None:
            self._words = frozenset(_IDENT.findall(b"\n".join(self.text)))
        return self._words


_IDENT = re.compile(rb"[A-Za-z_$][A-Za-z0-9_$]*")
_WORD = re.compile(rb"[A-Za-z0-9_$\x00]")


def parent_of(qualname: str) -> str | None:
    """The qualified name of the definition ``qualname`` is nested in (None: top level)."""
    if "." not in qualname:
        return None
    head = qualname.rsplit(".", 1)[0]
    if head.endswith(".<locals>"):
        return head[: -len(".<locals>")]
    # warpline's extension segments (``outer.~fn.inner``, ``Trait.~trait.method``).
    tail = head.rpartition(".")
    return tail[0] if tail[2].startswith("~") and tail[1] else head


class _Entities:
    """One side's file, its entities built (the whole paint) on the first pair's ask."""

    __slots__ = ("_by_key", "file")

    def __init__(self, file: FileEntities) -> None:
        self.file = file
        self._by_key: dict[EntityKey, Entity] | None = None

    def by_key(self) -> dict[EntityKey, Entity]:
        if self._by_key is None:
            self._by_key = {e.key: e for e in self.file.entities}
        return self._by_key


def candidates(
    changes: list[EntityChange], sides: dict[str, tuple[PySide, Callable[[], list[bytes]]]]
) -> list[Candidate]:
    """The changes found on their side, with their texts (spans from one walk of each
    file's tree; the whole paint, for own lines, only when a pair asks)."""
    found = locate([(c.path, c.locator) for c in changes], sides)
    files: dict[int, _Entities] = {}
    out: list[Candidate] = []
    for change in changes:
        hit = found.get((change.path, change.locator))
        if hit is None:
            continue
        key, lines, spans, file = hit
        entities = files.get(id(file))
        if entities is None:
            entities = files[id(file)] = _Entities(file)
        name = leaf(key[1]).encode()
        text, full = definition_texts(lines, spans, name, file.language, key[0])
        out.append(Candidate(change, key, name, text, lines, entities, full=full))
    return out
