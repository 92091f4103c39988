"""Transactions for the co-change benchmark, read from a store warpline built.

A transaction is one reachable non-merge commit's modified or moved functions and classes
(warpline's own ``.weft/`` files left out), kept when it holds 1 to ``max_size`` of them,
in topological order (parents first). Each item is named two ways in the same run: by its
lineage (renames and moves followed) and by its locator (the name at that commit).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_SIZE = 30


@dataclass(slots=True)
class Transaction:
    topo: int
    author: str
    # item key -> the file it was in at this commit, per identity
    lineages: dict[int, str] = field(default_factory=dict)
    locators: dict[str, str] = field(default_factory=dict)

    def items(self, identity: str) -> dict[Any, str]:
        return dict(self.lineages) if identity == "lineage" else dict(self.locators)


def transactions(store: Path, max_size: int = MAX_SIZE) -> list[Transaction]:
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT c.id, c.topo, c.author_email, ce.lineage, e.locator, ce.path "
            "FROM commits c JOIN change_events ce ON ce.commit_id = c.id "
            "JOIN entities e ON e.id = ce.entity_id "
            "WHERE c.reachable = 1 AND c.parent_count <= 1 "
            "AND e.kind IN ('function', 'class') AND ce.change_kind IN ('modified', 'moved') "
            "AND ce.path NOT LIKE '.weft/%' ORDER BY c.topo, c.id, ce.id").fetchall()
    finally:
        conn.close()
    by_commit: dict[int, Transaction] = {}
    for commit, topo, author, lineage, locator, path in rows:
        tx = by_commit.get(commit)
        if tx is None:
            tx = by_commit[commit] = Transaction(int(topo or 0), str(author))
        tx.lineages[int(lineage)] = str(path)
        tx.locators[str(locator)] = str(path)
    out = [t for t in by_commit.values() if len(t.lineages) <= max_size]
    out.sort(key=lambda t: t.topo)
    return out
