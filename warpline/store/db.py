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

from warpline.errors import InternalError, StoreIncompatible
from warpline.store import guard
from warpline.store.migrations import MIGRATIONS, SCHEMA_VERSION

STORE_DIR = guard.STATE_RELPATH
STORE_FILE = "warpline.db"
BUSY_TIMEOUT_MS = 30_000
# Ignore everything in the store directory, including this file, so a store never makes
# the user's working tree look dirty.
_GITIGNORE = "# warpline runtime state: never committed\n*\n"


def store_path(repo_root: Path) -> Path:
    """``.weft/warpline/warpline.db`` (elsewhere when git tracks it: ``guard.state_dir``)."""
    return guard.state_dir(repo_root) / STORE_FILE


@contextmanager
def sqlite_errors(action: str) -> Iterator[None]:
    """Translate ``sqlite3.Error`` into the closed vocabulary."""
    try:
        yield
    except sqlite3.Error as exc:
        raise InternalError(
            f"The warpline store failed while {action}: {exc}. If the file is corrupt, "
            "move .weft/warpline/warpline.db aside and run `warpline backfill`.",
            details={"sqlite_error": type(exc).__name__},
        ) from exc


class Store:
    """A writable store, created and migrated on open."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    @classmethod
    def open(cls, repo_root: Path) -> Store:
        directory = guard.check_state(repo_root, create=True)
        assert directory is not None  # create=True makes it or raises
        path = directory / STORE_FILE
        with sqlite_errors("opening the store"):
            guard.create_exclusive(directory / ".gitignore", _GITIGNORE.encode())
            # isolation_level=None: transactions are explicit (BEGIN IMMEDIATE).
            conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            store = cls(conn, path)
            store._migrate()
        return store

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One unit of work: committed whole or not at all."""
        with sqlite_errors("writing"):
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self.conn
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

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
