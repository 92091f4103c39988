"""Computing commit changes in worker processes while the main process writes.

A backfill is two kinds of work: diffing and parsing (CPU in the walker) and writing
(SQLite, each commit whole in a savepoint, a few dozen to a transaction). The history is
cut into contiguous slices of a few hundred commits or more, because the walker re-parses
an edited file incrementally from the parse of its previous version: a worker that jumped
between small distant chunks would parse long modules from scratch at every jump (measured:
twice the CPU). Each worker is handed the next slice when it is done with one, so work
stays balanced when one slice holds huge commits or the machine is busy. Workers stream
small batches back, each over its own pipe (whose other end only the writer holds: a worker
that dies reads as end-of-file, even in the middle of a message); the writer reads slice
after slice, in history order, and stays the only process that touches the store.

Memory: a worker's heap grows over a slice (parses, libgit2's objects, a vendoring commit's
sides held for lineage pairing) and, kept, would grow over every slice it takes. Between
slices each worker starts afresh: a new parse cache, libgit2's caches and pack windows
released, and the freed heap handed back to the system. Slices are not contiguous for one
worker, so what it would have kept was mostly stale anyway. Measured on pip (16,238
commits, 2 workers): the tree's peak RSS 356 -> 289 MB; the bytes handed to ``ast.parse``
are 166 MB with one cache for the whole history, 182 MB with a fresh one every 2,030-commit
slice (the old workers' count lay between: each started cold and kept a stale cache).
"""

from __future__ import annotations

import ctypes
import functools
import gc
import multiprocessing
import os
import pickle
import signal
import sys
from collections.abc import Generator, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from warpline import settings
from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.git.events import CommitChanges
from warpline.git.repo import release_caches
from warpline.git.walks import Repository, open_for_worker, peel_commit
from warpline.ingest.bounded import CommitTimeout, bounded, timeout_reason
from warpline.ingest.report import WORKER_LOST
from warpline.ingest.stopping import StopRequest, reset_in_child

# Below this many commits, starting workers costs more than it saves.
MIN_COMMITS = 300
BATCH = 50
SLICES_PER_WORKER = 4
LOOKAHEAD = 3
# Parses a worker keeps. With 1,024, pip's vendoring commits (hundreds of files each)
# pushed out files still being edited: each was parsed whole again at its next edit and
# compared whole (no windows). Measured on pip: a worker's parses 15,152 -> 14,340 for
# its half of the slices; the workers' CPU over 9 interleaved backfills -8% (median;
# +10% to -18% as the machine drifted); peak RSS within the noise; 3,072 saved no more.
WORKER_PARSES = 2048
WORKER_LINES_BUDGET = 8 << 20
WORKER_MWINDOW = 4 << 20
WORKER_MAPPED_LIMIT = 24 << 20
# libgit2 keeps every tree and commit object it reads (up to 256 MB by default): over a
# long history that cache, not the parses, is most of a worker's memory.
WORKER_OBJECT_CACHE = 32 << 20
MIN_SLICE = 200
GC_THRESHOLD = (50_000, 20, 100)

_repo: Repository | None = None
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
    _repo = open_for_worker(repo_path, mwindow_size=WORKER_MWINDOW,
                            mapped_limit=WORKER_MAPPED_LIMIT,
                            object_cache=WORKER_OBJECT_CACHE)
    _cache = _worker_cache()


def _worker_cache() -> DefinitionCache:
    return DefinitionCache(maxsize=WORKER_PARSES, lines_budget=WORKER_LINES_BUDGET)


Outcome = tuple[str, CommitChanges | None, str | None]


def trim_heap() -> None:
    """Collect Python's garbage and hand glibc's free heap back to the system: freed
    memory otherwise stays resident in the process that freed it."""
    gc.collect()
    release_free_heap()


def release_free_heap() -> None:
    """glibc's free heap back to the system (``malloc_trim``; absent elsewhere, then
    skipped). About 0.6 ms a call on pip; after every batch a worker sends, it keeps what
    one large commit (a vendoring update) freed from staying resident for the rest of the
    slice: measured on pip's last three slices, a worker's end-of-slice RSS 139-147 ->
    128-132 MB."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Any:
    """glibc's ``malloc_trim``, looked up once; None where there is none."""
    try:
        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None


