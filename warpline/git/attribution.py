"""Commit -> ``CommitChanges`` and work tree -> entity events (DESIGN §4).

Each commit is diffed in-process (pygit2, zero context lines, indent heuristic, renames
found) against its first parent, or the empty tree for a root commit. Only regular ``.py``
blobs of changed files are parsed. ``DefinitionCache`` keeps parses by blob oid, so the
new side of one commit is the old side of the next edit of that file, and an edited
file's new definitions are derived from its old ones by re-parsing only the touched
statements (``warpline.git.pyincremental``). Merge commits follow ``warpline.git.merges``;
the work tree ``warpline.git.worktree``.

Rules chosen where the design is silent:

* Every changed path gets one ``core:file:`` event: ``added``/``removed``/``moved`` (a
  detected rename) or ``modified`` (content, mode or type change). Binary files, symlinks
  and submodule pointers get that event only.
* A Python file that does not parse on either side of the change gets only its file event
  and is listed in ``unparsed_files``.
* A rename that keeps the dotted name (``src/a/b.py`` -> ``a/b.py``) is an ordinary edit:
  edited entities are ``modified`` with ``previous_path`` set, the rest get no event.
"""

from __future__ import annotations

from functools import partial

import pygit2
from pygit2.enums import DeltaStatus, DiffFind

from warpline.git.diffmap import (
    PySide,
    all_changes,
    edited_changes,
    file_event,
    finalize,
    moved_changes,
)
from warpline.git.events import ChangeKind, CommitChanges, CommitInfo, EntityChange
from warpline.git.hunks import hunks_and_lines
from warpline.git.merges import merge_changes
from warpline.git.parsecache import (
    DIFF_FLAGS,
    NOT_PYTHON,
    DefinitionCache,
    SideResult,
    blob_data,
    python_dotted,
    side_result,
)
from warpline.git.pyentities import split_lines
from warpline.git.worktree import worktree_events

__all__ = [
    "DefinitionCache",
    "commit_changes",
    "commit_info",
    "worktree_changes",
]

_STATUS_KIND: dict[int, ChangeKind] = {
    DeltaStatus.ADDED: "added",
    DeltaStatus.DELETED: "removed",
    DeltaStatus.RENAMED: "moved",
}


def commit_info(commit: pygit2.Commit) -> CommitInfo:
    return CommitInfo(
        sha=str(commit.id),
        parents=tuple(str(p) for p in commit.parent_ids),
        author_name=commit.author.name,
        author_email=commit.author.email,
        authored_at=int(commit.author.time),
        committed_at=int(commit.commit_time),
    )


def commit_changes(
    repo: pygit2.Repository, commit: pygit2.Commit, cache: DefinitionCache | None = None
) -> CommitChanges:
    """Every entity ``commit`` changed: against its first parent, or, for a merge, what the
    merge itself introduced. Pass one ``cache`` across a backfill."""
    cache = cache if cache is not None else DefinitionCache(maxsize=256)
    if len(commit.parent_ids) > 1:
        changes, unparsed = merge_changes(repo, commit, cache)
    else:
        changes, unparsed = _first_parent_changes(repo, commit, cache)
    return CommitChanges(commit_info(commit), finalize(changes), tuple(sorted(set(unparsed))))


def worktree_changes(repo: pygit2.Repository) -> tuple[EntityChange, ...]:
    """Uncommitted changes (staged and unstaged; untracked files count as added) against
    HEAD, in the same shape as a commit's. Nothing is written anywhere."""
    return finalize(worktree_events(repo))


def _first_parent_changes(
    repo: pygit2.Repository, commit: pygit2.Commit, cache: DefinitionCache
) -> tuple[list[EntityChange], list[str]]:
    tree = commit.tree
    if commit.parent_ids:
        diff = commit.parents[0].tree.diff_to_tree(tree, DIFF_FLAGS, 0, 0)
    else:
        diff = tree.diff_to_tree(flags=DIFF_FLAGS, context_lines=0, interhunk_lines=0, swap=True)
    if len(diff) > 1:  # a rename needs a deletion and an addition
        diff.find_similar(DiffFind.FIND_RENAMES)
    out: list[EntityChange] = []
    unparsed: list[str] = []
    for delta in diff.deltas:
        kind = _STATUS_KIND.get(delta.status, "modified")
        old_f, new_f = delta.old_file, delta.new_file
        old_path = None if kind == "added" else old_f.path
        new_path = None if kind == "removed" else new_f.path
        path = new_path or old_f.path
        out.append(file_event(kind, path, old_path))
        old_dotted = python_dotted(old_path, old_f.mode)
        new_dotted = python_dotted(new_path, new_f.mode)
        if old_dotted is None and new_dotted is None:
            continue
        if old_path is not None and new_path is not None and old_dotted == new_dotted:
            parsed = _edited(repo, cache, (old_path, new_path, new_dotted), delta, out)
        else:
            parsed = _whole(repo, cache, (old_path, old_dotted, old_f.id),
                            (new_path, new_dotted, new_f.id), out)  # fmt: skip
        if not parsed:
            unparsed.append(path)
    return out, unparsed


def _whole(
    repo: pygit2.Repository,
    cache: DefinitionCache,
    old: tuple[str | None, str | None, pygit2.Oid],
    new: tuple[str | None, str | None, pygit2.Oid],
    out: list[EntityChange],
) -> bool:
    """A file appeared, disappeared, or moved to another dotted name. False: unparsed."""
    sides: list[SideResult] = []
    for path, dotted, oid in (old, new):
        if path is None or dotted is None:
            sides.append(NOT_PYTHON)
        else:
            sides.append(side_result(path, dotted, cache.get(oid, partial(blob_data, repo, oid))))
    old_side, new_side = sides
    if old_side.unparsed or new_side.unparsed:
        return False
    if old_side.side is not None and new_side.side is not None:
        moved_changes(old_side.side, new_side.side, out)
    elif new_side.side is not None:
        all_changes(new_side.side, "added", out)
    elif old_side.side is not None:
        all_changes(old_side.side, "removed", out)
    return True


def _edited(
    repo: pygit2.Repository,
    cache: DefinitionCache,
    where: tuple[str, str, str | None],
    delta: pygit2.DiffDelta,
    out: list[EntityChange],
) -> bool:
    """A Python file edited in place (or renamed without changing its dotted name)."""
    old_path, new_path, dotted = where
    assert dotted is not None
    old_id, new_id = delta.old_file.id, delta.new_file.id
    if old_id == new_id:
        return True  # a pure rename keeping the dotted name: no entity changed
    kept = cache.take_source(old_id)
    old_data, old_lines = kept if kept is not None else (blob_data(repo, old_id), None)
    old_fe = cache.get(old_id, lambda: old_data)
    if old_fe is None:
        return False
    new_data = blob_data(repo, new_id)
    if old_lines is None:
        old_lines = split_lines(old_data)
    hunks, derived_lines = hunks_and_lines(old_data, new_data, old_lines)
    new_lines = derived_lines if derived_lines is not None else split_lines(new_data)
    new_fe, windows = cache.derive(old_fe, new_id, new_data, new_lines, hunks)
    if new_fe is None:
        return False
    cache.keep_source(new_id, new_data, new_lines)
    edited_changes(
        PySide(old_path, dotted, old_fe),
        PySide(new_path, dotted, new_fe),
        hunks,
        windows,
        old_lines,
        new_lines,
        out,
    )
    return True
