"""The one object that owns ``<repo>/.weft/warpline/warpline.db``.

WAL mode (readers never see half a commit), a busy timeout (several writers queue
instead of failing), parameterised SQL only, one ``BEGIN IMMEDIATE`` transaction per
unit of work. ``sqlite3.Error`` is translated here, at this one seam.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from warpline.errors import (
    InternalError,
    StoreCorrupt,
    StoreIncompatible,
    StoreUnreadable,
    StoreUnwritable,
    WarplineError,
)
from warpline.store import guard, integrity, readonly
from warpline.store.migrations import MIGRATIONS, SCHEMA_VERSION

STORE_DIR = guard.STATE_RELPATH
STORE_FILE = "warpline.db"
BUSY_TIMEOUT_MS = 30_000
_FRESH_S = 10.0  # an empty store file younger than this may be a concurrent opener's
# Ignore everything in the store directory, including this file, so a store never makes
# the user's working tree look dirty.
_GITIGNORE = "# warpline runtime state: never committed\n*\n"


def store_path(repo_root: Path) -> Path:
    """``.weft/warpline/warpline.db`` (elsewhere when git tracks it: ``guard.state_dir``)."""
    return guard.state_dir(repo_root) / STORE_FILE


# SQLite primary result codes (the low byte of an extended code).
_ENVIRONMENT = {3: "SQLITE_PERM", 5: "SQLITE_BUSY", 6: "SQLITE_LOCKED", 8: "SQLITE_READONLY",
                10: "SQLITE_IOERR", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN"}
_BUSY = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_DAMAGE = {11: "SQLITE_CORRUPT", 26: "SQLITE_NOTADB"}
_DAMAGE_WORDS = ("no such table", "no such column", "malformed")


def translate(exc: sqlite3.Error, action: str) -> WarplineError:
    """``sqlite3.Error`` in the closed vocabulary, by SQLite's result code, not its text:

    * the environment refused (disk full, read-only filesystem, permissions, a held lock,
      I/O errors, a vanished file) -> ``store_unwritable``, retry-safe: nothing was lost and
      the store must NOT be moved aside (it holds verification records git cannot rebuild);
    * the file is damaged or not a warpline store -> ``store_unreadable`` with the repair;
    * anything else is ours -> ``internal_error``."""
    raw = getattr(exc, "sqlite_errorcode", None)
    primary = raw & 0xFF if isinstance(raw, int) else None
    details = {"sqlite_error": getattr(exc, "sqlite_errorname", None) or type(exc).__name__}
    if primary in _ENVIRONMENT:
        return StoreUnwritable(
            f"The environment refused the warpline store while {action} ({exc}). Nothing "
            "was lost. Free disk space or make .weft/warpline/ writable, then retry; do not "
            "delete the store (its verification records cannot be rebuilt from git).",
            field="repo", details=details)
    if primary in _DAMAGE or (primary == 1 and any(w in str(exc) for w in _DAMAGE_WORDS)):
        return StoreUnreadable(
            f"The warpline store cannot be read while {action} ({exc}): it is damaged or "
            "not a warpline store. `warpline doctor --fix` moves it aside (kept for a "
            "post-mortem) and rebuilds the history from git.", field="repo", details=details)
    return InternalError(
        f"The warpline store failed while {action}: {exc}. This is a warpline defect.",
        details=details)


@contextmanager
def sqlite_errors(action: str) -> Iterator[None]:
    """Translate ``sqlite3.Error`` into the closed vocabulary (``translate``)."""
    try:
        yield
    except sqlite3.Error as exc:
        raise translate(exc, action) from exc


class Store:
    """The store: ``open`` creates and migrates it, or (``prefer_read_only``) opens an
    existing one without write access, made writable in place by its first
    ``transaction``."""

    def __init__(self, conn: sqlite3.Connection, path: Path, *, read_only: bool = False,
                 root: Path | None = None) -> None:
        self.conn = conn
        self.path = path
        # A read-only store (``open(prefer_read_only=True)``) becomes writable on its
        # first write.
        self.read_only = read_only
        self.root = root
        self._retired: list[sqlite3.Connection] = []
        # SQLite's quick_check of the file (``store.integrity``), taken when opened.
        self.integrity = integrity.Verdict("unchecked")
        self._wrote = False

    def check_integrity(self) -> None:
        """Take (or recall) the file's verdict; every answer about this repository then
        says when it is damaged."""
        self.integrity = integrity.verdict(self.path, self.conn)
        if self.root is not None:
            integrity.note(self.root, self.integrity)

    @classmethod
    def open(cls, repo_root: Path, *, prefer_read_only: bool = False) -> Store:
        """The store of ``repo_root``, the one way to open it: the state directory is
        checked once (``guard.check_state``). ``prefer_read_only``: a store that exists at
        the served schema opens without write access (its first ``transaction`` makes it
        writable in place: ``upgrade``), so a read on a caught-up store needs none;
        otherwise (absent, not yet migrated, newer, foreign, unsafe) it is created,
        migrated or refused with the right error."""
        try:
            directory = guard.check_state(repo_root, create=True)
            assert directory is not None  # create=True makes it or raises
            if prefer_read_only:
                store = cls._read_only_at(repo_root, directory)
                if store is not None:
                    return store
            return cls._open(repo_root, directory)
        except OSError as exc:  # creating the directory or .gitignore: EROFS, ENOSPC...
            refusal = readonly.os_refusal(exc, "opening the store")
            if refusal is None:
                raise
            raise refusal from exc

    @classmethod
    def _read_only_at(cls, repo_root: Path, directory: Path) -> Store | None:
        """The store in ``directory`` (already checked) without write access, or None
        when only a writable open can serve it (absent, not yet migrated, newer, foreign:
        ``_open`` then creates, migrates or refuses it with the right error)."""
        path = directory / STORE_FILE
        if not path.is_file() or _stale_empty(path):
            return None
        try:
            conn = readonly.connect(path, BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error:
            return None
        store = cls(conn, path, read_only=True, root=repo_root)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            if store.schema_version() == SCHEMA_VERSION:
                store.check_integrity()
                return store
        except sqlite3.Error:
            pass
        conn.close()
        return None

    def upgrade(self) -> None:
        """Make a read-only store writable in place (same object). Raises
        ``store_unwritable`` (the read-only connection stays open) when refused."""
        if not self.read_only:
            return
        assert self.root is not None
        writable = Store.open(self.root)
        # Kept open until close(): a caller may still hold the read-only connection.
        self._retired.append(self.conn)
        self.conn, self.path, self.read_only = writable.conn, writable.path, False
        self.integrity = writable.integrity

    @classmethod
    def _open(cls, repo_root: Path, directory: Path) -> Store:
        path = directory / STORE_FILE
        if _stale_empty(path):
            raise _not_a_store(path, set())
        with sqlite_errors("opening the store"):
            guard.create_exclusive(directory / ".gitignore", _GITIGNORE.encode())
            # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE).
            conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            store = cls(conn, path, root=repo_root)
            try:
                conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
                if store.schema_version() == 0:
                    store._refuse_foreign()  # before WAL mode rewrites the header
                _enter_wal(conn)
                conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute("PRAGMA foreign_keys = ON")
                store.check_integrity()  # before a migration writes into it
                store._migrate()
            except BaseException:
                conn.close()
                raise
        return store

    def _refuse_foreign(self, *, in_transaction: bool = False) -> None:
        """A file that holds no warpline schema (a foreign database; an empty file that is
        not a concurrent opener's brand-new one) is refused like a damaged store, never
        migrated in place. Runs again inside the migration's write lock.

        The schema version and the tables are read in one snapshot: a concurrent opener
        may migrate the file between two separate reads, and its fresh tables must not look
        like a foreign database that still says version 0."""
        if not in_transaction:
            self.conn.execute("BEGIN")
        try:
            version = self.schema_version()
            tables = {str(r[0]) for r in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            if not in_transaction:
                self.conn.execute("COMMIT")
        if version > 0 or not tables:
            return
        raise _not_a_store(self.path, tables)

    def close(self) -> None:
        for conn in (*self._retired, self.conn):
            conn.close()
        if self._wrote and self.integrity.state == "ok":
            # What SQLite itself wrote into a sound file is sound: the next open need not
            # check again (a change by anything else still moves the file's identity).
            integrity.carry(self.path, self.integrity)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One unit of work: committed whole or not at all. A damaged store refuses
        (``store_corrupt``), also when the write itself meets a damaged page."""
        self.upgrade()
        if self.integrity.state == "damaged":
            raise self._corrupt(self.integrity.finding or "damaged")
        try:
            with sqlite_errors("writing"):
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    yield self.conn
                except BaseException:
                    _rollback(self.conn)
                    raise
                try:
                    self.conn.execute("COMMIT")
                except BaseException:
                    _rollback(self.conn)
                    raise
                self._wrote = True
        except StoreUnreadable as exc:
            if not isinstance(exc.__cause__, sqlite3.Error):
                raise
            self.integrity = integrity.Verdict("damaged", str(exc.__cause__))
            if self.root is not None:
                integrity.note(self.root, self.integrity)
            raise self._corrupt(str(exc.__cause__)) from exc

    def _corrupt(self, finding: str) -> StoreCorrupt:
        root = self.root if self.root is not None else self.path.parent
        return StoreCorrupt(integrity.damage_words(root, finding), field="repo",
                            details={"path": str(self.path), "finding": finding,
                                     "repair": integrity.repair_command(root)})

    def schema_version(self) -> int:
        row = self.conn.execute("PRAGMA user_version").fetchone()
        return int(row[0])

    def _migrate(self) -> None:
        if self.schema_version() > SCHEMA_VERSION:
            raise _schema_ahead(self.schema_version())
        if self.schema_version() == SCHEMA_VERSION:
            return
        with self.transaction() as conn:
            # Re-read inside the write lock: another process may have migrated meanwhile.
            current = self.schema_version()
            if current > SCHEMA_VERSION:
                raise _schema_ahead(current)
            if current == 0:
                self._refuse_foreign(in_transaction=True)
            for migration in MIGRATIONS:
                if migration.version <= current:
                    continue
                for statement in _statements(migration.sql):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, int(time.time())),
                )
                conn.execute(f"PRAGMA user_version = {migration.version:d}")

    # -- small shared helpers -------------------------------------------------------
    def meta_get(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM store_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def meta_set(self, conn: sqlite3.Connection, key: str, value: str) -> None:
        conn.execute(
            "INSERT INTO store_meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )


def _enter_wal(conn: sqlite3.Connection) -> None:
    """WAL mode, waiting for concurrent openers. Changing the journal mode takes an
    exclusive lock that SQLite's busy timeout does not always wait for: with several
    processes opening a new store at once, one of them got ``SQLITE_BUSY`` at once (8-17
    in 1,200 openers, six at a time). Retried here within the same busy timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    pause = 0.002
    while True:
        try:
            if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as exc:
            code = getattr(exc, "sqlite_errorcode", None)
            if not isinstance(code, int) or code & 0xFF not in _BUSY \
                    or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.1)


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back what is open. SQLite may have rolled back already (a full disk, an I/O
    error): the original error is the one to report, not "no transaction is active"."""
    if not conn.in_transaction:
        return
    try:
        conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


def environmental(exc: BaseException) -> bool:
    """The environment refused a write (``store_unwritable``): a run must stop and say
    so, not record the commit at hand as failed."""
    if isinstance(exc, StoreUnwritable):
        return True
    if isinstance(exc, sqlite3.Error):
        return isinstance(translate(exc, "writing"), StoreUnwritable)
    return isinstance(exc, OSError) and exc.errno in readonly.ENVIRONMENT_ERRNOS


def _not_a_store(path: Path, tables: set[str]) -> StoreUnreadable:
    return StoreUnreadable(
        f"{path} is not a warpline store (no warpline schema; tables: "
        f"{', '.join(sorted(tables)) or 'none'}). warpline does not write into a file it "
        "did not create: move it away, or run `warpline doctor --fix` (moves it aside "
        "and rebuilds the history from git).", field="repo",
        details={"path": str(path), "tables": sorted(tables)[:20]})


def _stale_empty(path: Path) -> bool:
    """An empty file that has sat at the store path for a while: not a store of ours (SQLite
    writes page one as soon as we open; a concurrent opener's new file is empty only for a
    moment)."""
    try:
        info = path.stat()
    except OSError:
        return False
    return info.st_size == 0 and time.time() - info.st_mtime >= _FRESH_S


def _schema_ahead(found: int) -> StoreIncompatible:
    return StoreIncompatible(
        f"The store was written by a newer warpline (schema {found}); this build serves "
        f"up to schema {SCHEMA_VERSION}. Upgrade warpline (pip install -U warpline).",
        field="repo",
        details={"schema_version": found, "served_schema_version": SCHEMA_VERSION},
    )


def _statements(sql: str) -> list[str]:
    # executescript() would COMMIT our transaction; split on ';' instead (our DDL has
    # no ';' inside literals).
    return [s.strip() for s in sql.split(";") if s.strip()]
