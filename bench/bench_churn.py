"""Churn for 50,000 refs on a warm store, as loomweave's consumer sends it.

    python bench/bench_churn.py [REPO] [--generate N] [--refs 50000] [--repeat 5]

Without REPO a history of N commits is generated (bench/genhistory.py) and backfilled.
Refs mix every entity warpline knows (as locators, and as SEIs when they are set) with
never-observed refs up to --refs. The lower bound, measured in the same run, is the raw
SQL that counts events per entity over the whole store (what any answer must read).
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from genhistory import generate

from warpline.git.repo import head_commit, open_repo
from warpline.ingest.driver import Ingestor
from warpline.registry import call_tool
from warpline.store.db import Store, store_path


def _refs(repo: Path, total: int) -> list[str]:
    with sqlite3.connect(store_path(repo)) as conn:
        known = [row[0] for row in conn.execute("SELECT locator FROM entities ORDER BY id")]
    unknown = [f"python:function:never.seen.f{n}" for n in range(max(total - len(known), 0))]
    return (known + unknown)[:total]


def _lower_bound(repo: Path) -> float:
    started = time.perf_counter()
    with sqlite3.connect(store_path(repo)) as conn:
        conn.execute("SELECT entity_id, count(*), max(changed_at) FROM change_events "
                     "GROUP BY entity_id").fetchall()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", type=Path)
    parser.add_argument("--generate", type=int, default=2000)
    parser.add_argument("--refs", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        repo = args.repo or Path(scratch) / "history"
        if args.repo is None:
            generate(repo, args.generate, seed=0)
        handle = open_repo(repo)
        with Store.open(repo) as store:
            Ingestor(store, handle).catch_up(head_commit(handle))
        refs = _refs(repo, args.refs)
        arguments = {"repo": str(repo), "entity_refs": refs, "limit": len(refs)}
        call_tool("churn", arguments)  # warm: imports, page cache
        runs, bounds = [], []
        for _ in range(args.repeat):
            started = time.perf_counter()
            envelope = call_tool("churn", arguments)
            runs.append(time.perf_counter() - started)
            bounds.append(_lower_bound(repo))
        assert len(envelope["data"]["items"]) == len(refs)
        observed = sum(1 for item in envelope["data"]["items"] if item["observed"])
        churn, bound = statistics.median(runs), statistics.median(bounds)
        print(f"repo: {repo}  refs: {len(refs)} ({observed} observed)")
        print(f"churn (median of {args.repeat}): {churn * 1000:.0f} ms")
        print(f"lower bound, grouped SQL count: {bound * 1000:.0f} ms")
        print(f"ratio: {churn / bound:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