def _start_afresh() -> None:
    """Between two slices: drop what the last slice left (its parses and kept lines,
    libgit2's object cache and pack windows: the repository reopens them on use)."""
    global _cache
    assert _repo is not None
    _cache = _worker_cache()
    release_caches(_repo)  # not on a shallow clone: free() would drop its grafts
    trim_heap()


def _work(shas: Sequence[str]) -> list[Outcome]:
    global _cache
    assert _repo is not None and _cache is not None
    out: list[Outcome] = []
    limit = settings.commit_timeout_s()
    for sha in shas:
        try:
            commit = peel_commit(_repo, sha)
            if commit is None:
                raise KeyError(f"commit {sha} not found")
            with bounded(limit):
                out.append((sha, commit_changes(_repo, commit, cache=_cache), None))
        except CommitTimeout:  # the writer records it as failed, and it is skipped
            _cache = _worker_cache()  # a walk cut short may leave it half-updated
            out.append((sha, None, timeout_reason(limit)))
        except Exception as exc:  # reported per commit by the writer
            out.append((sha, None, f"{type(exc).__name__}: {exc}"))
    return out


def _slice_worker(repo_path: str, slices: Sequence[Sequence[str]], conn: Connection,
                  others: Sequence[Connection], parent: int) -> None:
    """Compute the slices the writer assigns, batch by batch, until it says stop.

    The worker's only channel is its own pipe, written from this thread: if it dies in the
    middle of a message, the writer reads end-of-file, never a message that cannot end (a
    shared queue left a dead worker's half-written message blocking the reader forever).
    A message is the slice index (4 bytes) followed by a pickled batch, or by nothing: the
    slice's end."""
    for other in others:  # inherited through fork: only the writer may hold the other ends
        other.close()
    die_with_parent(parent)
    _init(repo_path)
    while True:
        try:
            index = conn.recv()
        except (EOFError, OSError):  # the writer has gone
            os._exit(1)
        if index is None:
            return
        head = int(index).to_bytes(4, "little")
        part = slices[index]
        for start in range(0, len(part), BATCH):
            if os.getppid() != parent:  # orphaned (no PDEATHSIG here): nobody will read
                os._exit(1)
            # Pickled here: the writer keeps batches of slices it has not reached yet as
            # compact bytes, and unpickles each when it writes it.
            conn.send_bytes(head + pickle.dumps(_work(part[start : start + BATCH]),
                                                pickle.HIGHEST_PROTOCOL))
            release_free_heap()
        conn.send_bytes(head)
        _start_afresh()  # while the writer hands out the next slice


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


def changes_in_workers(repo_path: str, shas: Sequence[str], workers: int,
                       stop: StopRequest | None = None) -> Generator[Outcome, None, None]:
    """``(sha, changes, error)`` for each sha, in the given order; it ends early, within
    about a second, once ``stop`` is requested (however long a worker's commit takes).

    The writer hands each worker the next slice when it finishes one (so a slow worker
    never leaves the others idle) and reads slice after slice, keeping what arrives early
    for later ones.
    """
    context: Any = multiprocessing.get_context("fork")
    slices = _slices(shas, workers)
    workers = min(workers, len(slices))
    pipes = [context.Pipe(duplex=True) for _ in range(workers)]
    procs = []
    for k in range(workers):
        others = [end for pair in pipes for end in pair if end is not pipes[k][1]]
        procs.append(context.Process(target=_slice_worker, daemon=True,
                                     args=(repo_path, slices, pipes[k][1], others,
                                           os.getpid())))
    try:
        for proc in procs:
            proc.start()
    finally:
        for _, child_end in pipes:  # now a dead worker's pipe reads end-of-file
            child_end.close()
    ends = [writer_end for writer_end, _ in pipes]
    try:
        yield from _Reader(slices, procs, ends, stop).outcomes()
        if stop is None or stop.signum is None:  # else still busy: terminated below
            for proc in procs:
                proc.join()
    finally:
        for end in ends:
            end.close()
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
            if proc.pid is not None:
                proc.join()


