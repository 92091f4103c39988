"""Definitions found by a tree-sitter reader -> ``FileEntities`` (the structure Python's
``ast`` path builds), so every language shares the diff mapping, lineage and merges.

A reader gives a forest of ``Def``: key, first and last line (1-based, inclusive; the
first line includes the doc comments and attributes above the definition), nested
definitions. Siblings are laid out in source order; a sibling that starts on a line its
predecessor already covers (two items on one line) shares it, and the later one owns it.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, wraps
from importlib import resources
from itertools import accumulate
from typing import Any, TypeVar, cast

from warpline.git.filecaps import MAX_ENTITIES, too_large
from warpline.git.hunks import Hunk
from warpline.git.pyentities import EntityKey, FileEntities, line_count, module_root, split_lines
from warpline.git.pyscan import Node

__all__ = ["MAX_ERROR_SHARE", "Def", "Edit", "build", "comments_above", "escape", "last_line",
           "load_query", "nest", "never_raises", "parse", "squash"]

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


# The last trees parsed, by (parser, source): the old side of an edit is re-parsed
# incrementally (``Tree.edit`` with the diff's hunks, then parse with the old tree), which
# reuses every subtree the edit did not touch. A tree is handed over once (editing it
# makes it the new version's). Bounded by its sources' bytes: a tree takes about 27 times
# its source (measured on ripgrep), so 768 KB of sources hold about 20 MB of trees.
_TREES: OrderedDict[tuple[int, bytes], Any] = OrderedDict()
_TREES_KEPT = 128
_TREES_BYTES = 768 << 10
_trees_bytes = 0


def captured(parser: Any, query: Any, source: bytes,
             edit: Edit | None) -> tuple[Any, list[tuple[Any, str]]] | None:
    """The tree of ``source`` (``parse``) and every (node, capture name) the definitions
    query finds in it, run in C; None when the source cannot be read."""
    import tree_sitter

    tree = parse(parser, source, edit)
    if tree is None:
        return None
    captures = tree_sitter.QueryCursor(query).captures(tree.root_node)
    return tree, [(node, name) for name, nodes in captures.items() for node in nodes]


def parse(parser: Any, source: bytes, edit: Edit | None = None) -> Any | None:
    """The tree of ``source`` (re-parsed from the old version's tree when ``edit`` names
    it and that tree is kept); None when it is past the per-file caps, or when error
    regions cover more than ``MAX_ERROR_SHARE`` of its lines (a guess, not a reading)."""
    if too_large(source):
        return None
    old = _take((id(parser), edit.old_source)) if edit is not None else None
    try:
        if old is not None and edit is not None:
            _apply(old, edit, source)
            tree = parser.parse(source, old)
        else:
            tree = parser.parse(source)
    except (ValueError, RuntimeError, MemoryError):
        return None
    _keep((id(parser), source), tree)
    root = tree.root_node
    if root.has_error:
        lines = max(root.end_point[0] + 1, 1)
        broken = sum(node.end_point[0] - node.start_point[0] + 1 for node in root.children
                     if node.is_error or node.is_missing)
        if broken > MAX_ERROR_SHARE * lines:
            return None
    return tree


def _take(key: tuple[int, bytes]) -> Any | None:
    global _trees_bytes
    tree = _TREES.pop(key, None)
    if tree is not None:
        _trees_bytes -= len(key[1])
    return tree


def _keep(key: tuple[int, bytes], tree: Any) -> None:
    global _trees_bytes
    if len(key[1]) > _TREES_BYTES:
        return
    _take(key)
    _TREES[key] = tree
    _trees_bytes += len(key[1])
    while len(_TREES) > _TREES_KEPT or _trees_bytes > _TREES_BYTES:
        old_key, _ = _TREES.popitem(last=False)
        _trees_bytes -= len(old_key[1])


@dataclass(frozen=True, slots=True)
class Edit:
    """How a version was made from the one before: the old source, its lines and the
    diff's zero-context hunks (``warpline.git.hunks``)."""

    old_source: bytes
    old_lines: list[bytes]
    new_lines: list[bytes]
    hunks: Sequence[Hunk]


class _Offsets:
    """Byte offset of the start of each line (1-based ``at(k)``: line k), from the lines'
    lengths summed in C; past the end, the source's size."""

    __slots__ = ("_size", "_sums")

    def __init__(self, lines: list[bytes], size: int) -> None:
        self._sums = [0, *accumulate(map(len, lines))]
        self._size = size

    def at(self, line: int) -> int:
        index = min(max(line - 1, 0), len(self._sums) - 1)
        return min(self._sums[index] + index, self._size)  # + one newline per line


def _apply(tree: Any, edit: Edit, source: bytes) -> None:
    """Tell ``tree`` (of ``edit.old_source``) every hunk, in order: each in the
    coordinates of the document with the hunks before it applied (the new version's)."""
    old_at = _Offsets(edit.old_lines, len(edit.old_source))
    new_at = _Offsets(edit.new_lines, len(source))
    for old_start, old_count, new_start, new_count in edit.hunks:
        line = new_start if new_count else new_start + 1  # a deletion follows new_start
        start = new_at.at(line)
        old_len = old_at.at(old_start + old_count) - old_at.at(old_start) if old_count else 0
        new_len = new_at.at(new_start + new_count) - new_at.at(new_start) if new_count else 0
        row = line - 1
        tree.edit(start, start + old_len, start + new_len, (row, 0),
                  (row + old_count, 0), (row + new_count, 0))


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


def comments_above(node: Any, first: int, comment_types: frozenset[str]) -> int:
    """The first line of the comment block directly above ``node`` (each comment on the
    line right before the next, no blank line between), else ``first``. A comment after
    code on its line (``f() { // note``) is that code's, not part of the block."""
    sibling = node.prev_sibling
    while sibling is not None and sibling.type in comment_types \
            and last_line(sibling) >= first - 1:
        before = sibling.prev_sibling
        if before is not None and before.end_point[0] == sibling.start_point[0]:
            break
        first = min(first, sibling.start_point[0] + 1)
        sibling = before
    return first


def nest(found: list[tuple[Any, str]]) -> list[tuple[Any, str, list[Any]]]:
    """Captured ``(node, kind)`` pairs -> a forest by byte containment, each entry
    ``(node, kind, children)``, in source order."""
    found.sort(key=lambda item: (item[0].start_byte, -item[0].end_byte))
    top: list[tuple[Any, str, list[Any]]] = []
    stack: list[tuple[int, list[Any]]] = []
    for node, kind in found:
        while stack and stack[-1][0] <= node.start_byte:
            stack.pop()
        entry: tuple[Any, str, list[Any]] = (node, kind, [])
        (stack[-1][1] if stack else top).append(entry)
        stack.append((node.end_byte, entry[2]))
    return top
