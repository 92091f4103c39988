"""Choosing and running an edge source for one commit (configuration, never arguments).

* ``WARPLINE_LOOMWEAVE_COMMAND`` (default ``loomweave``): the loomweave executable.
* ``WARPLINE_EDGE_SOURCES`` (default ``loomweave,builtin``): the sources warpline may use,
  in preference order. ``loomweave`` alone means "loomweave's edges or none"; an empty
  value disables capture (every attempt is ``SKIPPED``).

loomweave answers when its index exists, the executable resolves, and the index was
analyzed at the commit being stamped (``runs.analyzed_at_commit``): its index describes
the tree it last analyzed, so stamping it on another commit would be a false claim.
Otherwise the built-in extractor reads the commit's own blobs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import pygit2

from warpline import settings
from warpline._version import __version__
from warpline.errors import PeerUnavailable
from warpline.git.lookups import source_bytes
from warpline.graph.builtin import reads, try_capture_builtin
from warpline.graph.loomweave_source import (
    capture_from_loomweave,
    index_analyzed_commit,
    index_path,
    loomweave_available,
)
from warpline.graph.merge import merge
from warpline.graph.model import EdgeCapture

SOURCES_ENV = settings.EDGE_SOURCES.name
KNOWN_SOURCES = settings.KNOWN_EDGE_SOURCES
# Built-in extraction speed, measured by bench/bench_graph.py (2,040 generated modules,
# 5.1 MB of Python in ~3.5 s on a loaded 2-core box); kept conservative.
BUILTIN_BYTES_PER_SECOND = 1_000_000

SourceName = Literal["loomweave", "builtin", "none"]


@dataclass(frozen=True, slots=True)
class SourcePlan:
    """Which edge source answers, with the notes on why."""
    source: SourceName
    notes: tuple[str, ...] = ()


def builtin_version() -> str:
    return f"builtin-{__version__}"


def index_mtime(root: Path) -> int:
    """When loomweave last wrote its index (seconds; 0 when there is none)."""
    newest = 0.0
    for suffix in ("", "-wal"):
        try:
            newest = max(newest, os.stat(f"{index_path(root)}{suffix}").st_mtime)
        except OSError:
            continue
    return int(newest)


def plan(root: Path, commit_sha: str, head_sha: str | None) -> SourcePlan:
    enabled = settings.edge_sources()
    notes: list[str] = []
    if "loomweave" in enabled and index_path(root).is_file():
        if not loomweave_available(root):
            notes.append("loomweave's index exists but its executable was not found "
                         "(set WARPLINE_LOOMWEAVE_COMMAND); loomweave edges were not used.")
        else:
            analyzed = index_analyzed_commit(root)
            if analyzed == commit_sha or (analyzed is None and commit_sha == head_sha):
                return SourcePlan("loomweave")
            notes.append(
                f"loomweave's index describes commit {(analyzed or 'unknown')[:12]}, not "
                f"{commit_sha[:12]}; its edges were not used. Run `loomweave analyze` at "
                "that commit, then capture again, for loomweave edges and SEIs.")
    if "builtin" in enabled:
        return SourcePlan("builtin", tuple(notes))
    notes.append("No enabled edge source can answer (WARPLINE_EDGE_SOURCES="
                 f"{settings.edge_sources_raw() or ''!r}).")
    return SourcePlan("none", tuple(notes))


def run(chosen: SourcePlan, root: Path, repo: pygit2.Repository,
        commit: pygit2.Commit, *, complete: bool = True) -> tuple[EdgeCapture | None, list[str]]:
    """The capture, or None (SKIPPED) when no source could answer; plus notes. A loomweave
    capture is completed by the built-in extractor (``merge``) when that source is enabled
    and ``complete`` allows the time it takes."""
    notes = list(chosen.notes)
    if chosen.source == "loomweave":
        try:
            primary = capture_from_loomweave(root)
        except PeerUnavailable as exc:
            notes.append(f"loomweave could not be read ({exc.hint}).")
            if "builtin" not in settings.edge_sources():
                return None, notes
            notes.append("The built-in source answered instead.")
        else:
            return _completed(primary, repo, commit, notes, complete), notes
    if chosen.source == "none":
        return None, notes
    capture, failure = try_capture_builtin(repo, commit)
    if capture is None:
        notes.append(f"The built-in source failed ({failure}).")
        return None, notes
    return _restamp(capture), notes


def _completed(primary: EdgeCapture, repo: pygit2.Repository, commit: pygit2.Commit,
               notes: list[str], complete: bool) -> EdgeCapture:
    """loomweave's capture plus the built-in edges it lacks (when the source is enabled)."""
    if "builtin" not in settings.edge_sources():
        return primary
    if not complete:
        notes.append("loomweave's edges were not completed by the built-in extractor (over "
                      "the time budget); capture explicitly for the merged graph.")
        return primary
    secondary, failure = try_capture_builtin(repo, commit)
    if secondary is None:
        notes.append(f"The built-in source failed ({failure}); the "
                     "snapshot has loomweave's edges alone.")
        return primary
    merged = merge(primary, _restamp(secondary))
    added = merged.origins.get("builtin", {}).get("edges", 0)
    notes.append(f"The built-in extractor added {added} edges loomweave lacks (fixtures, "
                 "callbacks, constructors; see edge_sources).")
    return merged


def _restamp(capture: EdgeCapture) -> EdgeCapture:
    return replace(capture, source_version=builtin_version())


def builtin_estimate_seconds(commit: pygit2.Commit) -> float:
    """A cheap upper-bound guess of the built-in capture time (bytes of Python)."""
    # Unknown (a missing object): no estimate; the capture itself says what it could read.
    return (source_bytes(commit, reads) or 0) / BUILTIN_BYTES_PER_SECOND
