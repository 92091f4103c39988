"""The facts of what a change means (``warpline.git.nature``) for events already stored,
read when an answer reads them.

A backfill records events without them (they were a third of its walk); an answer that
shows an event's ``nature`` asks here. Both versions of each event's file at its commit
(the first parent's tree and the commit's) are read whole by their language row, as the
walker reads a version it has not seen, and ``nature.with_facts`` runs over them exactly
as it ran inside the walk. Each version is parsed once for a whole run
(``DefinitionCache``: the new side of one commit is the old side of the next edit of that
file), and of a file's two versions the one not parsed yet is derived from the other by
the diff between them, its edited regions read again (``DefinitionCache.derive``, equal
to a whole read: the languages' own checks, and ``bench/bench_facts.py --check-derived``
over the corpora), whichever order the commits come in. So the facts never depend on how
the store was filled (worker count, interruptions, ingest order). An error-tolerant read
(a py2-era Python version) is never a base: the walk's derived versions inherit that
flag, whole reads do not.

Merges, root commits and versions no row reads have no facts (None), as in the walk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import pygit2

from warpline.git.deftext import SideIndex
from warpline.git.diffmap import PySide
from warpline.git.events import EntityChange
from warpline.git.hunks import hunks_and_lines
from warpline.git.nature import with_facts
from warpline.git.parsecache import (
    DefinitionCache,
    Source,
    TreeFiles,
    blob_data,
    same_module,
    source_of,
    tree_state,
)
from warpline.git.walks import peel_commit
from warpline.lang.codekey import Facts
from warpline.lang.entities import FileEntities, split_lines

__all__ = ["FactReader", "needs_versions"]

# Parses kept across the commits of one run (an answer's range, the background pass).
PARSES = 1024
LINES_BUDGET = 8 << 20
# A commit's new version of a file edited in place is derived from its old version (the
# edited regions read again), as the walk reads it; False parses every version whole
# (the reference ``bench/bench_facts.py --check-derived`` compares against).
DERIVE = True

# A version to read: its path, its blob, its language and module.
_Located = tuple[str, pygit2.Oid, Source]
Sides = dict[str, tuple[PySide, Callable[[], list[bytes]]]]


def needs_versions(change: EntityChange) -> bool:
    """Whether the facts of ``change`` read its file's versions (a move that left the
    text alone is said from its locators alone)."""
    return not (change.change_kind == "moved" and not change.also_modified)


class FactReader:
    """Reads the facts of stored events, commit by commit, sharing one parse cache."""

    def __init__(self, repo: pygit2.Repository, cache: DefinitionCache | None = None) -> None:
        self.repo = repo
        self.cache = cache if cache is not None else DefinitionCache(
            maxsize=PARSES, lines_budget=LINES_BUDGET)

    def facts(self, sha: str, changes: Sequence[EntityChange]) -> list[Facts | None]:
        """The facts of each of ``changes`` (``modified`` and ``moved`` events of
        definitions, as stored) of commit ``sha``."""
        commit = peel_commit(self.repo, sha)
        if commit is None or len(commit.parent_ids) != 1:
            return [None] * len(changes)  # a merge, a root commit, a missing object
        parent = peel_commit(self.repo, commit.parent_ids[0])
        if parent is None:  # the parent object is missing (a shallow boundary)
            return [None] * len(changes)
        new_tree, old_tree = commit.tree, parent.tree
        new_files, old_files = TreeFiles(self.repo, new_tree), TreeFiles(self.repo, old_tree)
        sides = SideIndex()
        for change in changes:
            if needs_versions(change):
                old_path = change.previous_path or change.path
                if old_path in sides.old and change.path in sides.new:
                    continue
                old = self._locate(old_tree, old_files, old_path)
                new = self._locate(new_tree, new_files, change.path)
                self._read(old, new, sides.old, sides.new)
        return [change.facts for change in with_facts(changes, sides)]

    def _locate(self, tree: pygit2.Tree, files: TreeFiles, path: str) -> _Located | None:
        """The blob and the language row of ``path`` in ``tree``; None when it is not
        there (or a name stored escaped: its facts stay unknown) or no row reads it."""
        state = tree_state(tree, path)
        if state is None:
            return None
        source = source_of(path, state[1], files)
        return None if source is None else (path, state[0], source)

    def _read(self, old: _Located | None, new: _Located | None, old_side: Sides,
              new_side: Sides) -> None:
        """Both versions of one file, each parsed once per run: when only one of them is
        parsed already (by an earlier commit of the run, whichever order the commits
        come in) and both are one module, the other is derived from it by the diff
        between them, its edited regions read again."""
        cache = self.cache
        old_fe = new_fe = None
        if DERIVE and old is not None and new is not None and same_module(old[2], new[2]):
            if cache.has(new[1], new[2][0]) and not cache.has(old[1], old[2][0]):
                new_fe = self._whole(new)
                old_fe = self._derived(new, new_fe, old)
            else:
                old_fe = self._whole(old)
                new_fe = self._derived(old, old_fe, new)
        else:
            old_fe = None if old is None else self._whole(old)
            new_fe = None if new is None else self._whole(new)
        for version, parsed, into in ((old, old_fe, old_side), (new, new_fe, new_side)):
            if version is not None and parsed is not None:
                path, oid, (_, module) = version
                into[path] = (PySide(path, module, parsed), partial(_lines, self.repo, oid))

    def _whole(self, version: _Located) -> FileEntities | None:
        _, oid, (language, _) = version
        return self.cache.get(oid, partial(blob_data, self.repo, oid), language)

    def _derived(self, base: _Located, parsed: FileEntities | None,
                 target: _Located) -> FileEntities | None:
        """``target``'s definitions, an edit of ``base`` (``parsed``) by the diff between
        them (``DefinitionCache.derive``, as the walk reads a file edited in place)."""
        _, oid, (language, _) = target
        if parsed is None or parsed.tolerant or self.cache.has(oid, language):
            return self._whole(target)  # an error-tolerant read is no base
        base_data, data = blob_data(self.repo, base[1]), blob_data(self.repo, oid)
        base_lines = split_lines(base_data)
        hunks, derived = hunks_and_lines(base_data, data, base_lines)
        lines = derived if derived is not None else split_lines(data)
        return self.cache.derive(parsed, oid, data, lines, hunks, language,
                                 (base_data, base_lines))[0]


def _lines(repo: pygit2.Repository, oid: pygit2.Oid) -> list[bytes]:
    return split_lines(blob_data(repo, oid))
