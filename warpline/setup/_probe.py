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
    found, choice, _ = probe_with_gap(root, repo)
    return found, choice


def probe_with_gap(root: Path, repo: pygit2.Repository) -> tuple[
        StoreProbe, Choice[SnapshotRow] | None, dict[str, int]]:
    """``probe``, and the languages of the recorded code that the chosen snapshot holds no
    entity of (``service/shared/unseen.py``; prefix -> 1, by presence: two index probes
    per language, no count)."""
    chosen: list[Choice[SnapshotRow]] = []
    gap: dict[str, int] = {}

    def pick(store: Store, handle: pygit2.Repository) -> str | None:
        from warpline.store.snapshots import any_snapshot  # networkx: only when asked

        if not any_snapshot(store):
            return None
        from warpline.service.shared.choice import choose_snapshot

        choice = choose_snapshot(store, handle)
        if choice is None:
            return None
        chosen.append(choice)
        gap.update(_gap(store, choice.row.id))
        return choice.row.commit_sha

    found = probe_store(root, repo, pick)
    ok = found.status == "ok"
    return found, (chosen[0] if chosen and ok else None), (gap if ok else {})


def _gap(store: Store, snapshot_id: int) -> dict[str, int]:
    from warpline.lang import LANGUAGES
    from warpline.service.shared.unseen import unseen_languages
    from warpline.store.entities import has_locator_prefix
    from warpline.store.snapshots import holds_locator_prefix

    prefixes = sorted({lang.prefix for lang in LANGUAGES})
    code = [f"{p}:" for p in prefixes if has_locator_prefix(store, p)]
    held = [p for p in prefixes if holds_locator_prefix(store, snapshot_id, p)]
    return unseen_languages(held, code)
