"""Which stored commits are history that exists: reachable from HEAD (DESIGN §3).

A commit rewritten away (``commit --amend``, ``rebase``, ``reset``) stays in the store with
``reachable = 0``; answers about history never count or name it. Deciding this is cheap:

* ``store_meta['reach_tip']`` is the HEAD the flags were last computed for. When HEAD is
  that commit, nothing is done (one meta read per call).
* When HEAD descends from it, only the commits between them are walked and flagged.
* Otherwise (HEAD moved back or sideways), or when the shallow boundary moved since
  (``git fetch --deepen``/``--unshallow``: same HEAD, more history), or HEAD's own row is
  stored unflagged, every stored flag is recomputed from one walk from HEAD.

``commits.topo`` is a topological position (parents before children), assigned in walk
order: the order of lineage and churn, never a timestamp (equal commit times are normal
after a rebase). Commits ingested but never reachable keep ``topo`` null.
"""

from __future__ import annotations

import sqlite3

from warpline.git import shallow
from warpline.git.walks import Commit, Repository, descends, topological_shas
from warpline.store.db import Store
from warpline.store.metakeys import REACH_EDGE_KEY, REACH_TIP_KEY, edge_mark

__all__ = ["REACH_TIP_KEY", "forget", "refresh_reachability", "unflagged", "walk_from"]

_CHUNK = 500


def refresh_reachability(store: Store, repo: Repository, head: Commit | None,
                         *, complete: bool = True, walked: list[str] | None = None) -> None:
    """Bring ``commits.reachable``/``topo`` up to date with ``head``. ``complete`` False
    (the ingest is still behind) flags what is stored without advancing the recorded tip,
    so commits ingested later are flagged by the next call. ``walked``: ``walk_from(repo,
    head)`` when the caller has it already (a recompute then walks nothing)."""
    tip = store.meta_get(REACH_TIP_KEY)
    head_sha = None if head is None else str(head.id)
    edge = edge_mark(shallow.boundary(repo)) if head is not None else ""
    same_edge = (store.meta_get(REACH_EDGE_KEY) or "") == edge
    if tip == head_sha and tip is not None and same_edge and not unflagged(store, tip):
        return
    with store.transaction() as conn:
        if head is None:
            conn.execute("UPDATE commits SET reachable = 0 WHERE reachable = 1")
        elif same_edge and tip is not None and tip != head_sha and descends(repo, head, tip):
            _mark(conn, repo, head, tip)
        else:
            _recompute(conn, walk_from(repo, head) if walked is None else walked)
        if complete and head_sha is not None:
            store.meta_set(conn, REACH_TIP_KEY, head_sha)
            store.meta_set(conn, REACH_EDGE_KEY, edge)


def unflagged(store: Store, sha: str) -> bool:
    """``sha`` is stored but not flagged reachable: flags computed for it cannot be right
    (a store a deepened clone left before ``REACH_EDGE_KEY`` existed)."""
    row = store.conn.execute("SELECT reachable FROM commits WHERE sha = ?", (sha,)).fetchone()
    return row is not None and not row[0]


def _mark(conn: sqlite3.Connection, repo: Repository, head: Commit,
          tip: str) -> None:
    """HEAD moved forward: flag the commits between the old tip and HEAD."""
    shas = topological_shas(repo, head, tip)
    start = int(conn.execute("SELECT coalesce(max(topo), 0) FROM commits").fetchone()[0])
    conn.executemany("UPDATE commits SET reachable = 1, topo = ? WHERE sha = ?",
                     ((start + 1 + i, sha) for i, sha in enumerate(shas)))


def forget(store: Store) -> None:
    """Have the next catch-up recompute every flag and settle lineages in history order
    (``doctor --fix`` on a store whose flags contradict the history)."""
    from warpline.store.relineage import UNORDERED_KEY

    with store.transaction() as conn:
        store.meta_set(conn, REACH_EDGE_KEY, "recompute")
        store.meta_set(conn, UNORDERED_KEY, "1")


def walk_from(repo: Repository, head: Commit) -> list[str]:
    """Every commit ``head`` reaches, parents before children."""
    return topological_shas(repo, head)


def _recompute(conn: sqlite3.Connection, shas: list[str]) -> None:
    """HEAD is not a descendant of the last tip: one walk (``shas``) decides every flag."""
    conn.execute("CREATE TEMP TABLE IF NOT EXISTS reach_walk "
                 "(sha TEXT PRIMARY KEY, topo INTEGER NOT NULL)")
    conn.execute("DELETE FROM reach_walk")
    conn.executemany("INSERT OR IGNORE INTO reach_walk (sha, topo) VALUES (?, ?)",
                     ((sha, i + 1) for i, sha in enumerate(shas)))
    conn.execute("UPDATE commits SET reachable = 0, topo = NULL")
    conn.execute("UPDATE commits SET reachable = 1, topo = (SELECT w.topo FROM reach_walk w "
                 "WHERE w.sha = commits.sha) WHERE sha IN (SELECT sha FROM reach_walk)")
    conn.execute("DELETE FROM reach_walk")
