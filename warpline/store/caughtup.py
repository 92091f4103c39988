"""Is the store already caught up with HEAD? Decided from three meta rows, without the walker.

``Ingestor.catch_up`` on a caught-up store does nothing, but importing it (attribution,
parsers, the worker pipeline) is most of a small tool call's start-up. A catch-up is a
no-op exactly when all of these hold, so the caller may skip it:

* HEAD is the newest ancestry-complete tip (``complete_tips[0]``): the walk for pending
  commits hides HEAD itself, so it finds nothing, and pushing the tip changes nothing;
* HEAD is the commit reachability was last computed for (``reach_tip``);
* no shallow placeholder has stopped being a boundary (nothing to reopen).

``ingested_among`` (which of these commits are stored) lives here for the same reason: a
tool asking about a range checks it without importing the walker.

A tip is only pushed after a complete run (no failures, nothing left behind), so a store
with failed or pending commits never passes.
"""

from __future__ import annotations

import json

import pygit2

from warpline.git import shallow
from warpline.store.db import Store
from warpline.store.reach import REACH_TIP_KEY
from warpline.store.shallow_ingest import TIPS_KEY, placeholders

__all__ = ["ingested_among", "is_caught_up"]

_SHA_CHUNK = 500


def is_caught_up(store: Store, repo: pygit2.Repository, head: pygit2.Commit | None) -> bool:
    """True when ``catch_up(head)`` would ingest, flag and reopen nothing."""
    if head is None:
        return False
    sha = str(head.id)
    if store.meta_get(REACH_TIP_KEY) != sha:
        return False
    try:
        tips = json.loads(store.meta_get(TIPS_KEY) or "[]")
    except ValueError:
        return False
    if not isinstance(tips, list) or tips[:1] != [sha]:
        return False
    return not placeholders(store) - shallow.boundary(repo)


def ingested_among(store: Store, shas: list[str]) -> set[str]:
    """The commits of ``shas`` the store holds (chunked: SQLite's variable limit)."""
    found: set[str] = set()
    for start in range(0, len(shas), _SHA_CHUNK):
        chunk = shas[start : start + _SHA_CHUNK]
        marks = ",".join("?" * len(chunk))
        found.update(row[0] for row in store.conn.execute(
            f"SELECT sha FROM commits WHERE sha IN ({marks})", chunk))
    return found
