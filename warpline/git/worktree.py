"""Uncommitted changes against HEAD, as entity events (read-only: nothing is written).

The work tree's current content is compared with HEAD's tree, path by path, for every
path ``git status`` reports (staged or unstaged; untracked files count as added, ignored
files do not). A path whose content is back to HEAD's (staged, then reverted) has no
event. ``.weft/`` (warpline's and its siblings' own state) and untracked nested
repositories are left out. No rename detection: a moved file is removed + added. A
TS/JS file added or removed beside an untouched same-stem sibling renames that sibling's
module, as in a commit (the rows' ``siblings``, ``git/manifests.py``): its definitions are
``moved``. A manifest edited in the work tree is not followed so.
"""

from __future__ import annotations

import os
import stat
from functools import partial

import pygit2

from warpline.git.diffmap import PySide, all_changes, edited_changes, file_event, moved_changes
from warpline.git.events import ChangeKind, EntityChange
from warpline.git.filecaps import too_large
from warpline.git.hashcache import HashCache
from warpline.git.hunks import hunks_between
from warpline.git.lineage import SideIndex, pair_definitions
from warpline.git.nature import with_facts
from warpline.git.parsecache import (
    TreeFiles,
    TreeState,
    blob_data,
    same_module,
    source_of,
    tree_state,
)
from warpline.lang import language_of
from warpline.lang.entities import split_lines

__all__ = ["DiskFiles", "worktree_events"]

_GITLINK = 0o160000
_LINK = 0o120000


def worktree_events(repo: pygit2.Repository,
                    hashes: HashCache | None = None) -> list[EntityChange]:
    """``hashes``: where blob ids of large changed files are remembered between calls
    (``warpline.git.hashcache``); None remembers nothing."""
    workdir = repo.workdir
    if workdir is None:
        return []
    cache = hashes if hashes is not None else HashCache(None)
    tree = None if repo.head_is_unborn else repo.head.peel(pygit2.Commit).tree
    out: list[EntityChange] = []
    sides = SideIndex()
    files = (TreeFiles(repo, tree), _DiskFiles(workdir))
    status = repo.status(untracked_files="all", ignored=False)
    for path in sorted(status):
        if path.endswith("/") or path == ".weft" or path.startswith(".weft/"):
            continue
        old = tree_state(tree, path) if tree is not None else None
        # A file that is not read is compared with HEAD's blob by id: with no blob (an
        # added file) there is nothing to compare, so it is not hashed at all.
        new = _disk_state(os.path.join(workdir, path), path,
                          cache if old is not None else None)
        _path_events(repo, path, old, new, out, sides, files)
    cache.save()
    if tree is not None:
        _siblings_renamed(repo, tree, set(status), out, sides, files)
    paired, _ = pair_definitions(out, sides)  # renames and moves, as in a commit
    return with_facts(paired, sides)


def _siblings_renamed(repo: pygit2.Repository, tree: pygit2.Tree, touched: set[str],
                      out: list[EntityChange], sides: SideIndex,
                      files: tuple[TreeFiles, _DiskFiles]) -> None:
    """Untouched files whose module a touched same-stem sibling renames (TS/JS)."""
    for path in sorted(touched):
        row = language_of(path)
        for sibling in row.siblings(path) if row is not None and row.siblings else ():
            state = tree_state(tree, sibling)
            if sibling in touched or state is None or sibling in sides.new:
                continue
            old_src = source_of(sibling, state[1], files[0])
            new_src = source_of(sibling, state[1], files[1])
            if old_src is None or new_src is None or same_module(old_src, new_src):
                continue
            data = blob_data(repo, state[0])
            old_fe, new_fe = old_src[0].read(data), new_src[0].read(data)
            if old_fe is None or new_fe is None:
                continue
            old_side = PySide(sibling, old_src[1], old_fe)
            new_side = PySide(sibling, new_src[1], new_fe)
            moved_changes(old_side, new_side, out, set())
            sides.old[sibling] = (old_side, partial(split_lines, data))
            sides.new[sibling] = (new_side, partial(split_lines, data))


