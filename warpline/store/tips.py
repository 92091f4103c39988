"""The ancestry-complete tips (``store_meta``): commits every ancestor of which is
ingested, so a walk for pending work may hide them.

Kept short (``MAX_TIPS``); an entry rewritten away only costs walk time. The list is read
once per run and kept in memory until something may have changed it behind this process's
back (a failure recorded, failed commits reopened, a deepened clone): ``forget``.
"""

from __future__ import annotations

import json
import sqlite3

from warpline.store.db import Store
from warpline.store.metakeys import TIPS_KEY

__all__ = ["MAX_TIPS", "AncestryTips"]

MAX_TIPS = 16


class AncestryTips:
    __slots__ = ("_cache", "store")

    def __init__(self, store: Store) -> None:
        self.store = store
        self._cache: list[str] | None = None

    def get(self) -> list[str]:
        """The tips, newest first."""
        if self._cache is None:
            raw = self.store.meta_get(TIPS_KEY)
            self._cache = list(json.loads(raw)) if raw else []
        return self._cache

    def forget(self) -> None:
        """Read the stored list again next time."""
        self._cache = None

    def push(self, sha: str, *, conn: sqlite3.Connection | None = None,
             replacing: str | None = None) -> None:
        """``sha`` becomes the newest tip (in place of its parent ``replacing``), written
        inside ``conn``'s open transaction, or in a transaction of its own."""
        current = self.get()
        if conn is None and replacing is None and current[:1] == [sha]:
            return  # already the newest tip: a caught-up read takes no write lock
        tips = [t for t in current if t not in (sha, replacing)]
        tips = [sha, *tips][:MAX_TIPS]
        self._cache = tips
        if conn is not None:
            self.store.meta_set(conn, TIPS_KEY, json.dumps(tips))
            return
        with self.store.transaction() as own:
            self.store.meta_set(own, TIPS_KEY, json.dumps(tips))
