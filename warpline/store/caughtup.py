"""Is the store already caught up with HEAD? Decided from three meta rows, without the walker.

This is the one "is a catch-up a no-op?" check: ``readonly.pending`` answers the wider
question (how far behind, for a warning) and agrees with it exactly on "nothing to do"
(``pending(...).nothing`` holds only when HEAD is both ``reach_tip`` and the first
complete tip, and nothing is left to reopen), so a caller asks only this. It takes HEAD's
id and the shallow boundary as plain values: on the common repository layout both come
from git's own files (``git/gitfiles.py``) and libgit2 is never loaded.

``Ingestor.catch_up`` on a caught-up store does nothing, but importing it (attribution,
parsers, the worker pipeline) is most of a small tool call's start-up. A catch-up is a
no-op exactly when all of these hold, so the caller may skip it:

* HEAD is the newest ancestry-complete tip (``complete_tips[0]``): the walk for pending
  commits hides HEAD itself, so it finds nothing, and pushing the tip changes nothing;
* HEAD is the commit reachability was last computed for (``reach_tip``), under the
  same shallow boundary (``reach_edge``: a deepened clone has more history to flag), and
  HEAD's own row, when stored, is flagged reachable;
* no shallow placeholder has stopped being a boundary (nothing to reopen).

``ingested_among`` (which of these commits are stored) lives here for the same reason: a
tool asking about a range checks it without importing the walker.

A tip is only pushed after a complete run (no failures, nothing left behind), so a store
with failed or pending commits never passes.
"""

from __future__ import annotations

import json

from warpline.store.db import Store
from warpline.store.metakeys import (
    PLACEHOLDER_KEY,
    REACH_EDGE_KEY,
    REACH_TIP_KEY,
    TIPS_KEY,
    edge_mark,
)

__all__ = ["ingested_among", "is_caught_up", "meta_rows"]

_SHA_CHUNK = 500


def is_caught_up(store: Store, head_sha: str | None, boundary: frozenset[str]) -> bool:
    """True when ``catch_up`` to ``head_sha`` would ingest, flag and reopen nothing
    (``boundary``: the clone's shallow boundary commits, empty for a complete clone)."""
    if head_sha is None:
        return False
    meta = meta_rows(store, (REACH_TIP_KEY, TIPS_KEY, PLACEHOLDER_KEY, REACH_EDGE_KEY))
    if meta.get(REACH_TIP_KEY) != head_sha or meta.get(REACH_EDGE_KEY, "") != edge_mark(
            boundary):
        return False
    tips, held = _json_list(meta.get(TIPS_KEY)), _json_list(meta.get(PLACEHOLDER_KEY))
    if tips is None or tips[:1] != [head_sha] or held is None or set(held) - boundary:
        return False
    row = store.conn.execute("SELECT reachable FROM commits WHERE sha = ?",
                             (head_sha,)).fetchone()
    return row is None or bool(row[0])


def _json_list(raw: str | None) -> list[str] | None:
    """A JSON list of ids; None when the row is damaged (then nothing is assumed)."""
    try:
        value = json.loads(raw) if raw else []
    except ValueError:
        return None
    return [str(v) for v in value] if isinstance(value, list) else None


def meta_rows(store: Store, keys: tuple[str, ...]) -> dict[str, str]:
    """The ``store_meta`` values of ``keys`` that are set, in one query."""
    marks = ",".join("?" * len(keys))
    return {str(k): str(v) for k, v in store.conn.execute(
        f"SELECT key, value FROM store_meta WHERE key IN ({marks})", keys)}


def ingested_among(store: Store, shas: list[str]) -> set[str]:
    """The commits of ``shas`` the store holds (chunked: SQLite's variable limit)."""
    found: set[str] = set()
    for start in range(0, len(shas), _SHA_CHUNK):
        chunk = shas[start : start + _SHA_CHUNK]
        marks = ",".join("?" * len(chunk))
        found.update(row[0] for row in store.conn.execute(
            f"SELECT sha FROM commits WHERE sha IN ({marks})", chunk))
    return found
