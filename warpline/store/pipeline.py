"""Computing commit changes in worker processes while the main process writes.

A backfill is two kinds of work: diffing and parsing (CPU in the walker) and writing
(SQLite, one transaction per commit). Each worker walks ONE contiguous slice of the
history, because the walker re-parses an edited file incrementally from the parse of its
previous version: a worker that jumped between distant chunks would parse long modules
from scratch at every jump (measured: twice the CPU). Workers stream small batches back;
the writer reads slice after slice, in history order, and stays the only process that
touches the store.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Generator, Iterator, Sequence
from queue import Empty
from typing import Any

import pygit2

from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.events import CommitChanges
from warpline.store.stopping import reset_in_child

# Below this many commits, starting workers costs more than it saves.
MIN_COMMITS = 300
BATCH = 50
SLICES_PER_WORKER = 2
GC_THRESHOLD = (50_000, 20, 100)

_repo: pygit2.Repository | None = None
_cache: DefinitionCache | None = None


def _init(repo_path: str) -> None:
    global _repo, _cache
    # A worker allocates many long-lived objects (the definitions cache) and creates
    # little cyclic garbage: rarer collections save ~5% CPU; memory stays bounded.
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
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


def _slice_worker(repo_path: str, parts: Sequence[Sequence[str]], out: Any,
                  parent: int) -> None:
    die_with_parent(parent)
    _init(repo_path)
    for part in parts:
        for start in range(0, len(part), BATCH):
            if os.getppid() != parent:  # orphaned (no PDEATHSIG here): nobody will read
                os._exit(1)
            out.put(_work(part[start : start + BATCH]))
        out.put(None)  # end of this slice


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """Make this worker exit when the process that started it dies, however it dies
    (SIGKILL included): Linux's parent-death signal, checked once against the race with
    a parent that died before it was set. Ctrl-C is the parent's to handle: a terminal's
    SIGINT reaches the whole process group, and the parent stops the workers itself."""
    reset_in_child()
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the getppid checks between batches remain
    if os.getppid() != parent:
        os._exit(1)


def _slices(shas: Sequence[str], workers: int) -> list[list[str]]:
    """Contiguous slices, SLICES_PER_WORKER per worker: enough that the writer never waits
    long for a slice, few enough that re-parsing cold at each slice start stays cheap."""
    count = max(1, min(workers * SLICES_PER_WORKER, len(shas) // BATCH))
    size = -(-len(shas) // count)
    return [list(shas[i : i + size]) for i in range(0, len(shas), size)]


def changes_in_workers(repo_path: str, shas: Sequence[str],
                       workers: int) -> Generator[Outcome, None, None]:
    """``(sha, changes, error)`` for each sha, in the given order.

    Slice ``i`` goes to worker ``i % workers``; each worker computes its slices in order
    and streams them back, and the writer reads slice after slice.
    """
    context: Any = multiprocessing.get_context("fork")
    slices = _slices(shas, workers)
    workers = min(workers, len(slices))
    queues = [context.Queue() for _ in range(workers)]
    procs = [context.Process(target=_slice_worker, daemon=True,
                             args=(repo_path, slices[k::workers], queues[k], os.getpid()))
             for k in range(workers)]
    for proc in procs:
        proc.start()
    try:
        for index, part in enumerate(slices):
            yield from _read_slice(part, procs[index % workers], queues[index % workers])
        for proc in procs:
            proc.join()
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
                proc.join()


def _read_slice(part: Sequence[str], proc: Any, queue: Any) -> Iterator[Outcome]:
    done = 0
    while True:
        try:
            batch = queue.get(timeout=1.0)
        except Empty:
            if proc.is_alive():
                continue
            # The worker died (killed, out of memory): the rest of its slice is reported
            # as failed, so it is retried on the next run.
            for sha in part[done:]:
                yield (sha, None, f"ingest worker exited with {proc.exitcode}")
            return
        if batch is None:
            return
        done += len(batch)
        yield from batch
