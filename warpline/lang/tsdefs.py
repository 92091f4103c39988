"""Definitions found by a tree-sitter reader -> ``FileEntities`` (the structure Python's
``ast`` path builds), so every language shares the diff mapping, lineage and merges.

A reader gives a forest of ``Def``: key, first and last line (1-based, inclusive; the
first line includes the doc comments and attributes above the definition), nested
definitions. Siblings are laid out in source order; a sibling that starts on a line its
predecessor already covers (two items on one line) shares it, and the later one owns it.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, wraps
from importlib import resources
from itertools import accumulate
from typing import TYPE_CHECKING, Any, TypeVar, cast

from warpline.git.filecaps import MAX_ENTITIES
from warpline.git.hunks import Hunk
from warpline.lang.entities import (
    EntityKey,
    FileEntities,
    Node,
    line_count,
    module_root,
    split_lines,
)

if TYPE_CHECKING:
    from warpline.lang.tsregions import Rec

__all__ = ["MAX_ERROR_SHARE", "Def", "Edit", "Offsets", "build", "escape",
           "last_line", "leading_comments", "load_query", "nest_records",
           "never_raises", "squash", "stop_byte"]

MAX_ERROR_SHARE = 0.5
_EMPTY = array("i")


_Reader = TypeVar("_Reader", bound=Callable[..., "FileEntities | None"])


def never_raises(reader: _Reader) -> _Reader:
    """A reader that meets nesting deeper than Python's recursion allows (thousands of
    nested definitions) calls the version unreadable, as Python's reader does: a commit is
    never lost to one file."""

    @wraps(reader)
    def guarded(*args: Any, **kwargs: Any) -> FileEntities | None:
        try:
            return reader(*args, **kwargs)
        except RecursionError:
            return None

    return cast(_Reader, guarded)


@dataclass(slots=True)
class Def:
    """One definition occurrence a reader found (lines 1-based, inclusive)."""

    key: EntityKey
    first: int
    last: int
    children: list[Def] = field(default_factory=list)


def escape(segment: str) -> str:
    """A name segment as a locator carries it: ``%`` -> ``%25``, ``:`` -> ``%3A``, and
    ``~`` (warpline's extension marker, never in a name) -> ``%7E``."""
    if "%" in segment:
        segment = segment.replace("%", "%25")
    if ":" in segment:
        segment = segment.replace(":", "%3A")
    if "~" in segment:
        segment = segment.replace("~", "%7E")
    return segment


def squash(text: bytes) -> str:
    """Source text without any whitespace (type and attribute texts in names)."""
    return "".join(text.decode("utf-8", "replace").split())


@cache
def load_query(language: Any, name: str) -> Any:
    import tree_sitter

    text = resources.files("warpline.lang").joinpath("queries", name).read_text("utf-8")
    return tree_sitter.Query(language, text)


@dataclass(frozen=True, slots=True)
class Edit:
    """How a version was made from the one before: the old source, its lines and the
    diff's zero-context hunks (``warpline.git.hunks``)."""

    old_source: bytes
    old_lines: list[bytes]
    new_lines: list[bytes]
    hunks: Sequence[Hunk]


class Offsets:
    """Byte offset of the start of each line (1-based ``at(k)``: line k), from the lines'
    lengths summed in C; past the end, the source's size."""

    __slots__ = ("_size", "_sums")

    def __init__(self, lines: list[bytes], size: int) -> None:
        self._sums = [0, *accumulate(map(len, lines))]
        self._size = size

    def at(self, line: int) -> int:
        index = min(max(line - 1, 0), len(self._sums) - 1)
        return min(self._sums[index] + index, self._size)  # + one newline per line


def last_line(node: Any) -> int:
    """The 1-based last line of ``node`` (a node ending at column 0 ends on the line
    before: a line comment takes its newline)."""
    row, col = node.end_point
    if col == 0 and row > node.start_point[0]:
        return int(row)
    return int(row) + 1


def build(source: bytes, defs: Iterable[Def], tolerant: bool, language: str,
          ) -> FileEntities | None:
    lines = split_lines(source)
    count = line_count(lines)
    counts: dict[EntityKey, int] = {}
    children = _nodes(list(defs), 1, counts)
    if len(counts) > MAX_ENTITIES:
        return None
    root = module_root(_EMPTY, _EMPTY, children, count)
    return FileEntities(root, counts, count, tolerant, language)


# Definitions nested deeper than this make the version unreadable: the line painting and
# the walks over the tree recurse once per level, as for Python (whose own parser stops
# near this depth).
MAX_DEPTH = 100


def _nodes(defs: list[Def], base: int, counts: dict[EntityKey, int],
           depth: int = 0) -> tuple[Node, ...]:
    if depth > MAX_DEPTH:
        raise RecursionError("definitions nested too deep")
    out: list[Node] = []
    previous = base
    end = base - 1
    for d in sorted(defs, key=_FIRST):
        first = max(d.first, base)
        if first <= end and out:
            first = max(first, previous)  # shares a line with its predecessor
        counts[d.key] = counts.get(d.key, 0) + 1
        last = max(d.last, first)
        inner = _nodes(d.children, first, counts, depth + 1) if d.children else ()
        out.append(Node(d.key, first - previous, last - first, _EMPTY, _EMPTY, inner))
        previous, end = first, max(end, last)
    return tuple(out)


_FIRST: Callable[[Def], int] = lambda d: d.first  # noqa: E731


def leading_comments(node: Any, first: int, comment_types: frozenset[str]) -> tuple[int, int]:
    """The first line of the comment block directly above ``node`` (each comment on the
    line right before the next, no blank line between), else ``first``; and the first
    byte that reading looked at: the start of the sibling that ended the block (or of the
    code a trailing comment follows on its line), else of the parent (an edit from there
    on can change the answer). A comment after code on its line (``f() { // note``) is
    that code's, not part of the block."""
    sibling = node.prev_sibling
    while sibling is not None and sibling.type in comment_types \
            and last_line(sibling) >= first - 1:
        before = sibling.prev_sibling
        if before is not None and before.end_point[0] == sibling.start_point[0]:
            sibling = before  # the code the comment trails: the walk looked at its end
            break
        first = min(first, sibling.start_point[0] + 1)
        sibling = before
    return first, stop_byte(node, sibling)


def stop_byte(node: Any, sibling: Any | None) -> int:
    """Where a walk back over ``node``'s leading siblings looked last: ``sibling`` (the
    one it stopped at), or the parent's start when it ran out of siblings."""
    if sibling is not None:
        return int(sibling.start_byte)
    parent = node.parent
    return int(parent.start_byte) if parent is not None else 0


def nest_records(found: Sequence[Rec]) -> list[tuple[Rec, list[Any]]]:
    """Records (in ``Rec.order``) -> a forest by byte containment, each entry
    ``(rec, children)``, in source order."""
    top: list[tuple[Rec, list[Any]]] = []
    stack: list[tuple[int, list[Any]]] = []
    for rec in found:
        while stack and stack[-1][0] <= rec.start:
            stack.pop()
        entry: tuple[Rec, list[Any]] = (rec, [])
        (stack[-1][1] if stack else top).append(entry)
        stack.append((rec.end, entry[1]))
    return top
