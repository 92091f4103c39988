"""Profile the walker alone: every commit of a history through ``commit_changes``, in one
process, in the order a backfill walks them, with the cache a worker uses. No store.

    python bench/profile_walk.py REPO [--limit N] [--skip N] [--profile OUT.prof]
        [--top 40] [--merges-only] [--sort tottime|cumulative]

Prints the CPU time (process time, so a busy machine changes it little), the commit and
change counts, a digest of the changes (equal digests: equal attribution, before and after
a speed change) and, with ``--profile``, the top functions. It measures where walker time
goes; ``bench_backfill.py`` measures the backfill as users run it.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import sys
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repo", type=Path)
    parser.add_argument("--limit", type=int, default=0, help="at most N commits")
    parser.add_argument("--skip", type=int, default=0, help="skip the first N commits")
    parser.add_argument("--profile", type=Path, help="write cProfile stats here")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--sort", default="tottime")
    parser.add_argument("--merges-only", action="store_true")
    args = parser.parse_args(argv)

    import pygit2

    from warpline.git.attribution import DefinitionCache, commit_changes
    from warpline.store import pipeline

    repo = pygit2.Repository(str(args.repo))
    walker = repo.walk(repo.head.target,
                       pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    commits = list(walker)[args.skip:]
    if args.limit:
        commits = commits[: args.limit]
    if args.merges_only:
        commits = [c for c in commits if len(c.parent_ids) > 1]
    cache = DefinitionCache(maxsize=pipeline.WORKER_PARSES,
                            lines_budget=pipeline.WORKER_LINES_BUDGET)
    digest = hashlib.sha256()
    changes = 0
    profiler = cProfile.Profile() if args.profile else None
    started = time.process_time()
    if profiler is not None:
        profiler.enable()
    for commit in commits:
        result = commit_changes(repo, commit, cache=cache)
        changes += len(result.changes)
        digest.update(repr((result.commit.sha, result.changes, result.unparsed_files,
                            result.limits_hit)).encode())
    if profiler is not None:
        profiler.disable()
    cpu = time.process_time() - started
    print(f"{args.repo}: {len(commits)} commits, {changes} changes, cpu {cpu:.2f} s, "
          f"digest {digest.hexdigest()[:16]}, cache hits {cache.hits} misses {cache.misses} "
          f"incremental {cache.incremental}")
    if profiler is not None:
        profiler.dump_stats(str(args.profile))
        pstats.Stats(str(args.profile)).sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
