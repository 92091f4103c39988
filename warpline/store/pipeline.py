"""Computing commit changes in worker processes while the main process writes.

A backfill is two kinds of work: diffing and parsing (CPU in the walker) and writing
(SQLite, one transaction per commit). Workers take contiguous chunks of the history, so
each keeps most of its parse cache warm; ``imap`` hands results back in history order,
and the single writer stays the only process that touches the store.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import pygit2

from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.events import CommitChanges

# Below this many commits, starting workers costs more than it saves.
MIN_COMMITS = 300
CHUNK = 100

_repo: pygit2.Repository | None = None
_cache: DefinitionCache | None = None


def worker_count() -> int:
    """Workers to use; 0 means compute in-process. ``WARPLINE_INGEST_WORKERS`` overrides."""
    raw = os.environ.get("WARPLINE_INGEST_WORKERS", "")
    if raw.isdigit():
        return int(raw)
    if not sys.platform.startswith("linux"):
        return 0  # fork is the cheap start method; elsewhere stay in-process
    return min(os.cpu_count() or 1, 4) if (os.cpu_count() or 1) > 1 else 0


def _init(repo_path: str) -> None:
    global _repo, _cache
    _repo = pygit2.Repository(repo_path)
    _cache = DefinitionCache()


Outcome = tuple[str, CommitChanges | None, str | None]


def _work(shas: Sequence[str]) -> list[Outcome]:
    assert _repo is not None and _cache is not None
    out: list[Outcome] = []
    for sha in shas:
        try:
            commit = _repo.get(sha)
            if not isinstance(commit, pygit2.Commit):
                raise KeyError(f"commit {sha} not found")
            out.append((sha, commit_changes(_repo, commit, cache=_cache), None))
        except Exception as exc:  # reported per commit by the writer
            out.append((sha, None, f"{type(exc).__name__}: {exc}"))
    return out


def changes_in_workers(repo_path: str, shas: Sequence[str], workers: int) -> Iterator[Outcome]:
    """``(sha, changes, error)`` for each sha, in the given order."""
    chunks = [list(shas[i : i + CHUNK]) for i in range(0, len(shas), CHUNK)]
    context: Any = multiprocessing.get_context("fork")
    with context.Pool(workers, initializer=_init, initargs=(repo_path,)) as pool:
        for batch in pool.imap(_work, chunks):
            yield from batch
