"""Commit -> ``CommitChanges`` and work tree -> entity events (DESIGN §4).

Each commit is diffed in-process (pygit2, zero context lines, indent heuristic, renames
found) against its first parent, or the empty tree for a root commit. Only the regular
blobs of changed files that a language row reads (``warpline.lang``) are parsed.
``DefinitionCache`` keeps parses by blob oid, so the new side of one commit is the old
side of the next edit of that file, and an edited file's new definitions are derived from
its old ones by re-parsing only the touched statements (``warpline.lang.pyincremental``).
Merge commits follow ``warpline.git.merges``; the work tree ``warpline.git.worktree``.

Rules chosen where the design is silent:

* Every changed path gets one ``core:file:`` event: ``added``/``removed``/``moved`` (a
  detected rename) or ``modified`` (content, mode or type change). Binary files, symlinks
  and submodule pointers get that event only.
* A source file that cannot be read on either side of the change gets only its file event
  and is listed in ``unparsed_files``.
* A rename that keeps the module name (``src/a/b.py`` -> ``a/b.py``) moves every
  definition of the file: ``moved`` with ``previous_path`` set (the locator is unchanged,
  so ``previous_locator`` equals it) and ``also_modified`` for the edited ones; entities
  added or removed by the edit are ``added``/``removed``.
* A file renamed to another module moves its definitions the same way (with the old
  locator); ``also_modified`` when an entity's own text changed.
* Removed and added definitions of one commit are then paired into ``moved`` events when
  they are the same definition renamed or moved (``warpline.git.lineage``).
* What a change means (``warpline.git.nature``) is not read here: a stored event's facts
  are read when an answer reads the event (``warpline.git.eventfacts``); the work tree's
  are read with its changes.
* Rename detection examines up to ``rename_limit()`` files (``WARPLINE_RENAME_LIMIT``,
  default 10,000; libgit2's own default is 1,000). A commit past it is marked
  ``limits_hit = ("rename_limit",)`` and answers covering it say so.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pygit2
from pygit2.enums import DeltaStatus, DiffFind

from warpline import settings
from warpline.git.diffmap import (
    PySide,
    all_changes,
    edited_changes,
    file_event,
    finalize,
    moved_changes,
    whole_texts,
)
from warpline.git.events import ChangeKind, CommitChanges, CommitInfo, EntityChange
from warpline.git.hashcache import HashCache
from warpline.git.hunks import hunks_and_lines
from warpline.git.lineage import SideIndex, pair_definitions
from warpline.git.manifests import renamed_by_manifests
from warpline.git.merges import merge_changes
from warpline.git.parsecache import (
    DIFF_FLAGS,
    NOT_READ,
    DefinitionCache,
    SideResult,
    Source,
    TreeFiles,
    blob_data,
    same_module,
    side_result,
    source_of,
)
from warpline.git.paths import shown
from warpline.git.worktree import worktree_events
from warpline.lang import language_of
from warpline.lang.entities import EntityKey, split_lines

__all__ = [
    "DEFAULT_RENAME_LIMIT",
    "DefinitionCache",
    "commit_changes",
    "commit_info",
    "rename_limit",
    "worktree_changes",
]

DEFAULT_RENAME_LIMIT = settings.DEFAULT_RENAME_LIMIT


def rename_limit() -> int:
    """Files git's rename detection may examine per commit (``WARPLINE_RENAME_LIMIT``)."""
    return settings.rename_limit()

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
    limits: list[str] = []
    if len(commit.parent_ids) > 1:
        changes, unparsed = merge_changes(repo, commit, cache)
    else:
        changes, unparsed = _first_parent_changes(repo, commit, cache, limits)
    return CommitChanges(commit_info(commit), finalize(changes),
                         tuple(sorted({shown(path) for path in unparsed})), tuple(limits))


def worktree_changes(repo: pygit2.Repository,
                     hashes: HashCache | None = None) -> tuple[EntityChange, ...]:
    """Uncommitted changes (staged and unstaged; untracked files count as added) against
    HEAD, in the same shape as a commit's. Nothing is written but ``hashes``."""
    return finalize(worktree_events(repo, hashes))


def _find_renames(diff: pygit2.Diff, limits: list[str]) -> None:
    if len(diff) < 2:  # a rename needs a deletion and an addition
        return
    limit = rename_limit()
    statuses = [d.status for d in diff.deltas]
    deleted, added = statuses.count(DeltaStatus.DELETED), statuses.count(DeltaStatus.ADDED)
    if not deleted or not added:
        return
    diff.find_similar(DiffFind.FIND_RENAMES, rename_limit=limit)
    if max(deleted, added) > limit:
        after = [d.status for d in diff.deltas]
        if DeltaStatus.DELETED in after and DeltaStatus.ADDED in after:
            limits.append("rename_limit")


