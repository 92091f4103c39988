"""Where warpline keeps its local state, and why it may trust what it finds there.

The repository is untrusted input, and so is anything it commits under ``.weft/``:

* **Symlinks.** ``.weft``, ``.weft/warpline`` and every file warpline writes in it must be
  what they look like. A committed ``.weft -> ../x`` or a dangling
  ``warpline.db -> /tmp/evil.db`` would redirect writes outside the repository, so a link
  anywhere on that path is refused (``store_unsafe``), and files are created with
  ``O_NOFOLLOW | O_EXCL`` semantics (``create_exclusive``, ``open_append``).
* **A tracked state directory.** A store, config or log that git tracks arrived with the
  clone: its verification records were made somewhere else, by someone else. warpline
  ignores it and keeps this clone's state in the git directory instead
  (``<git dir>/warpline/``, never committed), and every answer says so
  (``trust_warnings``).

Checks are ``lstat`` based. They defend against what a repository can commit, not against
a concurrent local attacker racing the check (who could write the files directly anyway).
"""

from __future__ import annotations

import errno
import os
import stat
from functools import lru_cache
from pathlib import Path

from warpline.errors import StoreUnsafe
from warpline.git.gitfiles import index_may_track

STATE_RELPATH = Path(".weft") / "warpline"
# The files warpline writes in its state directory (the SQLite sidecars included).
STATE_FILES: tuple[str, ...] = (
    "warpline.db", "warpline.db-wal", "warpline.db-shm", "warpline.db-journal",
    "config.json", "ingest.log", "ingest.lock", ".gitignore", "integrity.json",
    "worktree-hashes.json", "receipt.key", "outputs.json",
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _git_dir(root: Path) -> Path | None:
    plain = root / ".git"
    try:  # the common layout: no need to load libgit2 to find it
        if plain.is_dir() and not plain.is_symlink() and (plain / "HEAD").is_file():
            return plain
    except OSError:
        pass
    from warpline.git.walks import git_dir_of

    found = git_dir_of(str(root))
    return None if found is None else Path(found)


def tracked_state_files(root: Path) -> list[str]:
    """Paths under ``.weft/warpline/`` that git tracks in ``root`` (normally none).

    Answered from the index, remembered while the index file is unchanged (a long-lived
    server asks on every call; a large index costs milliseconds to load)."""
    git_dir = _git_dir(root)
    if git_dir is None:
        return []
    try:
        info = os.stat(git_dir / "index")
    except OSError:
        return []  # no index: nothing is tracked
    return list(_tracked(str(root), info.st_mtime_ns, info.st_size, info.st_ino))


@lru_cache(maxsize=64)
def _tracked(root: str, mtime_ns: int, size: int, inode: int) -> tuple[str, ...]:
    prefix = STATE_RELPATH.as_posix()
    git_dir = _git_dir(Path(root))
    if git_dir is not None and not index_may_track(git_dir, prefix + "/"):
        return ()  # read from the index file itself: libgit2 need not load
    from warpline.git.walks import tracked_among

    return tracked_among(root, [f"{prefix}/{name}" for name in STATE_FILES]) or ()


def state_dir(root: Path) -> Path:
    """The directory holding this work tree's store, config, log and lock.

    ``<root>/.weft/warpline`` unless git tracks files there: then ``<git dir>/warpline``
    (per worktree), so the committed copy is never read nor written."""
    if tracked_state_files(root):
        git_dir = _git_dir(root)
        if git_dir is not None:
            return git_dir / "warpline"
    return root / STATE_RELPATH


def trust_warnings(root: Path) -> list[str]:
    """The words every answer carries when the committed state is being ignored."""
    tracked = tracked_state_files(root)
    if not tracked:
        return []
    return [f"git tracks {', '.join(tracked)}: state committed to the repository is not "
            f"trusted (its records were made elsewhere) and is ignored; this clone's store "
            f"is {state_dir(root)}. Remove it from git (`git rm --cached -r "
            f"{STATE_RELPATH.as_posix()}`); shared verification records travel as git notes."]


def _unsafe(path: Path, reason: str, root: Path) -> StoreUnsafe:
    rel = path.relative_to(root) if path.is_relative_to(root) else path
    return StoreUnsafe(
        f"{rel} {reason}: warpline refuses to read or write its state through it (a "
        "committed link could redirect writes outside the repository). Remove it (`rm "
        f"{rel}`) and run the command again; warpline recreates its state.",
        field="repo", value=str(path), details={"path": str(path), "reason": reason})


def _check_dir(path: Path, root: Path, *, create: bool) -> bool:
    """True when ``path`` is a real directory (created if asked); refuses links/files."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        if not create:
            return False
        try:
            os.mkdir(path, 0o777)  # mkdir never follows a link at the final component
        except FileExistsError:
            pass
        info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        raise _unsafe(path, "is a symbolic link", root)
    if not stat.S_ISDIR(info.st_mode):
        raise _unsafe(path, "is not a directory", root)
    return True


def check_state(root: Path, *, create: bool) -> Path | None:
    """The state directory of ``root`` after checking it and its files for links.

    ``create``: make the directories (as real directories) when absent. Without it, an
    absent directory answers None. Raises ``StoreUnsafe`` for a link or a non-directory.
    """
    target = state_dir(root)
    if target == root / STATE_RELPATH:
        chain = [root / STATE_RELPATH.parts[0], root / STATE_RELPATH]
    else:  # <git dir>/warpline: only the last component is ours to create
        chain = [target]
    for directory in chain:
        if not _check_dir(directory, root, create=create):
            return None
    for name in STATE_FILES:
        try:
            info = os.lstat(target / name)
        except FileNotFoundError:
            continue
        if stat.S_ISLNK(info.st_mode):
            raise _unsafe(target / name, "is a symbolic link", root)
        if name != ".gitignore" and not stat.S_ISREG(info.st_mode):
            raise _unsafe(target / name, "is not a regular file", root)
    return target


def create_exclusive(path: Path, data: bytes, mode: int = 0o666) -> bool:
    """Write a new file (never through a link, never over an existing file); False when
    it exists already. The umask applies to ``mode``."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode)
    except FileExistsError:
        return False
    try:
        os.write(fd, data)
    finally:
        os.close(fd)
    return True


def open_nofollow(path: Path, flags: int, mode: int = 0o666) -> int:
    """``os.open`` that refuses a symbolic link at ``path`` (``ELOOP`` -> ``StoreUnsafe``)."""
    try:
        return os.open(path, flags | _NOFOLLOW, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _unsafe(path, "is a symbolic link", path.parent) from exc
        raise
