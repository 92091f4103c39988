"""A worker starts each slice afresh (its memory does not grow over the slices it takes),
and what it computes after starting afresh is what a fresh walk computes."""

from __future__ import annotations

import multiprocessing
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import pygit2

from warpline.git.attribution import DefinitionCache, commit_changes
from warpline.store import pipeline

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

