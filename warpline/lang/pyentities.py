"""Python source -> definitions with line spans, and line -> innermost owning entity.

``parse_entities(source)`` returns a ``FileEntities`` or None when the source cannot be
read: ``ast`` first, then the error-tolerant tree-sitter fallback (``pytolerant``) for
py2-era or partly broken files. It never raises.
``warpline.lang.pyincremental`` derives a new version's ``FileEntities`` from the old one
by re-parsing only the statements a diff touched.

Rules (DESIGN §3/§4, plus the choices where the design is silent):

* Entities are the module, classes and functions (methods, async defs and nested
  functions are ``function``). Qualnames follow CPython: ``Outer.Inner.meth``,
  ``outer.<locals>.inner``; a def inside ``if``/``try``/``with``/``for``/``while``/``match``
  takes the qualname of its scope (a def inside a module-level ``if`` is just ``name``).
* A definition's span runs from its first decorator to its last statement, extended over
  trailing comment lines indented deeper than its ``def``/``class`` keyword (they read as
  the end of its body). Lambdas and comprehensions are not entities.
* Each line has one owner: the innermost definition whose span contains it, else the
  module. An entity's *own* lines are its spans minus its nested definitions' spans.
* ``@overload`` stubs (``overload``/``typing.overload``/``<anything>.overload``) are not
  entities. Their lines belong to the implementation of the same qualname when the file
  has one (an overload signature is part of that function's interface), else to the
  enclosing entity.
* Duplicate qualnames in one file (redefinition, if/else branches) are ONE entity that
  owns the lines of every occurrence.
"""

from __future__ import annotations

import ast
import gc
import warnings
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from operator import attrgetter

from warpline.git.filecaps import MAX_ENTITIES, too_large
from warpline.lang.pyscan import MODULE_KEY, EntityKey, Node, scan_body
from warpline.lang.pytolerant import tolerant_body

__all__ = [
    "MODULE_KEY",
    "Entity",
    "EntityKey",
    "FileEntities",
    "Node",
    "line_count",
    "module_root",
    "no_gc",
    "parse_body",
    "parse_entities",
    "scan_body",
    "split_lines",
]

Span = tuple[int, int]

PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError)


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
    """The definitions of one Python source: a tree of ``Node`` under the module root,
    and how many (non-stub) occurrences each key has."""

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


def parse_entities(source: bytes) -> FileEntities | None:
    """Parse ``source``; when ``ast`` cannot, the error-tolerant parser
    (``warpline.lang.pytolerant``) reads what it can. None when neither can, or when it is
    past the per-file caps (``warpline.git.filecaps``): never raises."""
    if too_large(source):
        return None
    lines = split_lines(source)
    with no_gc():
        body = parse_body(source)
        tolerant = body is None
        if tolerant:
            body = tolerant_body(source)
        if body is None:
            return None
        try:
            firsts, lasts, children, counts = scan_body(body, 1, 0, "", lines)
        except RecursionError:
            return None
    if len(counts) > MAX_ENTITIES:
        return None
    return FileEntities(module_root(firsts, lasts, children, line_count(lines)), counts,
                        line_count(lines), tolerant)  # fmt: skip


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


def parse_body(source: bytes) -> list[ast.stmt] | None:
    """The module body of ``source``; None when it does not parse."""
    try:
        if b"\\" not in source:  # the parser warns only about escapes: skip the guard
            return ast.parse(source).body
        with warnings.catch_warnings():
            # Invalid escape sequences warn while parsing; history is full of them.
            warnings.simplefilter("ignore")
            return ast.parse(source).body
    except PARSE_ERRORS:
        return None
