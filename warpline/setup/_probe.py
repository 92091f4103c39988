"""The read-only store probe (``warpline.store.probe``) plus the snapshot a graph query
would use, chosen exactly as the query tools choose it (``service.shared.choice``).

The chooser's module pulls in the graph and model layers (several hundred milliseconds of
imports), so it is imported only when the store holds a snapshot to choose from:
``session-context`` stays quick in a repository without one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pygit2

from warpline.store.probe import StoreProbe, probe_store

if TYPE_CHECKING:
    from warpline.service.shared.choice import Choice
    from warpline.store.db import Store
    from warpline.store.snapshots import SnapshotRow


def probe(root: Path, repo: pygit2.Repository) -> tuple[StoreProbe, Choice[SnapshotRow] | None]:
    """Never raises for a broken store (the probe reports it)."""
    chosen: list[Choice[SnapshotRow]] = []

    def pick(store: Store, handle: pygit2.Repository) -> str | None:
        from warpline.store.snapshots import any_snapshot  # networkx: only when asked

        if not any_snapshot(store):
            return None
        from warpline.service.shared.choice import choose_snapshot

        choice = choose_snapshot(store, handle)
        if choice is None:
            return None
        chosen.append(choice)
        return choice.row.commit_sha

    found = probe_store(root, repo, pick)
    return found, (chosen[0] if chosen and found.status == "ok" else None)
