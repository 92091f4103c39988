"""Opening the store without write access, for read tools on a caught-up store.

SQLite's ``mode=ro`` URI opens the database file read-only. In WAL mode a reader also needs
the ``-shm`` index (and reads the ``-wal`` log): when both exist, or the directory lets
SQLite create them, ``mode=ro`` sees every committed transaction. On a read-only filesystem
or a read-only directory after a clean close (the last writer deleted both sidecars),
``mode=ro`` fails with ``SQLITE_CANTOPEN`` (on a full disk: ``SQLITE_IOERR_SHMSIZE``); the
database file then holds every committed page, and ``immutable=1`` reads it without any
sidecar. (A writer that could start meanwhile would need those same sidecars, which the
filesystem refuses: on a read-only mount none can.) ``immutable=1`` with a ``-wal`` that
still holds frames would silently miss them, so it is used only when there is no such log
(tests/test_store_readonly.py measures all three cases on a real read-only mount).

``PRAGMA query_only`` is not set: it also refuses the TEMP tables queries stage their
parameters in, and ``mode=ro`` already refuses every write to the store file.
"""

from __future__ import annotations

import errno
import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from warpline.errors import StoreUnwritable

if TYPE_CHECKING:  # only ``pending`` walks git; opening the store read-only does not
    from warpline.git.walks import Commit, Repository
    from warpline.store.db import Store

# SQLite could not create the -shm/-wal a WAL reader needs: SQLITE_CANTOPEN (a read-only
# mount or directory), SQLITE_IOERR (``IOERR_SHMSIZE`` on a full disk), SQLITE_READONLY.
_NO_SIDECARS = frozenset({14, 10, 8})
# errno values that mean "the environment refuses the write" (store_unwritable).
ENVIRONMENT_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC,
                                errno.EDQUOT, errno.EIO})


def connect(path: Path, timeout_s: float) -> sqlite3.Connection:
    """A connection that cannot write ``path`` (see the module note). Raises
    ``sqlite3.Error`` when the store cannot be read this way at all."""
    base = f"file:{quote(str(path))}?mode=ro"
    try:
        return _checked(sqlite3.connect(base, uri=True, timeout=timeout_s,
                                        isolation_level=None))
    except sqlite3.Error as exc:
        code = getattr(exc, "sqlite_errorcode", None)
        if not isinstance(code, int) or code & 0xFF not in _NO_SIDECARS \
                or _wal_holds_frames(path):
            raise
    return _checked(sqlite3.connect(base + "&immutable=1", uri=True, timeout=timeout_s,
                                    isolation_level=None))


def _checked(conn: sqlite3.Connection) -> sqlite3.Connection:
    """``connect`` is lazy: read the schema once so a refusal surfaces here."""
    try:
        conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except BaseException:
        conn.close()
        raise
    return conn


def _wal_holds_frames(path: Path) -> bool:
    """A ``-wal`` past its 32-byte header may hold committed frames."""
    try:
        return (path.parent / (path.name + "-wal")).stat().st_size > 32
    except FileNotFoundError:
        return False
    except OSError:
        return True  # cannot tell: do not guess that the log is empty


def os_refusal(exc: OSError, action: str) -> StoreUnwritable | None:
    """An ``OSError`` the environment caused (read-only filesystem, permissions, disk
    full), as ``store_unwritable``; None for anything else."""
    if exc.errno not in ENVIRONMENT_ERRNOS:
        return None
    name = errno.errorcode.get(exc.errno or 0, str(exc.errno))
    return StoreUnwritable(
        f"The environment refused the warpline store while {action} ({exc.strerror}: "
        f"{exc.filename}). Nothing was lost. Free disk space or make .weft/warpline/ "
        "writable, then retry; do not delete the store (its verification records cannot "
        "be rebuilt from git).", field="repo", details={"os_error": name})


@dataclass(frozen=True, slots=True)
class Pending:
    """What a catch-up to HEAD would write, found by reading only."""

    behind: int  # commits HEAD reaches that are not stored (a lower bound when at_least)
    at_least: bool
    reach_stale: bool  # the reachability flags were computed for another HEAD
    reopen: int  # shallow placeholders a deepened clone would re-ingest
    tip_stale: bool  # only the walk's shortcut is behind: answers are complete without it

    @property
    def nothing(self) -> bool:
        return self.answers_complete and not self.tip_stale

    @property
    def answers_complete(self) -> bool:
        """What is stored answers for HEAD exactly (no commit, flag or placeholder missing)."""
        return not self.behind and not self.reach_stale and not self.reopen


def pending(store: Store, repo: Repository,
            head: Commit | None) -> Pending:
    """What a catch-up to ``head`` would write (``Ingestor.catch_up``: reopen deepened
    placeholders, ingest, push the ancestry tip, refresh reachability). Reads only."""
    conn = store.conn
    from warpline.git import shallow
    from warpline.store.metakeys import (
        PLACEHOLDER_KEY,
        REACH_EDGE_KEY,
        REACH_TIP_KEY,
        TIPS_KEY,
        edge_mark,
    )
    from warpline.store.probe import commits_behind_head

    meta = {str(k): str(v) for k, v in conn.execute(
        "SELECT key, value FROM store_meta WHERE key IN (?, ?, ?, ?)",
        (REACH_TIP_KEY, PLACEHOLDER_KEY, TIPS_KEY, REACH_EDGE_KEY)).fetchall()}
    if head is None:  # an unborn HEAD reaches nothing; every flag must be 0
        stale = conn.execute("SELECT 1 FROM commits WHERE reachable = 1 LIMIT 1").fetchone()
        return Pending(0, False, stale is not None, 0, False)
    head_sha = str(head.id)
    tips, held = _json_list(meta.get(TIPS_KEY)), _json_list(meta.get(PLACEHOLDER_KEY))
    edge = shallow.boundary(repo)
    reopen = len(set(held) - edge)
    behind, at_least = commits_behind_head(conn, repo)
    behind = behind or 0
    reach_tip = meta.get(REACH_TIP_KEY)
    # The boundary moved (a deepened clone) or HEAD is stored unflagged: flags are wrong.
    moved = meta.get(REACH_EDGE_KEY, "") != edge_mark(edge) or conn.execute(
        "SELECT 1 FROM commits WHERE sha = ? AND reachable = 0", (head_sha,)).fetchone()
    stale = bool(moved) or _reach_stale(repo, head, reach_tip, behind, at_least)
    return Pending(behind, at_least, stale, reopen, tips[:1] != [head_sha])


def _reach_stale(repo: Repository, head: Commit, tip: str | None,
                 behind: int, at_least: bool) -> bool:
    """Whether a stored commit's ``reachable`` flag is wrong for ``head``. HEAD moved
    forward from the flagged tip and every commit in between is un-ingested: the stored
    flags are right (the missing commits are ``behind``). Otherwise (a reset, a rebase,
    commits stored but not yet flagged) they may not be."""
    if tip == str(head.id):
        return False
    if tip is None or at_least:
        return True
    from warpline.git.walks import commits_between

    # Not a descendant, or git cannot tell: stale.
    between = commits_between(repo, head, tip, behind)
    return between is None or between != behind


def _json_list(raw: str | None) -> list[str]:
    try:
        value = json.loads(raw) if raw else []
    except ValueError:
        return []
    return [str(v) for v in value] if isinstance(value, list) else []
