"""Parsed definitions cached by blob oid, and which language (if any) reads a side.

Shared by the commit walker, the merge rules and the work-tree view. Which files are read
and how is the table of languages' (``warpline.lang``); this module only hands it the
path and the version of the repository (``TreeFiles``) the file belongs to.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pygit2
from pygit2.enums import DiffOption

from warpline.git.diffmap import PySide
from warpline.git.hunks import Hunk, hunks_and_lines
from warpline.lang import PYTHON, Files, Language, source_module
from warpline.lang.entities import FileEntities, Window, split_lines

__all__ = [
    "DIFF_FLAGS",
    "NOT_READ",
    "UNPARSED",
    "DefinitionCache",
    "SideResult",
    "Source",
    "TreeFiles",
    "TreeState",
    "blob_bytes",
    "blob_data",
    "is_regular_file",
    "same_module",
    "side_result",
    "source_of",
    "tree_state",
]

# git's default line matching (indent heuristic); a type change is one delta, not two.
DIFF_FLAGS = DiffOption.INDENT_HEURISTIC | DiffOption.INCLUDE_TYPECHANGE

# (blob oid, file mode) of a path in a tree; None when the tree has no file there.
TreeState = tuple[pygit2.Oid, int] | None


def is_regular_file(mode: int) -> bool:
    """A blob git stores as file content (not a symlink, not a submodule pointer)."""
    return mode & 0o170000 == 0o100000


# The language reading a file and the module it is in that language's locators.
Source = tuple[Language, str]


class TreeFiles:
    """The small files of one commit's tree by path, read on demand and memoised: what a
    module name depends on (``Cargo.toml``, ``go.mod``, a Java file's ``package`` line).
    The walker reads blobs, never the work tree, so a module is named by its own commit."""

    __slots__ = ("_memo", "_repo", "_tree")

    _CAP = 1 << 20  # a file larger than this is not read (its module falls back to the path)

    def __init__(self, repo: pygit2.Repository, tree: pygit2.Tree | None) -> None:
        self._repo = repo
        self._tree = tree
        self._memo: dict[str, bytes | None] = {}

    def read(self, path: str) -> bytes | None:
        memo = self._memo
        if path in memo:
            return memo[path]
        found: bytes | None = None
        state = tree_state(self._tree, path) if self._tree is not None else None
        if state is not None and is_regular_file(state[1]):
            blob = self._repo[state[0]]
            if isinstance(blob, pygit2.Blob) and blob.size <= self._CAP:
                found = blob_bytes(blob)
        memo[path] = found
        return found


def source_of(path: str | None, mode: int, files: Files | None) -> Source | None:
    """The language and module of a regular file a language row reads; None for
    anything else (another language's file, a symlink, a submodule)."""
    return source_module(path, path is not None and is_regular_file(mode), files)


def same_module(old: Source | None, new: Source | None) -> bool:
    """Both sides name the same module in the same locator dialect (``.js`` -> ``.ts``
    keeps it: one prefix)."""
    return (old is not None and new is not None and old[1] == new[1]
            and old[0].prefix == new[0].prefix)


class DefinitionCache:
    """Parsed definitions by blob oid, least recently used out first.

    One cache should live across a whole backfill: the new side of one commit is the old
    side of the next commit touching that file, and is usually derived incrementally from
    its predecessor rather than parsed whole. Unparsable blobs are cached too (as None).

    It also keeps the split lines of recent new sides (within ``lines_budget`` bytes), so
    the next edit of that file neither loads nor splits its old side again.
    """

    def __init__(self, maxsize: int = 2048, lines_budget: int = 16 << 20) -> None:
        self.maxsize = maxsize
        self.lines_budget = lines_budget
        self.hits = 0
        self.misses = 0
        self.incremental = 0
        self._data: OrderedDict[bytes, FileEntities | None] = OrderedDict()
        self._sources: OrderedDict[bytes, tuple[bytes, list[bytes], int]] = OrderedDict()
        self._lines_size = 0
        # The last version parsed at each path (at most ``maxsize`` paths): an old side
        # that is not cached is derived from it (``recent``) instead of parsed whole.
        self._recent: OrderedDict[str, bytes] = OrderedDict()

    def remember(self, path: str, oid: pygit2.Oid) -> None:
        """``oid`` is the version of ``path`` parsed last."""
        recent = self._recent
        recent[path] = oid.raw
        recent.move_to_end(path)
        if len(recent) > self.maxsize:
            recent.popitem(last=False)

    def recent(self, path: str) -> pygit2.Oid | None:
        """The version of ``path`` parsed last, while its parse is cached (and parsed)."""
        raw = self._recent.get(path)
        if raw is None or self._data.get(raw) is None:
            return None
        return pygit2.Oid(raw=raw)

    def take_source(self, oid: pygit2.Oid) -> tuple[bytes, list[bytes]] | None:
        """The kept content and lines of blob ``oid``, handed over once (an old side is
        read once)."""
        item = self._sources.pop(oid.raw, None)
        if item is None:
            return None
        self._lines_size -= item[2]
        return item[0], item[1]

    def keep_source(self, oid: pygit2.Oid, data: bytes, lines: list[bytes]) -> None:
        cost = 2 * len(data) + 56 * len(lines)  # content twice, plus per-line overhead
        if cost > self.lines_budget or oid.raw in self._sources:
            return
        self._sources[oid.raw] = (data, lines, cost)
        self._lines_size += cost
        while self._lines_size > self.lines_budget:
            self._lines_size -= self._sources.popitem(last=False)[1][2]

    @staticmethod
    def _key(oid: pygit2.Oid, lang: Language) -> bytes:
        # One blob may be two languages' source (an empty file): the incremental row's
        # keys stay bare (``get_near`` and ``derive`` look its parses up by the blob alone).
        return oid.raw if lang.incremental else oid.raw + lang.name.encode()

    def __len__(self) -> int:
        return len(self._data)

    def has(self, oid: pygit2.Oid, lang: Language = PYTHON) -> bool:
        """Whether blob ``oid`` is parsed (or known unparsable) already."""
        return self._key(oid, lang) in self._data

    def _lookup(self, key: bytes) -> tuple[bool, FileEntities | None]:
        data = self._data
        if key in data:
            self.hits += 1
            data.move_to_end(key)
            return True, data[key]
        return False, None

    def _store(self, key: bytes, value: FileEntities | None) -> None:
        self._data[key] = value
        if len(self._data) > self.maxsize:
            self._data.popitem(last=False)

    def get(self, oid: pygit2.Oid, load: Callable[[], bytes],
            lang: Language = PYTHON) -> FileEntities | None:
        """The definitions of blob ``oid`` (parsing ``load()`` on a miss)."""
        key = self._key(oid, lang)
        found, value = self._lookup(key)
        if found:
            return value
        self.misses += 1
        value = lang.read(load())
        self._store(key, value)
        return value

    def get_near(
        self,
        oid: pygit2.Oid,
        load: Callable[[], bytes],
        base: pygit2.Oid | None,
        load_base: Callable[[], bytes],
        lang: Language = PYTHON,
    ) -> FileEntities | None:
        """``get(oid, load)``, derived from the parse of blob ``base`` (another version of
        the same file: a merge's parent, a renamed file's old side) when that parse is
        cached: only the statements the diff between them touches are re-parsed, with the
        same result as a whole parse (``warpline.lang.pyincremental``)."""
        if not lang.incremental:
            return self.get(oid, load, lang)
        found, value = self._lookup(oid.raw)
        if found:
            return value
        near = None if base is None or base == oid else self._data.get(base.raw)
        if near is None:  # not cached, or cached as unparsable: parse whole
            return self.get(oid, load)
        old_data, source = load_base(), load()
        hunks, lines = hunks_and_lines(old_data, source, split_lines(old_data))
        assert lines is not None
        return self.derive(near, oid, source, lines, hunks)[0]

    def derive(
        self,
        old: FileEntities,
        oid: pygit2.Oid,
        source: bytes,
        lines: list[bytes],
        hunks: Sequence[Hunk],
        lang: Language = PYTHON,
        old_source: tuple[bytes, list[bytes]] | None = None,
    ) -> tuple[FileEntities | None, Sequence[Window] | None]:
        """The definitions of blob ``oid``, an edit of ``old`` by ``hunks``, and the
        attribution windows (None: compare whole files). ``old_source`` (the old version's
        content and lines) lets a tree-sitter reader re-parse incrementally."""
        if not lang.incremental or old.language != lang.name:
            key = self._key(oid, lang)
            found, value = self._lookup(key)
            if found:
                return value, None
            self.misses += 1
            edit = None
            if old_source is not None and old.language == lang.name:
                from warpline.lang.tsdefs import Edit

                edit = Edit(old_source[0], old_source[1], lines, hunks)
            value = lang.read(source, edit)
            self._store(key, value)
            return value, None
        found, value = self._lookup(oid.raw)
        if found:
            return value, None
        self.misses += 1
        assert lang.reparse is not None
        value, windows = lang.reparse(old, source, lines, hunks)
        if windows is not None:
            self.incremental += 1
        self._store(oid.raw, value)
        return value, windows


@dataclass(frozen=True, slots=True)
class SideResult:
    """One version of a file: ``side`` when a language row read it, ``unparsed`` when it
    is such a file that could not be read, neither when no row reads it."""

    side: PySide | None = None
    unparsed: bool = False


NOT_READ = SideResult()
UNPARSED = SideResult(unparsed=True)


def side_result(path: str, module: str, parsed: FileEntities | None) -> SideResult:
    return UNPARSED if parsed is None else SideResult(PySide(path, module, parsed))


def blob_data(repo: pygit2.Repository, oid: pygit2.Oid) -> bytes:
    blob = repo[oid]
    assert isinstance(blob, pygit2.Blob)
    return blob_bytes(blob)


def blob_bytes(blob: pygit2.Blob) -> bytes:
    # The buffer protocol copies the loaded content; ``Blob.data`` costs as much again as
    # the lookup (measured: ~70 us per 14 KB blob against ~1.5 us).
    return bytes(memoryview(blob))


def tree_state(tree: pygit2.Tree, path: str) -> TreeState:
    try:
        entry = tree[path]
    except KeyError:
        return None
    if isinstance(entry, pygit2.Tree):
        return None  # a directory there, not a file
    return (entry.id, entry.filemode)
