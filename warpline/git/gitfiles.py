"""HEAD and the index's tracked paths, read from a repository's plain files, without libgit2.

A tool call on a caught-up store needs three facts from git: that ``path`` is a work tree,
which commit HEAD names, and whether the clone is shallow. Loading pygit2 for them costs more
than the rest of a small call, so the common layout is read here directly:
``<path>/.git/`` a directory, ``HEAD`` a branch ref (or a detached id), the branch a loose
ref file or a ``packed-refs`` line.

Anything unusual answers None, and the caller asks pygit2 instead: a ``.git`` file (linked
worktrees, submodules), ``core.worktree`` / ``core.bare`` / ``include`` / ``refStorage``
(reftable) in the config, a symbolic ref pointing at another symbolic ref, an unborn branch,
a shallow clone, an index git may have split or written as version 4. A wrong guess here
can only make a caller take the slow path: the caught-up check compares the id read here
with the id the store recorded from pygit2 when it last caught up, so an id git would not
give cannot match unless the files say exactly what libgit2 reads from them.

The repository is untrusted input: nothing read here is executed or followed outside the
git directory, and every read is bounded.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PlainRepo", "index_may_track", "plain_repo"]

_MAX_SMALL = 64 * 1024  # HEAD, a ref file, the config
_MAX_PACKED = 64 * 1024 * 1024  # packed-refs of a very large repository
_MAX_INDEX = 256 * 1024 * 1024
_OID = re.compile(rb"\A(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")
_REF_NAME = re.compile(r"\Arefs/heads/[^\x00-\x20\x7f~^:?*\[\\]+\Z")
# Config keys that move the work tree, make the repository bare, pull in other files, or
# store refs somewhere other than loose files and packed-refs.
_UNUSUAL_CONFIG = re.compile(rb"worktree|bare\s*=(?!\s*false\b)|include|refstorage",
                             re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class PlainRepo:
    """A work tree in the common layout: its top, git directory and HEAD's commit id."""

    root: Path  # the work tree's top, resolved
    git_dir: Path
    head: str  # the commit id HEAD names (hex)


def _read(path: Path, limit: int) -> bytes | None:
    """The bytes of a regular file (never through a link), or None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def _packed(git_dir: Path, name: bytes) -> bytes | None:
    """The id ``packed-refs`` gives ``name`` (None when absent or unreadable)."""
    data = _read(git_dir / "packed-refs", _MAX_PACKED)
    if data is None:
        return None
    if not data.endswith(b"\n"):
        data += b"\n"
    start = data.find(b" " + name + b"\n")
    while start != -1:
        line_start = data.rfind(b"\n", 0, start) + 1
        oid = data[line_start:start]
        if _OID.match(oid):
            return oid
        start = data.find(b" " + name + b"\n", start + 1)
    return None


def _branch_id(git_dir: Path, name: str) -> bytes | None:
    """The id of branch ``name``: its loose ref file first (git's precedence), then
    ``packed-refs``. None for a symbolic ref, an unborn branch or anything unreadable."""
    loose = _read(git_dir / name, _MAX_SMALL)
    if loose is not None:
        oid = loose.strip()
        return oid if _OID.match(oid) else None  # ``ref: ...`` chains go to pygit2
    if os.path.lexists(git_dir / name):
        return None  # present but unreadable (a link, a directory): do not guess
    return _packed(git_dir, name.encode())


def _plain_name(name: str) -> bool:
    """A branch name git could have written as a file under ``refs/heads/``."""
    return bool(_REF_NAME.match(name)) and ".." not in name and "/." not in name \
        and "//" not in name and not name.endswith((".lock", "/", "."))


def plain_repo(path: Path) -> PlainRepo | None:
    """``path`` as a work tree in the common layout with HEAD on a commit, or None when
    pygit2 must decide (see the module note)."""
    git_dir = path / ".git"
    try:
        if not git_dir.is_dir() or git_dir.is_symlink():
            return None
        if (git_dir / "shallow").exists() or not (git_dir / "objects").is_dir():
            return None
    except OSError:
        return None
    config = _read(git_dir / "config", _MAX_SMALL)
    if config is None or _UNUSUAL_CONFIG.search(config):
        return None
    head = _read(git_dir / "HEAD", _MAX_SMALL)
    if head is None:
        return None
    head = head.strip()
    if _OID.match(head):
        oid: bytes | None = head
    elif head.startswith(b"ref: "):
        name = head[5:].strip().decode("utf-8", "replace")
        oid = _branch_id(git_dir, name) if _plain_name(name) else None
    else:
        oid = None
    if oid is None:
        return None
    return PlainRepo(root=path.resolve(), git_dir=git_dir, head=oid.decode("ascii"))


def index_may_track(git_dir: Path, prefix: str) -> bool:
    """False only when the index certainly lists no path starting with ``prefix``: a
    version 2 or 3 index (paths stored whole) that is not split, whose bytes do not
    contain it. True whenever that cannot be told this way (libgit2 must read it)."""
    if any(entry.startswith("sharedindex.") for entry in _names(git_dir)):
        return True
    data = _read(git_dir / "index", _MAX_INDEX)
    if data is None:
        # No index: nothing is tracked. Present but unreadable (a link, too large): ask.
        return os.path.lexists(git_dir / "index")
    if len(data) < 12 or data[:4] != b"DIRC" or data[4:8] not in (b"\0\0\0\x02", b"\0\0\0\x03"):
        return True
    return prefix.encode() in data


def _names(directory: Path) -> list[str]:
    try:
        return os.listdir(directory)
    except OSError:
        return ["sharedindex.?"]  # cannot tell: assume the worst