def _first_parent_changes(
    repo: pygit2.Repository, commit: pygit2.Commit, cache: DefinitionCache,
    limits: list[str],
) -> tuple[list[EntityChange], list[str]]:
    tree = commit.tree
    old_tree = commit.parents[0].tree if commit.parent_ids else None
    old_files, new_files = TreeFiles(repo, old_tree), TreeFiles(repo, tree)
    if old_tree is not None:
        diff = old_tree.diff_to_tree(tree, DIFF_FLAGS, 0, 0)
    else:
        diff = tree.diff_to_tree(flags=DIFF_FLAGS, context_lines=0, interhunk_lines=0, swap=True)
    _find_renames(diff, limits)
    sides = SideIndex()
    out: list[EntityChange] = []
    unparsed: list[str] = []
    for delta in diff.deltas:
        kind = _STATUS_KIND.get(delta.status, "modified")
        old_f, new_f = delta.old_file, delta.new_file
        old_path = None if kind == "added" else old_f.path
        new_path = None if kind == "removed" else new_f.path
        path = new_path or old_f.path
        out.append(file_event(kind, path, old_path, old_f.id != new_f.id))
        old_src = source_of(old_path, old_f.mode, old_files)
        new_src = source_of(new_path, new_f.mode, new_files)
        if old_src is None and new_src is None:
            continue
        if old_path is not None and new_path is not None and same_module(old_src, new_src):
            assert new_src is not None
            parsed = _edited(repo, cache, (old_path, new_path, new_src), delta, out, sides)
        else:
            parsed = _whole(repo, cache, (old_path, old_src, old_f.id),
                            (new_path, new_src, new_f.id), out, sides)  # fmt: skip
        if not parsed:
            unparsed.append(path)
    touched = {p for d in diff.deltas for p in (d.old_file.path, d.new_file.path)}
    for path, oid, old_src, new_src in renamed_by_manifests(old_tree, tree, touched,
                                                            old_files, new_files):
        if not _whole(repo, cache, (path, old_src, oid), (path, new_src, oid), out, sides):
            unparsed.append(path)
    if any(c.kind == "module" and c.change_kind in ("added", "removed") for c in out):
        out = [_shared_module(c, old_tree, tree) for c in out]
    out, capped = pair_definitions(out, sides)
    if capped:
        limits.append("lineage_limit")
    # What each change means (``nature.with_facts``) is read when an answer asks for it
    # (``eventfacts``), not here: a third of the walk, for facts most events never show.
    return out, unparsed


def _shared_module(change: EntityChange, old_tree: pygit2.Tree | None,
                   new_tree: pygit2.Tree) -> EntityChange:
    """A package shared by its directory's files (Go, Java) is added with its first file
    and removed with its last: otherwise its file's coming or going modifies it."""
    if change.kind != "module" or change.change_kind not in ("added", "removed"):
        return change
    lang = language_of(change.path)
    if lang is None or not lang.shared_module:
        return change
    other = old_tree if change.change_kind == "added" else new_tree
    if other is None or not _has_sibling(other, change.path, lang.suffixes):
        return change
    return EntityChange(change.locator, change.kind, "modified", change.path)


def _has_sibling(tree: pygit2.Tree, path: str, suffixes: tuple[str, ...]) -> bool:
    """``tree`` has another regular file with one of ``suffixes`` in ``path``'s directory."""
    directory, _, name = path.rpartition("/")
    try:
        folder = tree[directory] if directory else tree
    except KeyError:
        return False
    if not isinstance(folder, pygit2.Tree):
        return False
    return any(entry.name != name and str(entry.name).endswith(suffixes)
               and entry.filemode in (0o100644, 0o100755) for entry in folder)


def _same(lines: list[bytes]) -> list[bytes]:
    return lines


def _lines_loader(repo: pygit2.Repository, oid: pygit2.Oid) -> Callable[[], list[bytes]]:
    return lambda: split_lines(blob_data(repo, oid))


