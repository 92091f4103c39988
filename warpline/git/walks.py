"""The history walks and commit lookups the store's bookkeeping asks for (what is left to
ingest, what HEAD reaches, how far behind a store is), so ``store/`` writes rows and never
touches libgit2. Like ``lookups.py``, a seam where ``pygit2.GitError`` stops: where git
cannot tell, the answer is None, False or a skipped step, and the caller says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

import pygit2
from pygit2.enums import SortMode

from warpline.git.repo import walk_all

__all__ = [
    "Commit",
    "Oid",
    "Repository",
    "commits_between",
    "descends",
    "git_dir_of",
    "has_in_history",
    "head_or_missing",
    "open_for_worker",
    "peel_commit",
    "pending_commits",
    "reached_from_head",
    "topological_shas",
    "tracked_among",
]

# The git objects the store's callers hand around (annotations outside git/ name these).
Commit: TypeAlias = pygit2.Commit
Oid: TypeAlias = pygit2.Oid
Repository: TypeAlias = pygit2.Repository

_GIT_ERRORS = (pygit2.GitError, KeyError, ValueError)


def pending_commits(repo: Repository, head: Commit, hide: Iterable[str]) -> list[Commit]:
    """Commits ``head`` reaches, parents first, without those the commits ``hide`` reach
    (a tip rewritten away is not hidden: hiding only saves walk time)."""
    walker = repo.walk(head.id, SortMode.TOPOLOGICAL | SortMode.REVERSE)
    for tip in hide:
        try:
            walker.hide(pygit2.Oid(hex=tip))
        except _GIT_ERRORS:
            continue
    return walk_all(repo, walker)


def topological_shas(repo: Repository, head: Commit, hide: str | None = None) -> list[str]:
    """The shas ``head`` reaches (and ``hide``, an ancestor, does not), parents first."""
    walker = repo.walk(head.id, SortMode.TOPOLOGICAL | SortMode.REVERSE)
    if hide is not None:
        walker.hide(pygit2.Oid(hex=hide))
    return [str(c.id) for c in walker]


def reached_from_head(repo: Repository) -> set[str] | None:
    """Every commit HEAD reaches (empty for an unborn HEAD); None when the history cannot
    be walked (a missing object)."""
    try:
        head, _ = head_or_missing(repo)
        return set() if head is None else set(topological_shas(repo, head))
    except _GIT_ERRORS:
        return None


def descends(repo: Repository, head: Commit, tip: str) -> bool:
    """Whether ``head`` is a descendant of ``tip`` (not ``tip`` itself); False when ``tip``
    is gone (gc'd after a rewrite) or malformed."""
    try:
        return bool(repo.descendant_of(head.id, pygit2.Oid(hex=tip)))
    except _GIT_ERRORS:
        return False


def has_in_history(repo: Repository, sha: str, ancestor: str) -> bool:
    """Whether ``ancestor`` is ``sha`` or in its history; True when either is missing or
    malformed (nothing says the two lines of history are parallel)."""
    if sha == ancestor:
        return True
    try:
        return bool(repo.descendant_of(pygit2.Oid(hex=sha), pygit2.Oid(hex=ancestor)))
    except _GIT_ERRORS:
        return True


def commits_between(repo: Repository, head: Commit, tip: str, limit: int) -> int | None:
    """How many commits ``head`` reaches that ``tip`` does not, counted up to ``limit + 1``;
    None when ``head`` is not a descendant of ``tip`` (``tip`` itself is none: git's
    ``descendant_of``) or git cannot tell."""
    try:
        if not repo.descendant_of(head.id, pygit2.Oid(hex=tip)):
            return None
        walker = repo.walk(head.id)
        walker.hide(pygit2.Oid(hex=tip))
    except _GIT_ERRORS:
        return None
    between = 0
    for _ in walker:
        between += 1
        if between > limit:
            break
    return between


def head_or_missing(repo: Repository) -> tuple[Commit | None, str | None]:
    """HEAD's commit (None when unborn or unreadable), and the sha HEAD names when the
    object database lacks it (a damaged repository)."""
    try:
        return (None if repo.head_is_unborn else repo.head.peel(pygit2.Commit)), None
    except _GIT_ERRORS:
        try:
            target = repo.references["HEAD"].resolve().target
        except _GIT_ERRORS:
            return None, None
        if isinstance(target, pygit2.Oid) and target not in repo.odb:
            return None, str(target)
        return None, None


def peel_commit(repo: Repository, name: str | Oid) -> Commit | None:
    """The commit an id names; None when the object is missing (a shallow clone's parent,
    a damaged repository) or is no commit."""
    try:
        return repo[name].peel(pygit2.Commit)
    except _GIT_ERRORS:
        return None


def open_for_worker(path: str, *, mwindow_size: int, mapped_limit: int,
                    object_cache: int) -> Repository:
    """The repository at ``path`` in a worker process, with libgit2's process-wide memory
    bounds set first (pack windows, mapped bytes, the object cache)."""
    pygit2.settings.mwindow_size = mwindow_size
    pygit2.settings.mwindow_mapped_limit = mapped_limit
    pygit2.settings.cache_max_size(object_cache)
    return pygit2.Repository(path)


def git_dir_of(root: str) -> str | None:
    """The git directory of the repository at ``root`` as libgit2 finds it (a worktree's
    ``.git`` file, a symlinked ``.git``); None when there is none it can open."""
    try:
        return str(pygit2.Repository(root).path)
    except (*_GIT_ERRORS, OSError):
        return None


def tracked_among(root: str, paths: Iterable[str]) -> tuple[str, ...] | None:
    """Those of ``paths`` the index of the repository at ``root`` tracks, in order; None
    when the repository or its index cannot be read."""
    try:
        index = pygit2.Repository(root).index
    except (*_GIT_ERRORS, OSError):
        return None
    return tuple(path for path in paths if path in index)
