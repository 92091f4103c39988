"""Test maps travel with git: fetched into the store, pushed from it (``warpline sync``).

CI on the default branch records a whole-suite map (``pytest --warpline-record``) and
``warpline sync`` (or ``warpline ci --record``) pushes it under ``refs/warpline/testmaps``
with the repository's own remote; a pull-request job or a developer's clone fetches the
ref, imports the maps it does not have, and the chooser
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
from warpline.git.lookups import contains
from warpline.store.db import Store
from warpline.store.testmaps import MapRow, maps, read_map, write_map
from warpline.testmap import wire

KEEP = 4
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
        blobs, skipped = mapref.read(repo, mapref.INCOMING_REF, wire.MAX_COMPRESSED)
        report.skipped += skipped
        report.fetched = len(blobs)
        with Store.open(root) as store:
            known = {(row.commit_sha, row.recorded_at) for row in maps(store)}
            for blob in blobs:
                try:
                    recorded, recorded_at = wire.decode(blob.data, blob.commit)
                except wire.MapRejected as exc:
                    report.skipped.append(f"map of {blob.commit[:12]} rejected: {exc}")
                    continue
                if (recorded.commit_sha, recorded_at) in known:
                    continue
                write_map(store, recorded, now=recorded_at)
                known.add((recorded.commit_sha, recorded_at))
                report.imported += 1
    finally:
        git("update-ref", "-d", mapref.INCOMING_REF)


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
