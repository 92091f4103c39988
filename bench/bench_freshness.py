"""Verification freshness at worklist size: 1,000 items against 50 verification records.

    python bench/bench_freshness.py --generate 3000        # synthetic history (genhistory)
    python bench/bench_freshness.py ~/src/some-repo         # any real repository
    python bench/bench_freshness.py REPO --items 1000 --records 50 --repeat 5

Records go on commits sampled from the history (merged branches included); items take
their change commits (and, for half of them, a seed change) from two distributions:

* ``recent``: the last 300 commits, as a worklist for a change under review looks;
* ``spread``: the whole history, every item on a different commit (the worst case: most
  (record, change) pairs are distinct).

Two reference points, measured in the same run on the same queries:

* the lower bound: one bare libgit2 revwalk (no Python per commit) over the whole history
  reachable from HEAD, which is what any exact answer may have to read at worst;
* the pairwise way: ``repo.descendant_of`` per (record, change) pair, memoised, records
  newest first until one contains the item; timed on a sample of items and extrapolated
  (in full it takes tens of seconds).

The store is a scratch one under a temporary directory; the repository is only read.
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pygit2
from pygit2.enums import SortMode

from warpline.service.admin.freshness import summarise, verification_states
from warpline.service.shared.context import RepoContext
from warpline.store.db import Store


def _history(repo: pygit2.Repository) -> list[str]:
    """Every commit reachable from HEAD, oldest first."""
    walker = repo.walk(repo.head.target, SortMode.TOPOLOGICAL | SortMode.REVERSE)
    return [str(c.id) for c in walker]


def _queries(commits: list[str], items: int, mode: str,
             rng: random.Random) -> list[tuple[str | None, str | None]]:
    pool = commits[-300:] if mode == "recent" else commits
    if mode == "spread" and len(pool) >= items:
        picks = rng.sample(pool, items)
    else:
        picks = [rng.choice(pool) for _ in range(items)]
    return [(sha, rng.choice(pool) if n % 2 else None) for n, sha in enumerate(picks)]


def run(repo_path: Path, items: int, records: int, repeat: int, seed: int) -> dict[str, Any]:
    repo = pygit2.Repository(str(repo_path))
    commits = _history(repo)
    rng = random.Random(seed)
    scratch = Path(tempfile.mkdtemp(prefix="warpline-bench-freshness-"))
    results: dict[str, Any] = {"repo": str(repo_path), "commits": len(commits),
                               "items": items, "records": records}
    try:
        store = Store.open(scratch)
        records_shas = rng.sample(commits, min(records, len(commits)))
        results["floor_s"] = _floor(repo, repeat)
        with store.transaction() as conn:
            for n, sha in enumerate(records_shas):
                conn.execute("INSERT INTO verifications (commit_sha, kind, source, actor, "
                             "verified_at) VALUES (?, ?, 'warpline', 'bench', ?)",
                             (sha, rng.choice(["test_pass", "ci_pass"]), 1_000 + n))
        for mode in ("recent", "spread"):
            queries = _queries(commits, items, mode, rng)
            times: list[float] = []
            ctx = RepoContext(root=repo_path, repo=repo, store=store)
            summary: dict[str, int] = {}
            for _ in range(repeat):
                started = time.perf_counter()
                states = verification_states(ctx, queries, None)
                times.append(time.perf_counter() - started)
                summary = summarise(states)
            best = min(times)
            results[mode] = {"best_s": best, "median_s": statistics.median(times),
                             "states": summary, "naive_s": _naive(repo, queries, records_shas,
                                                                  rng)}
        store.close()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return results


def _floor(repo: pygit2.Repository, repeat: int) -> float:
    """Best time of a bare revwalk over all history reachable from HEAD."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        walker = repo.walk(repo.head.target, SortMode.TOPOLOGICAL)
        for _commit in walker:
            pass
        best = min(best, time.perf_counter() - started)
    return best


def _naive(repo: pygit2.Repository, queries: list[tuple[str | None, str | None]],
           record_shas: list[str], rng: random.Random, sample: int = 40) -> float:
    """Extrapolated time of the pairwise way: per distinct item, ``descendant_of`` against
    the records newest first until one contains it (each pair memoised)."""
    needs = sorted({tuple(c for c in pair if c is not None) for pair in queries})
    picked = rng.sample(needs, min(sample, len(needs)))
    newest_first = [pygit2.Oid(hex=v) for v in reversed(record_shas)]
    memo: dict[tuple[pygit2.Oid, str], bool] = {}
    started = time.perf_counter()
    for need in picked:
        for v in newest_first:
            if all(_contains(repo, memo, v, c) for c in need):
                break
    return (time.perf_counter() - started) / len(picked) * len(needs)


def _contains(repo: pygit2.Repository, memo: dict[tuple[pygit2.Oid, str], bool],
              v: pygit2.Oid, c: str) -> bool:
    if (v, c) not in memo:
        oid = pygit2.Oid(hex=c)
        memo[(v, c)] = v == oid or bool(repo.descendant_of(v, oid))
    return memo[(v, c)]


def _print(results: dict[str, Any]) -> None:
    print(f"repo: {results['repo']}  ({results['commits']} commits)")
    print(f"worklist: {results['items']} items, {results['records']} verification records")
    floor = results["floor_s"]
    print(f"lower bound: bare revwalk over all history {floor * 1000:.1f} ms")
    for mode in ("recent", "spread"):
        r = results[mode]
        print(f"  {mode:<7} best {r['best_s'] * 1000:7.1f} ms  median "
              f"{r['median_s'] * 1000:7.1f} ms  ({r['best_s'] / floor:.2f}x the full walk)  "
              f"| pairwise descendant_of would take ~{r['naive_s']:.1f} s  "
              f"states {r['states']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repos", nargs="*", type=Path, help="git repositories to measure")
    parser.add_argument("--generate", type=int, metavar="N",
                        help="also measure a synthetic history of N commits")
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--records", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    repos = list(args.repos)
    workdir: Path | None = None
    if args.generate:
        from genhistory import generate

        workdir = Path(tempfile.mkdtemp(prefix="warpline-bench-hist-"))
        started = time.perf_counter()
        generate(workdir / "hist", args.generate, seed=args.seed)
        print(f"generated {args.generate} commits in {time.perf_counter() - started:.1f}s")
        repos.append(workdir / "hist")
    if not repos:
        parser.error("pass a repository path or --generate N")
    try:
        for path in repos:
            _print(run(path, args.items, args.records, args.repeat, args.seed))
    finally:
        if workdir is not None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
