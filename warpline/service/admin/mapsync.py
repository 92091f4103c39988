"""Test maps travel with git: fetched into the store, pushed from it (``warpline sync``).

CI on the default branch records a whole-suite map (``pytest --warpline-record``) and
``warpline sync`` (or ``warpline ci --record``) pushes it under ``refs/warpline/testmaps``
with the repository's own remote; a pull-request job or a developer's clone fetches the
ref, imports the maps it does not have (of commits it has: a map of another history is
never kept, and imported maps never evict this clone's own), and the chooser
(``warpline.service.shared.choice``) then answers from the nearest mapped ancestor, stating
the map's commit and distance. Only clean maps of commits the remote already has are sent
(a map of a dirty work tree describes code no commit holds: it stays local); a partial run
travels with its reasons, which the chooser and the selection state. The ref keeps
``KEEP`` maps, whole-suite ones first, then the newest. Everything fetched is untrusted: a
map that fails ``warpline.testmap.wire.decode`` is skipped and named, never imported.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pygit2

from warpline.git import mapref
from warpline.git.lookups import commit_or_none, contains
from warpline.store.db import Store
from warpline.store.testmaps import MapRow, maps, read_map, write_map
from warpline.testmap import wire

KEEP = 4
MAX_READ = 16  # maps decoded per sync (the ref keeps KEEP; a remote may list more)
READ_BYTES = 64 * 1024 * 1024  # compressed bytes read per sync, one blob at a time
Git = Callable[..., subprocess.CompletedProcess[str]]


@dataclass(slots=True)
class MapSync:
    """What one exchange of test maps did."""

    remote_had_maps: bool = False
    fetched: int = 0
    imported: int = 0
    pushed: int = 0
    skipped: list[str] = field(default_factory=list)
    lease: str = ""  # the remote ref's value when fetched ("" when it had none)


def fetch(root: Path, repo: pygit2.Repository, remote: str, git: Git, report: MapSync) -> None:
    """Fetch the remote's maps and import those the store lacks."""
    listed = git("ls-remote", "--refs", "--", remote, mapref.MAP_REF)
    lines = [line.split() for line in listed.stdout.splitlines() if line.strip()]
    report.remote_had_maps = listed.returncode == 0 and any(
        len(parts) == 2 and parts[1] == mapref.MAP_REF for parts in lines)
    if not report.remote_had_maps:
        return
    done = git("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", remote,
               f"+{mapref.MAP_REF}:{mapref.INCOMING_REF}")
    if done.returncode != 0:
        report.skipped.append(f"fetching {mapref.MAP_REF} failed: {done.stderr.strip()[-200:]}")
        return
    try:
        report.lease = mapref.ref_target(repo, mapref.INCOMING_REF) or ""
        entries, skipped = mapref.listing(repo, mapref.INCOMING_REF)
        report.skipped += skipped
        report.fetched = len(entries)
        with Store.open(root) as store:
            _import(store, repo, entries, report)
    finally:
        git("update-ref", "-d", mapref.INCOMING_REF)


def _import(store: Store, repo: pygit2.Repository, entries: list[mapref.MapEntry],
            report: MapSync) -> None:
    """Decode and store the listed maps one blob at a time, within the budgets: a map of a
    commit this repository lacks is never read; a blob two entries share is read once;
    ``MAX_READ`` maps and ``READ_BYTES`` compressed bytes per sync."""
    known = {(row.commit_sha, row.recorded_at) for row in maps(store)}
    seen: set[str] = set()
    budget, reads = READ_BYTES, 0
    for entry in entries:
        name = entry.commit[:12]
        why = _unreadable(repo, entry, seen, budget, reads)
        if why is not None:
            report.skipped.append(f"map of {name} not read: {why}")
            continue
        seen.add(entry.blob)
        budget, reads = budget - entry.size, reads + 1
        data = mapref.blob_bytes(repo, entry)
        notes: list[str] = []
        commit = commit_or_none(repo, entry.commit)
        try:
            recorded, recorded_at = wire.decode(
                data or b"", entry.commit, notes=notes,
                future=None if commit is None else int(commit.commit_time))
        except wire.MapRejected as exc:
            report.skipped.append(f"map of {name} rejected: {exc}")
            continue
        finally:
            del data
        report.skipped += [f"map of {name}: {note}" for note in notes]
        if (recorded.commit_sha, recorded_at) in known:
            continue
        write_map(store, recorded, now=recorded_at, imported=True)
        known.add((recorded.commit_sha, recorded_at))
        report.imported += 1


def _unreadable(repo: pygit2.Repository, entry: mapref.MapEntry, seen: set[str],
                budget: int, reads: int) -> str | None:
    if entry.blob in seen:
        return "its blob is another entry's (read once)"
    if commit_or_none(repo, entry.commit) is None:
        return "this repository does not have that commit"
    if entry.size > wire.MAX_COMPRESSED:
        return f"{entry.size} bytes, over {wire.MAX_COMPRESSED}"
    if entry.size > budget or reads >= MAX_READ:
        return (f"over this sync's budget ({MAX_READ} maps, {READ_BYTES >> 20} MiB "
                "compressed)")
    return None


def publish(root: Path, repo: pygit2.Repository, remote: str, git: Git,
            report: MapSync) -> bool:
    """Push the newest whole-suite maps (the remote's and ours); False when the remote
    moved since the fetch (the caller fetches again)."""
    with Store.open(root) as store:
        rows = sorted((row for row in maps(store) if _sendable(repo, remote, row)),
                      key=lambda row: (bool(row.partial), -row.recorded_at))
        chosen: dict[str, bytes] = {}
        for row in rows:  # the best map of a commit wins; KEEP commits at most
            if row.commit_sha not in chosen and len(chosen) < KEEP:
                chosen[row.commit_sha] = wire.encode(read_map(store, row), row.recorded_at)
    blobs = [mapref.MapBlob(commit, data) for commit, data in chosen.items()
             if len(data) <= wire.MAX_COMPRESSED]
    if not blobs:
        return True
    # The commit is a function of the maps alone: equal to the remote's, nothing to send.
    if mapref.write(repo, mapref.MAP_REF, blobs) == report.lease:
        return True
    done = git("push", "--quiet", "--no-verify",
               f"--force-with-lease={mapref.MAP_REF}:{report.lease}", remote,
               f"+{mapref.MAP_REF}:{mapref.MAP_REF}")
    if done.returncode != 0:
        report.skipped.append(f"pushing {mapref.MAP_REF}: {done.stderr.strip()[-200:]}")
        return False
    report.pushed = len(blobs)
    return True


def _sendable(repo: pygit2.Repository, remote: str, row: MapRow) -> bool:
    """A clean map of a commit the remote has (a remote-tracking branch of it contains the
    commit; a remote given as a path or URL has none: HEAD's history)."""
    if row.dirty_paths:
        return False
    prefix = f"refs/remotes/{remote}/"
    tips = [ref for ref in repo.references if ref.startswith(prefix)
            and not ref.endswith("/HEAD")]
    return any(contains(repo, tip, row.commit_sha) for tip in tips or ["HEAD"])
