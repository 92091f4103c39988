"""The facts of what a change means (``warpline.git.nature``) for events already stored,
read when an answer reads them.

A backfill records events without them (they were a third of its walk); an answer that
shows an event's ``nature`` asks here. Both versions of each event's file at its commit
(the first parent's tree and the commit's) are read whole by their language row, as the
walker reads a version it has not seen, and ``nature.with_facts`` runs over them exactly
as it ran inside the walk. Each version is parsed once for a whole run
(``DefinitionCache``: the new side of one commit is the old side of the next edit of that
file), whatever order the events are read in, so the facts never depend on how the store
was filled (worker count, interruptions, ingest order).

Merges, root commits and versions no row reads have no facts (None), as in the walk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

import pygit2

from warpline.git.deftext import SideIndex
from warpline.git.diffmap import PySide
from warpline.git.events import EntityChange
from warpline.git.nature import with_facts
from warpline.git.parsecache import (
    DefinitionCache,
    TreeFiles,
    blob_data,
    source_of,
    tree_state,
)
from warpline.git.walks import peel_commit
from warpline.lang.codekey import Facts
from warpline.lang.entities import split_lines

__all__ = ["FactReader", "needs_versions"]

# Parses kept across the commits of one run (an answer's range, the background pass).
PARSES = 1024
LINES_BUDGET = 8 << 20


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
            if not needs_versions(change):
                continue
            self._side(sides.new, new_tree, new_files, change.path)
            self._side(sides.old, old_tree, old_files, change.previous_path or change.path)
        return [change.facts for change in with_facts(changes, sides)]

    def _side(self, into: dict[str, tuple[PySide, Callable[[], list[bytes]]]],
              tree: pygit2.Tree, files: TreeFiles, path: str) -> None:
        if path in into:
            return
        state = tree_state(tree, path)
        if state is None:
            return  # not there (or a name stored escaped): its facts stay unknown
        oid, mode = state
        source = source_of(path, mode, files)
        if source is None:
            return
        language, module = source
        parsed = self.cache.get(oid, partial(blob_data, self.repo, oid), language)
        if parsed is None:
            return
        into[path] = (PySide(path, module, parsed), partial(_lines, self.repo, oid))


def _lines(repo: pygit2.Repository, oid: pygit2.Oid) -> list[bytes]:
    return split_lines(blob_data(repo, oid))
