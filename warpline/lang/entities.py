"""The definitions of one source file, whatever language read it: the structure the diff
mapping, lineage and merge rules read for every row of ``warpline.lang``.

A ``FileEntities`` is a tree of definition ``Node``s under the module root, with relative
line positions (an edit shifts a subtree by building one new node), and how many
occurrences each key has. Each line has one owner: the innermost definition whose span
contains it, else the module; an entity's *own* lines are its spans minus its nested
definitions' spans. Stubs (a Python ``@overload``) own no lines unless their key has an
implementation in the file. The readers (``pyentities``, ``tsdefs``) build it.
"""

from __future__ import annotations

import gc
from array import array
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate
from operator import attrgetter

__all__ = [
    "MODULE_KEY",
    "Entity",
    "EntityKey",
    "FileEntities",
    "Node",
    "Span",
    "Window",
    "line_count",
    "module_root",
    "no_gc",
    "split_lines",
]

# (kind, qualname): the kind is the language's own (Python: module/class/function, Rust:
# struct/impl/…); ``warpline.lang`` maps it to the wire's four.
EntityKey = tuple[str, str]
MODULE_KEY: EntityKey = ("module", "")
Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Window:
    """Matching line ranges (inclusive; empty when last < first) of two versions of a
    file: the attribution windows an incremental re-parse gives."""

    old_first: int
    old_last: int
    new_first: int
    new_last: int


