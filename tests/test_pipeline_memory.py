"""A worker starts each slice afresh (its memory does not grow over the slices it takes),
and what it computes after starting afresh is what a fresh walk computes."""

from __future__ import annotations

import ctypes
import multiprocessing
import platform
import subprocess
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pygit2
import pytest

from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.ingest import pipeline

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from genhistory import generate

from tests.gitfixture import pending_shas


def _two_slices_in_a_worker(repo_path: str, first: list[str], second: list[str],
                            conn: Connection) -> None:
    """In a forked child (the worker's settings are process-wide in libgit2): one slice,
    a fresh start, the next slice; reports the cache sizes and the second slice's outcomes."""
    pipeline._init(repo_path)
    pipeline._work(first)
    assert pipeline._cache is not None
    kept_before = len(pipeline._cache)
    old_cache = pipeline._cache
    pipeline._start_afresh()
    kept_after = len(pipeline._cache)
    fresh_object = pipeline._cache is not old_cache
    conn.send((kept_before, kept_after, fresh_object, pipeline._work(second)))
    conn.close()


def test_a_worker_starts_each_slice_with_empty_caches_and_computes_the_same_changes(
        tmp_path: Path) -> None:
    generate(tmp_path / "r", 120, seed=7)
    shas = pending_shas(tmp_path / "r")
    first, second = shas[:80], shas[80:]
    context: Any = multiprocessing.get_context("fork")
    parent_end, child_end = context.Pipe(duplex=False)
    proc = context.Process(target=_two_slices_in_a_worker,
                           args=(str(tmp_path / "r"), first, second, child_end))
    proc.start()
    child_end.close()
    kept_before, kept_after, fresh_object, outcomes = parent_end.recv()
    proc.join(60)
    assert proc.exitcode == 0
    assert kept_before > 0  # the first slice filled the cache
    assert kept_after == 0 and fresh_object  # the next one starts from nothing
    # A walk of the second slice alone, from a cold cache, computes the same changes.
    repo = pygit2.Repository(str(tmp_path / "r"))
    cache = DefinitionCache(maxsize=pipeline.WORKER_PARSES,
                            lines_budget=pipeline.WORKER_LINES_BUDGET)
    expected: list[pipeline.Outcome] = []
    for sha in second:
        commit = repo.get(sha)
        assert isinstance(commit, pygit2.Commit)
        expected.append((sha, commit_changes(repo, commit, cache=cache), None))
    assert [sha for sha, _, _ in outcomes] == second
    assert all(error is None for _, _, error in outcomes)
    assert outcomes == expected



def _glibc() -> bool:
    try:
        ctypes.CDLL(None).malloc_trim  # noqa: B018 (present in glibc only)
    except (OSError, AttributeError):
        return False
    return platform.libc_ver()[0] == "glibc"


_PINNED_HEAP = """
import ctypes, sys
from warpline.ingest.pipeline import release_free_heap

def anon_kb():
    for line in open("/proc/self/status"):
        if line.startswith("RssAnon:"):
            return int(line.split()[1])

libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
# 100 MB in 4 KB blocks (below glibc's mmap threshold: on the heap), touched, then all
# freed but the last, which keeps the heap's top from shrinking by itself.
blocks = [libc.malloc(4096) for _ in range(25_600)]
for block in blocks:
    libc.memset(block, 1, 4096)
for block in blocks[:-1]:
    libc.free(block)
before = anon_kb()
release_free_heap()
print(before, anon_kb())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux") or not _glibc(),
                    reason="malloc_trim and /proc/self/status: Linux with glibc")
def test_release_free_heap_hands_freed_heap_below_a_live_block_back(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", _PINNED_HEAP], capture_output=True,
                          text=True, timeout=120, check=True)
    before_kb, after_kb = map(int, done.stdout.split())
    assert before_kb > 90_000  # the freed blocks were still resident
    assert before_kb - after_kb > 80_000  # and went back to the system
