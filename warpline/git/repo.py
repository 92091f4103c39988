"""Opening repositories and resolving revisions: the one seam where pygit2 errors become
warpline errors (``InvalidRepo``, ``InvalidRevRange``).

Opening never creates anything: a missing path, a plain directory, a directory inside a
work tree (pass the work tree's top instead) and a bare repository are ``invalid_repo``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager

import pygit2
from pygit2.enums import RepositoryOpenFlag, SortMode

from warpline.errors import InvalidRepo, InvalidRevRange

__all__ = [
    "commits_in_range",
    "discover_top",
    "head_commit",
    "open_repo",
    "parse_rev_range",
    "release_caches",
    "resolve_commit",
    "walk_all",
]

_GIT_ERRORS = (pygit2.GitError, KeyError, ValueError)


def open_repo(path: str | os.PathLike[str]) -> pygit2.Repository:
    """The repository whose work tree (or ``.git`` directory) is exactly ``path``."""
    text = os.fspath(path)
    if not text or not os.path.exists(text):
        raise InvalidRepo(
            f"{text!r} does not exist; pass the path of a git work tree.",
            field="repo",
            value=text,
        )
    if not os.path.isdir(text):
        raise InvalidRepo(
            f"{text!r} is not a directory; pass the top directory of a git work tree.",
            field="repo",
            value=text,
        )
    try:
        # NO_SEARCH: never adopt an enclosing repository (a home directory under git
        # would otherwise claim every plain directory beneath it).
        repo = pygit2.Repository(text, RepositoryOpenFlag.NO_SEARCH)
    except _GIT_ERRORS:
        raise InvalidRepo(_not_a_repo_hint(text), field="repo", value=text) from None
    if repo.is_bare or repo.workdir is None:
        raise InvalidRepo(
            f"{text!r} is a bare repository; warpline needs a work tree: pass a clone's "
            "top directory.",
            field="repo",
            value=text,
        )
    return repo


def _not_a_repo_hint(text: str) -> str:
    try:
        found = pygit2.discover_repository(text)
    except _GIT_ERRORS:
        found = None
    if found:
        top = os.path.dirname(os.path.normpath(found))
        return f"{text!r} is inside the git repository at {top!r}; pass {top!r} instead."
    return f"{text!r} is not a git repository; pass the top directory of a git work tree."


def discover_top(start: str | os.PathLike[str]) -> str | None:
    """The work-tree top of the repository containing ``start`` (as git finds it from a
    subdirectory), or None when there is none or it is bare. Only for the CLI's default
    ``--repo .``: an explicit path is still opened exactly."""
    try:
        found = pygit2.discover_repository(os.fspath(start))
        if not found:
            return None
        workdir = pygit2.Repository(found).workdir
    except _GIT_ERRORS:
        return None
    return os.path.normpath(workdir) if workdir else None


def head_commit(repo: pygit2.Repository) -> pygit2.Commit | None:
    """The commit HEAD points at, or None in a repository without commits."""
    if repo.head_is_unborn:
        return None
    _refuse_missing_head(repo)
    with _translated("HEAD", "rev_range"):
        return repo.head.peel(pygit2.Commit)


def _refuse_missing_head(repo: pygit2.Repository) -> None:
    """HEAD names a commit the object database lacks: a damaged repository, not a bad
    revision (``invalid_repo`` naming the object, as a walk through a missing one says)."""
    try:
        target = repo.head.target
        missing = isinstance(target, pygit2.Oid) and target not in repo.odb
    except (pygit2.GitError, KeyError, ValueError):
        return  # the caller's peel says what is wrong
    if missing:
        raise InvalidRepo(
            f"HEAD names commit {target}, which the repository's object database lacks. "
            "Git's own check (`git fsck --connectivity-only`) names what is missing; fetch it "
            "again or re-clone.", field="repo", value=repo.workdir,
            details={"missing_object": str(target)})


SHALLOW_FIX = ("fetch the rest of the history (`git fetch --unshallow`, or `git fetch "
               "--deepen=N`; in GitHub Actions `actions/checkout` with `fetch-depth: 0`)")


def _cause(repo: pygit2.Repository | None, rev: str) -> str:
    """Why ``rev`` names no commit, in words, when the repository can tell."""
    if repo is not None and "@{u" in rev:
        return (f"{rev!r}: the current branch has no upstream; set one (`git branch "
                "--set-upstream-to=origin/main`) or pass BASE..HEAD (e.g. origin/main..HEAD).")
    if repo is not None and repo.is_shallow:
        return (f"{rev!r} does not name a commit in this shallow clone: its history stops at "
                "the shallow boundary, and the commit may lie beyond it; "
                f"{SHALLOW_FIX}, or pass a range inside the fetched history.")
    return (f"{rev!r} does not name a commit in this repository; pass a branch, tag, "
            "sha or HEAD~N.")


@contextmanager
def _translated(rev: str, field: str,
                repo: pygit2.Repository | None = None) -> Iterator[None]:
    try:
        yield
    except _GIT_ERRORS:
        details = {"shallow": True} if repo is not None and repo.is_shallow else None
        raise InvalidRevRange(_cause(repo, rev), field=field, value=rev,
                              details=details) from None


def resolve_commit(repo: pygit2.Repository, rev: str, field: str = "rev_range") -> pygit2.Commit:
    """The commit ``rev`` names (branch, tag, sha, ``HEAD~2``...)."""
    if not rev.strip():
        raise InvalidRevRange(
            "empty revision; pass a branch, tag, sha or HEAD.", field=field, value=rev
        )
    if rev.strip() == "HEAD" and repo.head_is_unborn:
        raise InvalidRevRange(
            "the repository has no commits yet; commit first, then retry.",
            field=field,
            value=rev,
        )
    if rev.strip() == "HEAD":
        _refuse_missing_head(repo)
    with _translated(rev, field, repo):
        return repo.revparse_single(rev.strip()).peel(pygit2.Commit)


def parse_rev_range(
    repo: pygit2.Repository, text: str, field: str = "rev_range"
) -> tuple[pygit2.Commit | None, pygit2.Commit]:
    """``A..B`` -> (A, B); a single rev -> (its first parent or None for a root, rev).

    An empty side of ``..`` means HEAD, as in git. ``A...B`` is rejected.
    """
    text = text.strip()
    if "..." in text:
        raise InvalidRevRange(
            f"{text!r}: symmetric ranges (A...B) are not supported; pass A..B or one rev.",
            field=field,
            value=text,
        )
    if ".." not in text:
        head = resolve_commit(repo, text, field)
        return (head.parents[0] if head.parent_ids else None), head
    left, right = text.split("..", 1)
    if not left.strip() and not right.strip():
        raise InvalidRevRange(
            "'..' names no commits; pass A..B or one rev.", field=field, value=text
        )
    base = resolve_commit(repo, left or "HEAD", field)
    head = resolve_commit(repo, right or "HEAD", field)
    return base, head


def commits_in_range(
    repo: pygit2.Repository, base: pygit2.Commit | None, head: pygit2.Commit
) -> list[pygit2.Commit]:
    """Commits reachable from ``head`` and not from ``base``, parents before children."""
    walker = repo.walk(head.id, SortMode.TOPOLOGICAL | SortMode.REVERSE)
    if base is not None:
        walker.hide(base.id)
    return walk_all(repo, walker)  # a missing commit object is invalid_repo, not a crash


def range_commits(
    repo: pygit2.Repository, text: str, field: str = "rev_range"
) -> tuple[pygit2.Commit | None, pygit2.Commit, list[pygit2.Commit]]:
    """``A..B`` -> (A, B, commits reachable from B and not from A, parents first); a single
    rev -> (its first parent, rev, [rev]): that one commit, a merge included (never the
    branch it merged)."""
    base, head = parse_rev_range(repo, text, field)
    if ".." not in text:
        return base, head, [head]
    return base, head, commits_in_range(repo, base, head)


def walk_all(repo: pygit2.Repository, walker: pygit2.Walker) -> list[pygit2.Commit]:
    """Every commit ``walker`` yields. A commit object missing from the history (a damaged
    repository, or objects deleted by hand) is ``invalid_repo``: the history cannot be read
    past it, and guessing would be a confident wrong answer."""
    try:
        return list(walker)
    except pygit2.GitError as exc:
        missing = re.search(r"[0-9a-f]{40}", str(exc))
        raise InvalidRepo(
            f"The repository's history cannot be walked: {exc}. Git's own check (`git fsck "
            "--connectivity-only`) names what is missing; fetch it again or re-clone.",
            field="repo", value=repo.workdir,
            details={"missing_object": missing.group(0) if missing else None}) from None


def release_caches(repo: pygit2.Repository) -> bool:
    """Give back libgit2's object cache and pack handles (the repository reopens what it
    needs on use); returns whether it did. Not on a shallow clone: ``free()`` also drops
    the grafts read from ``.git/shallow`` and libgit2 never reads them again, so every
    later walk or parent lookup would cross the boundary into commits the clone does not
    have (measured with pygit2 1.21 / libgit2 1.9: ``NotFoundError`` on the parent of the
    boundary commit)."""
    if repo.is_shallow:
        return False
    repo.free()
    return True

