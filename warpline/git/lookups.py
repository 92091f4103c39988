"""Read-only repository questions whose honest answer may be "git cannot tell": a commit
that is not there, no upstream, a status or ignore rule libgit2 cannot read, a tree with a
missing object. Like ``repo.py`` (revisions a caller names), this module is a seam where
``pygit2.GitError`` stops: callers get ``None`` or an empty answer and say so themselves.
"""

from __future__ import annotations

from collections.abc import Callable

import pygit2

__all__ = [
    "ancestry",
    "blob_at",
    "commit_or_none",
    "contains",
    "head_blob",
    "is_ignored",
    "object_bytes",
    "open_repository",
    "paths_changed_since",
    "revparse_commit",
    "source_bytes",
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


def source_bytes(commit: pygit2.Commit, reads: Callable[[str], bool]) -> int | None:
    """Bytes of the committed files in ``commit``'s tree whose name ``reads`` accepts (a
    language's); None when an object of the tree is missing (a damaged or partial clone)."""
    total = 0
    try:
        stack: list[pygit2.Tree] = [commit.tree]
        while stack:
            tree = stack.pop()
            for entry in tree:
                if isinstance(entry, pygit2.Tree):
                    stack.append(entry)
                elif isinstance(entry, pygit2.Blob) and reads(entry.name or ""):
                    total += entry.size
    except _GIT_ERRORS:
        return None
    return total


def revparse_commit(repo: pygit2.Repository, name: str) -> pygit2.Commit | None:
    """The commit a revision name (``origin/main``, ``HEAD``) resolves to, or None."""
    try:
        found = repo.revparse_single(name).peel(pygit2.Commit)
    except _GIT_ERRORS:
        return None
    return found if isinstance(found, pygit2.Commit) else None


def contains(repo: pygit2.Repository, tip: str, sha: str) -> bool:
    """True when the commit ``sha`` is ``tip``'s commit or one of its ancestors."""
    head, commit = revparse_commit(repo, tip), commit_or_none(repo, sha)
    if head is None or commit is None:
        return False
    try:
        return head.id == commit.id or bool(repo.descendant_of(head.id, commit.id))
    except _GIT_ERRORS:
        return False


def object_bytes(repo: pygit2.Repository, sha: str) -> bytes | None:
    """The raw bytes of the object ``sha`` names (read from the object database itself,
    which shows a shallow boundary's real parents), or None."""
    try:
        return bytes(repo.odb.read(pygit2.Oid(hex=sha))[1])
    except _GIT_ERRORS:
        return None


def open_repository(path: str) -> pygit2.Repository | None:
    """The repository at (or above) ``path``, or None when there is none git can read."""
    try:
        found = pygit2.discover_repository(path)
        return pygit2.Repository(found) if found is not None else None
    except _GIT_ERRORS:
        return None


def head_blob(repo: pygit2.Repository, path: str, max_bytes: int) -> bytes | None:
    """HEAD's version of ``path``; None when HEAD has no such file. ``ValueError`` when it
    cannot be read, is not a file, or is past ``max_bytes``."""
    if repo.head_is_unborn:
        return None
    try:
        entry = repo.head.peel(pygit2.Commit).tree[path]
    except KeyError:
        return None
    except _GIT_ERRORS as exc:
        raise ValueError(f"HEAD's {path} cannot be read ({exc})") from None
    try:
        blob = repo[entry.id]
    except _GIT_ERRORS as exc:
        raise ValueError(f"HEAD's {path} cannot be read ({exc})") from None
    if not isinstance(blob, pygit2.Blob) or blob.size > max_bytes:
        raise ValueError(f"HEAD's {path} is not a file of at most {max_bytes} bytes")
    return bytes(blob.data)


def blob_at(repo: pygit2.Repository, rev: str, path: str, max_bytes: int) -> bytes | None:
    """``path`` as commit ``rev`` (a sha or ``HEAD``) holds it; None when there is no such
    commit or file, it is not a file, is past ``max_bytes`` or cannot be read."""
    try:
        commit = repo.revparse_single(rev).peel(pygit2.Commit)
        blob = repo[commit.tree[path].id]
    except _GIT_ERRORS:
        return None
    if not isinstance(blob, pygit2.Blob) or blob.size > max_bytes:
        return None
    return bytes(blob.data)


def is_tracked(repo: pygit2.Repository, path: str) -> bool | None:
    """Whether git's index tracks ``path`` (repo-relative, ``/``-separated); None when the
    index cannot be read."""
    try:
        return path in repo.index
    except (*_GIT_ERRORS, OSError):
        return None
