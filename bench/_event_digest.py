"""The event digest: one sha256 over everything a backfill stored about attribution.

Every stored change event, with its row ids replaced by what they stand for (the commit's
sha, the entity's locator, kind and path, the locator of the first entity of its lineage),
plus every commit row's attribution figures (parents, event count, unparsed files, limits
hit), each rendered as JSON and sorted. Two backfills that stored the same facts give the
same digest, whatever order or ids they wrote them in: a speed change must keep it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

_EVENTS = """
SELECT c.sha, e.locator, e.kind, e.path, root.locator, ev.change_kind, ev.path,
       ev.previous_locator, ev.previous_path, ev.changed_at, ev.also_modified
FROM change_events ev
JOIN commits c ON c.id = ev.commit_id
JOIN entities e ON e.id = ev.entity_id
LEFT JOIN entities root ON root.id = e.lineage
"""
_COMMITS = """
SELECT sha, author_name, author_email, authored_at, committed_at, parent_count,
       event_count, unparsed_files, limits_hit FROM commits
"""


def event_digest(db_path: Path) -> dict[str, object]:
    """``{"sha256": hex, "events": n, "commits": n}`` of the store at ``db_path``."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        lines = sorted("e" + json.dumps(row) for row in conn.execute(_EVENTS))
        events = len(lines)
        lines += sorted("c" + json.dumps(row) for row in conn.execute(_COMMITS))
    finally:
        conn.close()
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return {"sha256": digest.hexdigest(), "events": events, "commits": len(lines) - events}


if __name__ == "__main__":
    import sys

    print(json.dumps(event_digest(Path(sys.argv[1]))))