class _Reader:
    """The writer's side: assigns slices in history order and reads them in that order,
    from whichever worker computes each."""

    def __init__(self, slices: Sequence[Sequence[str]], procs: Sequence[Any],
                 ends: Sequence[Connection], stop: StopRequest | None = None) -> None:
        self.stop = stop
        self.slices = slices
        self.procs = procs
        self.ends = ends
        self.open: dict[int, Connection] = dict(enumerate(ends))
        self.working: dict[int, int] = {}  # worker -> the slice it computes
        self.owner: dict[int, int] = {}  # slice -> the worker it was given to
        self.next = 0  # the next slice to hand out
        self.writing = 0  # the slice the writer is reading
        self.early: dict[int, list[memoryview]] = {}
        self.ended: set[int] = set()
        self.stopped: set[int] = set()

    def outcomes(self) -> Iterator[Outcome]:
        self._hand_out()
        for index, part in enumerate(self.slices):
            self.writing = index
            self._hand_out()
            done = 0
            while True:
                self._receive(0.0)  # drain whatever is ready, so no worker waits on us
                waiting = self.early.pop(index, None)
                if waiting:
                    for raw in waiting:
                        batch: list[Outcome] = pickle.loads(raw)
                        done += len(batch)
                        yield from batch
                    continue
                if index in self.ended:
                    break
                if self._lost(index):
                    # The worker died (killed, out of memory): the rest of its slice is
                    # reported as failed, so it is retried on the next run.
                    code = self._exitcode(index)
                    for sha in part[done:]:
                        yield (sha, None, f"{WORKER_LOST} with {code}")
                    break
                if self.stop is not None and self.stop.signum is not None:
                    # A stop while every worker is still busy (one huge commit): the
                    # writer's own check, once per outcome, would wait for the next one.
                    # The workers are terminated by the caller's clean-up.
                    return
                self._receive(1.0)
            release_free_heap()  # what this slice's messages held
        self._hand_out()  # every slice is read: the idle workers are told to stop

    def _hand_out(self) -> None:
        """Give each idle worker the next slice, at most LOOKAHEAD slices past the one
        being written (what the writer has not reached yet waits in its memory, so running
        far ahead would only cost memory); once all are handed out, tell it to stop."""
        for number in sorted(self.open):
            if number in self.working or number in self.stopped:
                continue
            if self.next >= len(self.slices):
                self.stopped.add(number)
                self._send(number, None)
            elif self.next <= self.writing + LOOKAHEAD:
                self.working[number], self.owner[self.next] = self.next, number
                self._send(number, self.next)
                self.next += 1

    def _send(self, number: int, index: int | None) -> None:
        try:
            self.open[number].send(index)
        except OSError:  # it died: its end-of-file is read next
            pass

    def _receive(self, timeout: float) -> None:
        for end in wait(list(self.open.values()), timeout):
            assert isinstance(end, Connection)
            number = self.ends.index(end)
            try:
                message = end.recv_bytes()
            except (EOFError, OSError):  # exited; a half-written message is dropped
                del self.open[number]
                continue
            index = int.from_bytes(message[:4], "little")
            if len(message) == 4:
                self.ended.add(index)
                self.working.pop(number, None)
                self._hand_out()
            else:
                self.early.setdefault(index, []).append(memoryview(message)[4:])

    def _lost(self, index: int) -> bool:
        """Will anyone still send slice ``index``? A worker's end-of-file comes after
        everything it sent, so a closed owner that never ended the slice never will."""
        owner = self.owner.get(index)
        if owner is not None:
            return owner not in self.open and index not in self.early
        return not self.open  # never handed out, and nobody is left to take it

    def _exitcode(self, index: int) -> object:
        owner = self.owner.get(index)
        if owner is not None:
            self.procs[owner].join(1.0)
            return self.procs[owner].exitcode
        dead = [p.exitcode for p in self.procs if not p.is_alive()]
        return dead[0] if dead else None
