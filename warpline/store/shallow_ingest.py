"""The store's side of shallow clones: boundary commits are placeholders, and a deepened
clone's older history is ingested on the next catch-up.

A boundary commit gets a ``commits`` row (so it is never walked again) with no change
events: libgit2 shows it without parents, and diffing it against nothing would claim every
entity was ``added`` there by its author. Its sha is listed under the ``shallow_placeholders``
meta key. When a catch-up finds a placeholder that is no longer a boundary (after ``git
fetch --unshallow`` or ``--deepen``), its row is deleted and the ancestry-complete tips are
forgotten, so the same catch-up walks the newly fetched commits and ingests the placeholder
commit for real, with its parent.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from warpline.store.db import Store
from warpline.store.metakeys import PLACEHOLDER_KEY, TIPS_KEY

if TYPE_CHECKING:
    from warpline.git.walks import Commit


def placeholders(store: Store) -> set[str]:
    raw = store.meta_get(PLACEHOLDER_KEY)
    try:
        found = json.loads(raw) if raw else []
    except ValueError:
        return set()
    return {str(sha) for sha in found} if isinstance(found, list) else set()


def reopen_deepened(store: Store, boundary: frozenset[str]) -> int:
    """Drop placeholders that are no longer boundaries; how many were reopened."""
    held = placeholders(store)
    gone = sorted(held - boundary)
    if not gone:
        return 0
    with store.transaction() as conn:
        for sha in gone:
            conn.execute("DELETE FROM change_events WHERE commit_id IN "
                         "(SELECT id FROM commits WHERE sha = ?)", (sha,))
            conn.execute("DELETE FROM commits WHERE sha = ?", (sha,))
        store.meta_set(conn, PLACEHOLDER_KEY, json.dumps(sorted(held & boundary)))
        store.meta_set(conn, TIPS_KEY, json.dumps([]))
    return len(gone)


def write_placeholder(store: Store, commit: Commit) -> bool:
    """Record a boundary commit with no events; False when it was already stored."""
    sha = str(commit.id)
    author = commit.author
    with store.transaction() as conn:
        cur = conn.execute(
            "INSERT OR IGNORE INTO commits (sha, author_name, author_email, authored_at,"
            " committed_at, parent_count, event_count, unparsed_files, ingested_at)"
            " VALUES (?, ?, ?, ?, ?, 0, 0, '[]', ?)",
            (sha, author.name, author.email, int(author.time), int(commit.commit_time),
             int(time.time())),
        )
        held = placeholders(store)
        if sha not in held:
            store.meta_set(conn, PLACEHOLDER_KEY, json.dumps(sorted(held | {sha})))
    return cur.rowcount == 1