def _whole(
    repo: pygit2.Repository,
    cache: DefinitionCache,
    old: tuple[str | None, Source | None, pygit2.Oid],
    new: tuple[str | None, Source | None, pygit2.Oid],
    out: list[EntityChange],
    sides_seen: SideIndex,
) -> bool:
    """A file appeared, disappeared, or moved to another module. False: unparsed."""
    sides: list[SideResult] = []
    # The new side is derived from the old one's parse when both are read (a rename to
    # another module): only the statements the edit touched are re-parsed.
    base = old[2] if old[0] is not None and old[1] is not None else None
    for path, src, oid in (old, new):
        if path is None or src is None:
            sides.append(NOT_READ)
        else:
            parsed = cache.get_near(oid, partial(blob_data, repo, oid), base,
                                    partial(blob_data, repo, old[2]), src[0])
            sides.append(side_result(path, src[1], parsed))
            if parsed is not None:
                cache.remember(path, oid)
    old_side, new_side = sides
    if old_side.unparsed or new_side.unparsed:
        return False
    if old_side.side is not None and new_side.side is not None:
        edited: set[EntityKey] = set()
        if old[2] != new[2]:
            old_fe, new_fe = old_side.side.entities, new_side.side.entities
            before = whole_texts(old_fe, split_lines(blob_data(repo, old[2])))
            after = whole_texts(new_fe, split_lines(blob_data(repo, new[2])))
            edited = {k for k in before.keys() & after.keys() if before[k] != after[k]}
        moved_changes(old_side.side, new_side.side, out, edited)
    elif new_side.side is not None:
        all_changes(new_side.side, "added", out)
    elif old_side.side is not None:
        all_changes(old_side.side, "removed", out)
    if old_side.side is not None:
        sides_seen.old[old_side.side.path] = (old_side.side, _lines_loader(repo, old[2]))
    if new_side.side is not None:
        sides_seen.new[new_side.side.path] = (new_side.side, _lines_loader(repo, new[2]))
    return True


def _edited(
    repo: pygit2.Repository,
    cache: DefinitionCache,
    where: tuple[str, str, Source],
    delta: pygit2.DiffDelta,
    out: list[EntityChange],
    sides: SideIndex,
) -> bool:
    """A source file edited in place (or renamed without changing its module)."""
    old_path, new_path, (lang, dotted) = where
    old_id, new_id = delta.old_file.id, delta.new_file.id
    if old_id == new_id:
        if old_path != new_path:  # a pure rename keeping the module name: all moved
            fe = cache.get(old_id, partial(blob_data, repo, old_id), lang)
            if fe is None:
                return False
            _moved_in_place(PySide(old_path, dotted, fe), PySide(new_path, dotted, fe), [],
                            out)
        return True
    kept = cache.take_source(old_id)
    old_data, old_lines = kept if kept is not None else (blob_data(repo, old_id), None)
    # An old side not cached (its commit's slice went to another worker, a merge combined
    # it without parsing it) is derived from the last version parsed at that path.
    near = cache.recent(old_path)
    old_fe = cache.get_near(old_id, lambda: old_data, near,
                            partial(blob_data, repo, near) if near is not None else bytes,
                            language_of(old_path) or lang)
    if old_fe is None:
        return False
    new_data = blob_data(repo, new_id)
    if old_lines is None:
        old_lines = split_lines(old_data)
    hunks, derived_lines = hunks_and_lines(old_data, new_data, old_lines)
    new_lines = derived_lines if derived_lines is not None else split_lines(new_data)
    new_fe, windows = cache.derive(old_fe, new_id, new_data, new_lines, hunks, lang,
                                   (old_data, old_lines))
    if new_fe is None:
        return False
    cache.keep_source(new_id, new_data, new_lines)
    cache.remember(new_path, new_id)
    old_side, new_side = PySide(old_path, dotted, old_fe), PySide(new_path, dotted, new_fe)
    sides.old[old_path] = (old_side, partial(_same, old_lines))
    sides.new[new_path] = (new_side, partial(_same, new_lines))
    found: list[EntityChange] = []
    edited_changes(old_side, new_side, hunks, windows, old_lines, new_lines, found)
    if old_path == new_path:
        out.extend(found)
    else:
        _moved_in_place(old_side, new_side, found, out)
    return True


def _moved_in_place(old: PySide, new: PySide, found: list[EntityChange],
                    out: list[EntityChange]) -> None:
    """A file renamed keeping its module name: every surviving entity is ``moved`` (its
    locator unchanged), ``also_modified`` when the edit touched it."""
    modified = {c.locator for c in found if c.change_kind == "modified"}
    out.extend(c for c in found if c.change_kind != "modified")
    for key in old.entities.keys() & new.entities.keys():
        locator = new.locator(key)
        out.append(EntityChange(locator, new.kind(key), "moved", new.path, locator, old.path,
                                locator in modified))
