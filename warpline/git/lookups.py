"""Read-only repository questions whose honest answer may be "git cannot tell": a commit
that is not there, no upstream, a status or ignore rule libgit2 cannot read, a tree with a
missing object. Like ``repo.py`` (revisions a caller names), this module is a seam where
``pygit2.GitError`` stops: callers get ``None`` or an empty answer and say so themselves.
"""

from __future__ import annotations

import pygit2

__all__ = [
    "ancestry",
    "commit_or_none",
    "is_ignored",
    "paths_changed_since",
    "python_bytes",
    "status_or_empty",
    "upstream_branch",
]

_GIT_ERRORS = (pygit2.GitError, KeyError, ValueError)


def commit_or_none(repo: pygit2.Repository, sha: str) -> pygit2.Commit | None:
    """The commit ``sha`` names, or None when it is malformed or not in the repository."""
    try:
        obj = repo.get(pygit2.Oid(hex=sha))
        return obj.peel(pygit2.Commit) if obj is not None else None
    except _GIT_ERRORS:
        return None


def head_id_or_none(repo: pygit2.Repository) -> pygit2.Oid | None:
    """HEAD's commit id, or None when HEAD is unborn or its commit cannot be read (a
    damaged repository: the caller compares nothing against a HEAD it cannot see)."""
    try:
        return None if repo.head_is_unborn else repo.head.peel(pygit2.Commit).id
    except _GIT_ERRORS:
        return None


def upstream_branch(repo: pygit2.Repository) -> pygit2.Branch | None:
    """The current branch's upstream, or None (unborn or detached HEAD, none set)."""
    try:
        if repo.head_is_unborn or repo.head_is_detached:
            return None
        branch = repo.branches.local.get(repo.head.shorthand)
        return branch.upstream if branch is not None else None
    except _GIT_ERRORS:
        return None


def ancestry(repo: pygit2.Repository, head: pygit2.Oid | None,
             sha: str) -> tuple[bool, int | None]:
    """(``sha`` is HEAD or an ancestor of it, commits from it to HEAD)."""
    if head is None:
        return False, None
    try:
        oid = pygit2.Oid(hex=sha)
        if oid == head:
            return True, 0
        if sha not in repo or not repo.descendant_of(head, oid):
            return False, None
        ahead, _ = repo.ahead_behind(head, oid)
    except _GIT_ERRORS:
        return False, None
    return True, int(ahead)


def status_or_empty(repo: pygit2.Repository) -> dict[str, int]:
    """``git status`` (untracked files listed one by one, ignored ones left out); empty
    when libgit2 cannot read the index or the work tree."""
    try:
        return dict(repo.status(untracked_files="all", ignored=False))
    except pygit2.GitError:
        return {}


def is_ignored(repo: pygit2.Repository, path: str) -> bool | None:
    """Whether git ignores ``path``; None when the ignore rules cannot be read."""
    try:
        return bool(repo.path_is_ignored(path))
    except pygit2.GitError:
        return None


def paths_changed_since(repo: pygit2.Repository, sha: str) -> set[str]:
    """Paths that differ between commit ``sha`` and the working tree (committed since,
    staged, unstaged, untracked), outside ``.weft``; as many as git could read."""
    out: set[str] = set()
    try:
        commit = repo.get(pygit2.Oid(hex=sha))
        if not isinstance(commit, pygit2.Commit):
            return out
        diff = repo.diff(commit.tree, None) if repo.head_is_unborn else \
            commit.tree.diff_to_workdir()
        for patch_delta in diff.deltas:
            out.add(patch_delta.new_file.path)
            out.add(patch_delta.old_file.path)
        for path, flags in repo.status(untracked_files="all", ignored=False).items():
            if flags & pygit2.enums.FileStatus.WT_NEW or flags & pygit2.enums.FileStatus.INDEX_NEW:
                out.add(path)
    except _GIT_ERRORS:
        return out
    return {p for p in out if not (p == ".weft" or p.startswith(".weft/"))}


def python_bytes(commit: pygit2.Commit) -> int | None:
    """Bytes of committed ``.py`` files in ``commit``'s tree; None when an object of the
    tree is missing (a damaged or partial clone)."""
    total = 0
    try:
        stack: list[pygit2.Tree] = [commit.tree]
        while stack:
            tree = stack.pop()
            for entry in tree:
                if isinstance(entry, pygit2.Tree):
                    stack.append(entry)
                elif isinstance(entry, pygit2.Blob) and (entry.name or "").endswith(".py"):
                    total += entry.size
    except _GIT_ERRORS:
        return None
    return total
