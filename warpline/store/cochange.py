"""Co-change reads: the transactions a set of lineages took part in, the recent window's
churn, and the lineages' latest state (``service/history/coupling.py`` composes them).

A *transaction* is one reachable non-merge commit's modified or moved functions and
classes, warpline's own ``.weft/`` files left out: the unit the co-change benchmark
(``bench/bench_coupling.py``) measured. Its size bound is applied by the caller, which sees
every item of each commit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from warpline.store.db import Store
from warpline.store.events import temp_keys

__all__ = ["Latest", "TxItem", "latest_of", "recent_lineage_commits", "transactions_of",
           "window_churn", "window_start"]

_ITEM = ("e.kind IN ('function', 'class') AND ce.change_kind IN ('modified', 'moved') "
         "AND ce.path NOT LIKE '.weft/%'")
_ITEMS = ("FROM change_events ce JOIN commits c ON c.id = ce.commit_id "
          "JOIN entities e ON e.id = ce.entity_id "
          f"WHERE c.reachable = 1 AND c.parent_count <= 1 AND {_ITEM}")


@dataclass(frozen=True, slots=True)
class TxItem:
    """One function or class of a transaction (a commit within the bound)."""
    commit_id: int
    sha: str
    topo: int
    committed_at: int
    lineage: int


@dataclass(frozen=True, slots=True)
class Latest:
    """A lineage's latest event: where it lives now, and whether it still exists."""
    lineage: int
    locator: str
    kind: str
    path: str
    removed: bool


def transactions_of(store: Store, lineages: Iterable[int], max_size: int,
                    leave_out: Iterable[str] = ()) -> list[TxItem]:
    """Every item of every transaction of at most ``max_size`` items in which one of
    ``lineages`` changed, apart from the commits ``leave_out`` (shas)."""
    conn = store.conn
    skipped = temp_keys(conn, "q_cochange_skip", leave_out)
    scope = temp_keys(conn, "q_cochange", lineages, "INTEGER")
    # The lineages' commits by the lineage index, their sizes by the commit index, then
    # the events of the commits within the bound only (pip's vendoring commits hold
    # thousands of events; one statement with a subquery scanned every reachable commit).
    commits = [int(r[0]) for r in conn.execute(
        f"SELECT DISTINCT commit_id FROM change_events WHERE lineage IN {scope} "
        f"AND commit_id NOT IN (SELECT id FROM commits WHERE sha IN {skipped})")]
    temp_keys(conn, "q_cochange_commits", commits, "INTEGER")  # one column: ``lineage``
    # A commit of at most ``max_size`` events is within the bound; a larger one is counted
    # up to one past the bound (a vendoring commit is not read whole).
    bounded = [int(r[0]) for r in conn.execute(
        "SELECT t.lineage FROM q_cochange_commits t CROSS JOIN commits c ON c.id = t.lineage "
        "WHERE c.event_count <= ?1 OR (SELECT count(*) FROM (SELECT 1 FROM change_events ce "
        f"JOIN entities e ON e.id = ce.entity_id WHERE ce.commit_id = t.lineage AND {_ITEM} "
        "LIMIT ?1 + 1)) <= ?1", (max_size,))]
    temp_keys(conn, "q_cochange_commits", bounded, "INTEGER")
    rows = conn.execute(
        "SELECT ce.commit_id, c.sha, coalesce(c.topo, 0), c.committed_at, ce.lineage "
        "FROM q_cochange_commits t CROSS JOIN commits c ON c.id = t.lineage "
        "CROSS JOIN change_events ce ON ce.commit_id = c.id "
        "JOIN entities e ON e.id = ce.entity_id "
        f"WHERE c.reachable = 1 AND c.parent_count <= 1 AND {_ITEM}").fetchall()
    return [TxItem(int(r[0]), str(r[1]), int(r[2]), int(r[3]), int(r[4])) for r in rows]


def window_start(store: Store, commits: int) -> tuple[int, int]:
    """The topological position where the last ``commits`` reachable non-merge commits
    begin, and how many commits the window holds (fewer in a young repository)."""
    conn = store.conn
    rows = conn.execute("SELECT coalesce(topo, 0) FROM commits WHERE reachable = 1 AND "
                        "parent_count <= 1 ORDER BY topo DESC LIMIT ?", (commits,)).fetchall()
    return (int(rows[-1][0]) if rows else 0), len(rows)


def window_churn(store: Store, since_topo: int) -> dict[int, int]:
    """Changes per lineage (functions and classes) in the commits from ``since_topo``."""
    conn = store.conn
    return {int(lineage): int(n) for lineage, n in conn.execute(
        f"SELECT ce.lineage, count(*) {_ITEMS} AND c.topo >= ? GROUP BY ce.lineage",
        (since_topo,))}


def recent_lineage_commits(store: Store, lineages: Iterable[int],
                           since_topo: int) -> list[tuple[int, str, int]]:
    """``(lineage, sha, topo)`` of each reachable commit from ``since_topo`` in which one of
    ``lineages`` changed in any way, newest first."""
    conn = store.conn
    scope = temp_keys(conn, "q_cochange", lineages, "INTEGER")
    return [(int(r[0]), str(r[1]), int(r[2])) for r in conn.execute(
        "SELECT DISTINCT ce.lineage, c.sha, coalesce(c.topo, 0) FROM change_events ce "
        "JOIN commits c ON c.id = ce.commit_id WHERE +c.reachable = 1 AND +c.topo >= ? "
        f"AND ce.lineage IN {scope} ORDER BY c.topo DESC", (since_topo,))]


def latest_of(store: Store, lineages: Iterable[int]) -> dict[int, Latest]:
    """Each lineage's topologically latest reachable event."""
    conn = store.conn
    scope = temp_keys(conn, "q_cochange", lineages, "INTEGER")
    # SQLite takes the bare columns from the row holding max(): the latest event.
    return {int(r[0]): Latest(int(r[0]), str(r[1]), str(r[2]), str(r[3]), r[4] == "removed")
            for r in conn.execute(
                "SELECT ce.lineage, e.locator, e.kind, ce.path, ce.change_kind, "
                "max(coalesce(c.topo, 0) * 4294967296 + ce.id) FROM change_events ce "
                "JOIN commits c ON c.id = ce.commit_id JOIN entities e ON e.id = ce.entity_id "
                # ``+``: by the lineage index, never a scan of every reachable commit
                f"WHERE +c.reachable = 1 AND ce.lineage IN {scope} GROUP BY ce.lineage")}