class Node:
    """One definition occurrence (or the module), immutable once built.

    Positions are relative, so shifting a subtree is one new object: ``off`` is the first
    line relative to the previous sibling's first line (the first child's: relative to the
    parent's first line), so shifting every definition after an edit is one new object
    too; ``starts()`` gives the children's offsets from this node. ``span`` is last -
    first. ``firsts``/``lasts`` are the direct body statements (first, last line), relative
    to this node's first line; ``children`` the nested definitions in source order (inside
    compound statements too).
    """

    __slots__ = ("_starts", "children", "col", "firsts", "key", "lasts", "lead", "off", "span",
                 "stub")  # fmt: skip

    def __init__(
        self,
        key: EntityKey,
        off: int,
        span: int,
        firsts: array[int],
        lasts: array[int],
        children: tuple[Node, ...],
        stub: bool = False,
        col: int = 0,
        lead: bool = False,
    ) -> None:
        self.key = key
        self.off = off
        self.span = span
        self.firsts = firsts
        self.lasts = lasts
        self.children = children
        self.stub = stub
        self.col = col  # column of the def/class keyword (trailing comments go past it)
        self.lead = lead  # the first body statement starts a line of its own
        self._starts: list[int] | None = None

    def shifted(self, delta: int) -> Node:
        return self.replaced(self.off + delta, self.span, self.firsts, self.lasts, self.children)

    def replaced(
        self,
        off: int,
        span: int,
        firsts: array[int],
        lasts: array[int],
        children: tuple[Node, ...],
    ) -> Node:
        return Node(self.key, off, span, firsts, lasts, children, self.stub, self.col, self.lead)

    def starts(self) -> list[int]:
        """Each child's first line relative to this node's first line (ascending: sibling
        definitions never share a line). Computed once; do not modify."""
        if self._starts is None:
            self._starts = list(accumulate([child.off for child in self.children]))
        return self._starts

    def walk(self) -> Iterator[Node]:
        """This node and every node below it."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(node.children)


def split_lines(source: bytes) -> list[bytes]:
    """Lines as git numbers them (split on '\\n'; line N is ``lines[N - 1]``)."""
    return source.split(b"\n")


def line_count(lines: list[bytes]) -> int:
    return len(lines) - 1 if lines[-1] == b"" else len(lines)


@dataclass(frozen=True, slots=True)
class Entity:
    """One entity of a file; lines are 1-based and spans inclusive."""

    kind: str  # the language's own kind
    qualname: str  # "" for the module
    spans: tuple[Span, ...]  # one per occurrence (the module: the whole file)
    own: tuple[Span, ...]  # the lines it owns

    @property
    def key(self) -> EntityKey:
        return (self.kind, self.qualname)


class FileEntities:
    """The definitions of one source file: a tree of ``Node`` under the module root, and
    how many (non-stub) occurrences each key has."""

    __slots__ = ("_entities", "counts", "language", "line_count", "root", "tolerant")

    def __init__(self, root: Node, counts: dict[EntityKey, int], line_count: int,
                 tolerant: bool = False, language: str = "python") -> None:
        self.root = root  # off == 1: the module starts at line 1
        self.counts = counts  # every definition key present, never the module
        self.line_count = line_count
        # Read by the error-tolerant parser (or derived from such a parse): ``ast`` could
        # not read this version (or the one it was derived from).
        self.tolerant = tolerant
        # The row of ``warpline.lang`` that read it (names its locators and wire kinds).
        self.language = language
        self._entities: tuple[Entity, ...] | None = None

    def keys(self) -> set[EntityKey]:
        return {MODULE_KEY, *self.counts}

    def __contains__(self, key: EntityKey) -> bool:
        return key == MODULE_KEY or key in self.counts

    def paint(self, first: int, last: int) -> list[EntityKey]:
        """The owner of every line in ``first..last`` (index 0 is line ``first``)."""
        out: list[EntityKey] = [MODULE_KEY] * max(last - first + 1, 0)
        if out:
            self._paint(self.root, 1, first, last, out)
        return out

    def _paint(self, parent: Node, base: int, first: int, last: int, out: list[EntityKey]) -> None:
        counts = self.counts
        nodes = parent.children
        starts = parent.starts()
        # Siblings are disjoint and in order: the ones before the last child starting at
        # or before ``first`` end before it.
        for index in range(max(bisect_right(starts, first - base) - 1, 0), len(nodes)):
            start = base + starts[index]
            if start > last:
                break
            node = nodes[index]
            end = start + node.span
            if end < first or (node.stub and node.key not in counts):
                continue  # stubs without an implementation leave their lines to the parent
            low, high = max(start, first), min(end, last)
            out[low - first : high - first + 1] = [node.key] * (high - low + 1)
            if node.children:
                self._paint(node, start, first, last, out)

    @property
    def entities(self) -> tuple[Entity, ...]:
        """Every entity, the module first, then by first line (built on demand)."""
        if self._entities is None:
            self._entities = self._build_entities()
        return self._entities

    def _build_entities(self) -> tuple[Entity, ...]:
        spans: dict[EntityKey, list[Span]] = {MODULE_KEY: [(1, self.line_count)]}
        root = self.root
        stack = [(child, 1 + at) for child, at in zip(root.children, root.starts(), strict=True)]
        stack.reverse()
        while stack:
            node, start = stack.pop()
            if not node.stub or node.key in self.counts:
                spans.setdefault(node.key, []).append((start, start + node.span))
            inner = [(child, start + at) for child, at in zip(node.children, node.starts(),
                                                               strict=True)]
            inner.reverse()
            stack.extend(inner)
        own: dict[EntityKey, list[Span]] = {key: [] for key in spans}
        owners = self.paint(1, self.line_count)
        run_start = 1
        for line in range(2, len(owners) + 2):
            if line > len(owners) or owners[line - 1] != owners[run_start - 1]:
                own[owners[run_start - 1]].append((run_start, line - 1))
                run_start = line
        return tuple(Entity(key[0], key[1], tuple(spans[key]), tuple(own[key])) for key in spans)

    def get(self, kind: str, qualname: str) -> Entity | None:
        return next((e for e in self.entities if e.key == (kind, qualname)), None)

    def owner_of_line(self, line: int) -> Entity:
        """The innermost entity owning ``line`` (the module outside every definition)."""
        key = self.paint(line, line)[0] if 1 <= line <= self.line_count else MODULE_KEY
        found = self.get(*key)
        assert found is not None
        return found



def module_root(
    firsts: array[int], lasts: array[int], children: tuple[Node, ...], count: int
) -> Node:
    last = count
    if children:  # siblings are disjoint and in order: the last one ends last
        last = max(last, 1 + sum(map(_OFF, children)) + children[-1].span)
    return Node(MODULE_KEY, 1, max(last - 1, 0), firsts, lasts, children)


_OFF = attrgetter("off")


class no_gc:
    """Parsing allocates many short-lived objects; the collections they trigger would walk
    the whole (large, long-lived) definitions cache for nothing."""

    __slots__ = ("enabled",)

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            gc.enable()
