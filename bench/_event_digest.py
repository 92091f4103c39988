"""The event digest: one sha256 over everything a backfill stored about attribution.

Every stored change event, with its row ids replaced by what they stand for (the commit's
sha, the entity's locator, kind and path, the locator of the first entity of its lineage),
plus every commit row's attribution figures (parents, event count, unparsed files, limits
hit), each rendered as JSON and sorted. Two backfills that stored the same facts give the
same digest, whatever order or ids they wrote them in: a speed change must keep it.
``lineage_sha256`` adds the histories: every event beside the first event of the lineage
it was stored under.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

# The last column, the lineage the event was stored under, feeds ``lineage_sha256`` only.
_EVENTS = """
SELECT c.sha, e.locator, e.kind, e.path, root.locator, ev.change_kind, ev.path,
       ev.previous_locator, ev.previous_path, ev.changed_at, ev.also_modified, ev.lineage
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
    """``{"sha256": hex, "events": n, "commits": n, "lineage_sha256": hex}`` of the store
    at ``db_path``."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = conn.execute(_EVENTS).fetchall()
        commits = sorted("c" + json.dumps(row) for row in conn.execute(_COMMITS))
    finally:
        conn.close()
    lines = sorted("e" + json.dumps(row[:-1]) for row in rows) + commits
    return {"sha256": _sha256(lines), "events": len(rows), "commits": len(commits),
            "lineage_sha256": _sha256(_lineage_lines(rows))}


def _lineage_lines(rows: list[tuple[Any, ...]]) -> list[str]:
    """Each event beside the earliest event of its lineage (by time, then sha, locator,
    kind), so the grouping of events into histories is compared without the ids the
    ``sha256`` above leaves out (its root term only joins an entity whose id equals the
    lineage id)."""
    # (lineage, (changed_at, sha, locator, change_kind)), by _EVENTS' columns
    events = [(int(row[11]), (int(row[9]), str(row[0]), str(row[1]), str(row[5])))
              for row in rows]
    first: dict[int, tuple[int, str, str, str]] = {}
    for lineage, event in events:
        if lineage not in first or event < first[lineage]:
            first[lineage] = event
    return sorted(json.dumps([*event[1:], *first[lineage]]) for lineage, event in events)


def _sha256(lines: list[str]) -> str:
    digest = hashlib.sha256()
    for line in lines:
        digest.update(line.encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


if __name__ == "__main__":
    import sys

    print(json.dumps(event_digest(Path(sys.argv[1]))))