class _DiskFiles:
    """The work tree's small regular files by repo-relative path (never following a link):
    the manifests a module name depends on."""

    _CAP = 1 << 20

    def __init__(self, workdir: str) -> None:
        self._workdir = workdir
        self._memo: dict[str, bytes | None] = {}

    def read(self, path: str) -> bytes | None:
        if path not in self._memo:
            self._memo[path] = self._load(path)
        return self._memo[path]

    def _load(self, path: str) -> bytes | None:
        full = os.path.join(self._workdir, path)
        try:
            st = os.lstat(full)
            if not stat.S_ISREG(st.st_mode) or st.st_size > self._CAP:
                return None
            fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, "rb") as fh:
                return fh.read(self._CAP + 1)
        except OSError:
            return None


# (git file mode, content or None when it is not read, blob id when it was hashed)
DiskState = tuple[int, bytes | None, pygit2.Oid | None]



DiskFiles = _DiskFiles  # the work tree's manifests, for a module name outside the walker


def _disk_state(full: str, path: str, hashes: HashCache | None) -> DiskState | None:
    """A work-tree path as git would see it; None when it is absent.

    ``lstat`` only, never following a link. Content is read only for a regular source file
    within the parse cap (``warpline.git.filecaps``); any other regular file is hashed
    (streamed by libgit2) so an unchanged one is still recognised; a FIFO, socket or
    device is never opened (opening a FIFO would block the whole server). ``hashes``
    None: the id is not needed (nothing to compare it with), so the file is not hashed."""
    try:
        st = os.lstat(full)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return (_LINK, os.fsencode(os.readlink(full)), None)
    if stat.S_ISDIR(st.st_mode):
        return (_GITLINK, b"", None)  # a submodule's checkout
    mode = 0o100755 if st.st_mode & 0o111 else 0o100644
    if not stat.S_ISREG(st.st_mode):
        return (mode, None, None)  # not a file git could store: a file event, unread
    if source_of(path, mode, None) is not None and not too_large(st.st_size):
        try:
            fd = os.open(full, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
                         | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(st.st_size + 1)
        except OSError:
            return None
        if not too_large(data):
            return (mode, data, None)
    if hashes is None:
        return (mode, None, None)
    try:
        return (mode, None, hashes.blob_id(full, path, st))
    except (OSError, pygit2.GitError, ValueError):
        return (mode, None, None)


def _path_events(
    repo: pygit2.Repository,
    path: str,
    old: TreeState,
    disk: DiskState | None,
    out: list[EntityChange],
    sides: SideIndex,
    files: tuple[TreeFiles, _DiskFiles],
) -> None:
    if old is None and disk is None:
        return
    if disk is not None and disk[1] is None:  # not read: compare ids, or a file event
        if old is not None and disk[2] is not None and (old[0], old[1]) == (disk[2], disk[0]):
            return
        out.append(file_event("added" if old is None else "modified", path, None))
        return
    new = None if disk is None else (disk[0], disk[1] or b"")
    old_data = b""
    if old is not None and old[1] != _GITLINK:
        old_data = blob_data(repo, old[0])
        if new is not None and new == (old[1], old_data):
            return  # back to HEAD's content
    kind: ChangeKind = "added" if old is None else "removed" if new is None else "modified"
    out.append(file_event(kind, path, None))
    new_mode, new_data = new if new is not None else (0, b"")
    old_src = source_of(path, old[1], files[0]) if old is not None else None
    new_src = source_of(path, new_mode, files[1]) if new is not None else None
    old_dotted = old_src[1] if old_src is not None else None
    new_dotted = new_src[1] if new_src is not None else None
    old_fe = old_src[0].read(old_data) if old_src is not None else None
    new_fe = new_src[0].read(new_data) if new_src is not None else None
    if (old_dotted and old_fe is None) or (new_dotted and new_fe is None):
        return  # does not parse: the file event only
    if old_dotted and old_fe is not None:
        sides.old[path] = (PySide(path, old_dotted, old_fe), partial(split_lines, old_data))
    if new_dotted and new_fe is not None:
        sides.new[path] = (PySide(path, new_dotted, new_fe), partial(split_lines, new_data))
    if old_dotted and new_dotted and old_fe is not None and new_fe is not None:
        hunks = hunks_between(old_data, new_data)
        old_side, new_side = PySide(path, old_dotted, old_fe), PySide(path, new_dotted, new_fe)
        lines = split_lines(old_data), split_lines(new_data)
        edited_changes(old_side, new_side, hunks, None, *lines, out)
    elif new_dotted and new_fe is not None:
        all_changes(PySide(path, new_dotted, new_fe), "added", out)
    elif old_dotted and old_fe is not None:
        all_changes(PySide(path, old_dotted, old_fe), "removed", out)
