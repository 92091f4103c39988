"""Computing commit changes in worker processes while the main process writes.

A backfill is two kinds of work: diffing and parsing (CPU in the walker) and writing
(SQLite, one transaction per commit). The history is cut into contiguous slices of a few
hundred commits or more, because the walker re-parses an edited file incrementally from
the parse of its previous version: a worker that jumped between small distant chunks would
parse long modules from scratch at every jump (measured: twice the CPU). Each worker
claims the next unclaimed slice when it is done with one, so work stays balanced when one
slice holds huge commits or the machine is busy. Workers stream small batches back; the
writer reads slice after slice, in history order, and stays the only process that touches
the store.
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import pickle
import signal
import sys
import time
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
SLICES_PER_WORKER = 4
LOOKAHEAD = 3
WORKER_PARSES = 1024
WORKER_LINES_BUDGET = 8 << 20
WORKER_MWINDOW = 4 << 20
WORKER_MAPPED_LIMIT = 24 << 20
# libgit2 keeps every tree and commit object it reads (up to 256 MB by default): over a
# long history that cache, not the parses, is most of a worker's memory.
WORKER_OBJECT_CACHE = 32 << 20
MIN_SLICE = 200
GC_THRESHOLD = (50_000, 20, 100)

_repo: pygit2.Repository | None = None
_cache: DefinitionCache | None = None


def _init(repo_path: str) -> None:
    global _repo, _cache
    # A worker allocates many long-lived objects (the definitions cache) and creates
    # little cyclic garbage: rarer collections save ~5% CPU; memory stays bounded.
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
    # Memory: each worker maps the packs in small windows (libgit2 maps a whole pack of
    # up to 1 GB at once by default, and every page read stays resident) and keeps fewer
    # parses than an in-process walk; the cost is re-parsing a file not seen for long.
    pygit2.settings.mwindow_size = WORKER_MWINDOW
    pygit2.settings.mwindow_mapped_limit = WORKER_MAPPED_LIMIT
    pygit2.settings.cache_max_size(WORKER_OBJECT_CACHE)
    _repo = pygit2.Repository(repo_path)
    _cache = DefinitionCache(maxsize=WORKER_PARSES, lines_budget=WORKER_LINES_BUDGET)


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


def _slice_worker(repo_path: str, slices: Sequence[Sequence[str]], claimed: Any,
                  writing: Any, out: Any, number: int, parent: int) -> None:
    """Claim the next unclaimed slice, compute it batch by batch, repeat. A message is
    ``(worker, slice, payload)``: payload ``START`` on claiming, a pickled batch, ``END``."""
    die_with_parent(parent)
    _init(repo_path)
    while True:
        with claimed.get_lock():
            index = claimed.value
            claimed.value = index + 1
        if index >= len(slices):
            return
        # At most LOOKAHEAD slices past the one being written: what the writer has not
        # reached yet waits in its memory, so running far ahead would only cost memory.
        while index > writing.value + LOOKAHEAD:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(0.02)
        out.put((number, index, START))
        part = slices[index]
        for start in range(0, len(part), BATCH):
            if os.getppid() != parent:  # orphaned (no PDEATHSIG here): nobody will read
                os._exit(1)
            # Pickled here: the writer keeps batches of slices it has not reached yet as
            # compact bytes, and unpickles each when it writes it.
            out.put((number, index, pickle.dumps(_work(part[start : start + BATCH]),
                                                 pickle.HIGHEST_PROTOCOL)))
        out.put((number, index, END))


START = b"start"
END = b"end"


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
    """Contiguous slices, about SLICES_PER_WORKER per worker (at least MIN_SLICE commits
    each): enough that a worker slowed down (a huge commit, a busy machine) holds up little
    while the others take the next slices, few enough that re-parsing cold at each slice
    start stays cheap."""
    count = max(1, min(workers * SLICES_PER_WORKER, len(shas) // MIN_SLICE))
    size = -(-len(shas) // count)
    return [list(shas[i : i + size]) for i in range(0, len(shas), size)]


def changes_in_workers(repo_path: str, shas: Sequence[str],
                       workers: int) -> Generator[Outcome, None, None]:
    """``(sha, changes, error)`` for each sha, in the given order.

    Each worker claims the next unclaimed slice when it finishes one (so a slow worker
    never leaves the others idle) and streams it back; the writer reads slice after
    slice, keeping what arrives early for later ones.
    """
    context: Any = multiprocessing.get_context("fork")
    slices = _slices(shas, workers)
    workers = min(workers, len(slices))
    claimed = context.Value("i", 0)
    writing = context.Value("i", 0, lock=False)  # the slice the writer is reading
    results = context.Queue()
    procs = [context.Process(target=_slice_worker, daemon=True,
                             args=(repo_path, slices, claimed, writing, results, k,
                                   os.getpid()))
             for k in range(workers)]
    for proc in procs:
        proc.start()
    try:
        yield from _Reader(slices, procs, results, claimed, writing).outcomes()
        for proc in procs:
            proc.join()
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
                proc.join()


class _Reader:
    """The writer's side: slices in order, from whichever worker claimed each."""

    def __init__(self, slices: Sequence[Sequence[str]], procs: Sequence[Any], results: Any,
                 claimed: Any, writing: Any) -> None:
        self.writing = writing
        self.slices = slices
        self.procs = procs
        self.results = results
        self.claimed = claimed
        self.owner: dict[int, int] = {}
        self.early: dict[int, list[bytes]] = {}
        self.ended: set[int] = set()

    def outcomes(self) -> Iterator[Outcome]:
        for index, part in enumerate(self.slices):
            self.writing.value = index
            done = 0
            idle = 0
            while True:
                waiting = self.early.pop(index, None)
                if waiting:
                    for raw in waiting:
                        batch: list[Outcome] = pickle.loads(raw)
                        done += len(batch)
                        yield from batch
                    continue
                if index in self.ended:
                    break
                if self._receive():
                    idle = 0
                    continue
                idle += 1
                if self._lost(index, idle):
                    # The worker died (killed, out of memory): the rest of its slice is
                    # reported as failed, so it is retried on the next run.
                    code = self._exitcode(index)
                    for sha in part[done:]:
                        yield (sha, None, f"ingest worker exited with {code}")
                    break

    def _receive(self) -> bool:
        # Once every worker has exited, only what is already in the pipe is left to read.
        wait = 1.0 if any(p.is_alive() for p in self.procs) else 0.1
        try:
            number, index, payload = self.results.get(timeout=wait)
        except Empty:
            return False
        if payload == START:
            self.owner[index] = number
        elif payload == END:
            self.ended.add(index)
        else:
            self.early.setdefault(index, []).append(payload)
        return True

    def _lost(self, index: int, idle: int) -> bool:
        """Nothing arrived for a while: will anyone still send slice ``index``?"""
        owner = self.owner.get(index)
        if owner is not None:
            return not self.procs[owner].is_alive()
        alive = [p for p in self.procs if p.is_alive()]
        if not alive:
            return True
        # Claimed but never started: its worker died between the two (a few seconds of
        # silence while some worker is dead tell it from a message still in flight).
        return (self.claimed.value > index and idle >= 3
                and len(alive) < len(self.procs))

    def _exitcode(self, index: int) -> object:
        owner = self.owner.get(index)
        if owner is not None:
            return self.procs[owner].exitcode
        dead = [p.exitcode for p in self.procs if not p.is_alive()]
        return dead[0] if dead else None
