"""Profile the walker alone: every commit of a history through ``commit_changes``, in one
process, in the order a backfill walks them, with the cache a worker uses. No store.

    python bench/profile_walk.py REPO [--limit N] [--skip N] [--profile OUT.prof]
        [--top 40] [--merges-only] [--sort tottime|cumulative] [--slice N]

Prints the CPU time (process time, so a busy machine changes it little), the commit and
change counts, a digest of the changes (equal digests: equal attribution, before and after
a speed change), the bytes handed to ``ast.parse`` and, with ``--profile``, the top
functions. ``--slice N`` starts a fresh cache every N commits, as a worker does at each
slice (the cost of cold starts, in parse bytes). It measures where walker time
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
    parser.add_argument("--slice", type=int, default=0,
                        help="a fresh cache every N commits (a worker's slice)")
    args = parser.parse_args(argv)

    import ast

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
    parsed = [0, 0]  # calls, bytes handed to ast.parse
    real_parse = ast.parse

    def counting_parse(source: str | bytes, *args: object, **kwargs: object) -> ast.AST:
        parsed[0] += 1
        parsed[1] += len(source)
        return real_parse(source, *args, **kwargs)  # type: ignore[call-overload, no-any-return]

    ast.parse = counting_parse  # type: ignore[assignment]

    def fresh_cache() -> DefinitionCache:
        return DefinitionCache(maxsize=pipeline.WORKER_PARSES,
                               lines_budget=pipeline.WORKER_LINES_BUDGET)

    cache = fresh_cache()
    hits = misses = incremental = 0
    digest = hashlib.sha256()
    changes = 0
    profiler = cProfile.Profile() if args.profile else None
    started = time.process_time()
    if profiler is not None:
        profiler.enable()
    for number, commit in enumerate(commits):
        if args.slice and number and number % args.slice == 0:
            hits, misses = hits + cache.hits, misses + cache.misses
            incremental += cache.incremental
            cache = fresh_cache()
        result = commit_changes(repo, commit, cache=cache)
        changes += len(result.changes)
        digest.update(repr((result.commit.sha, result.changes, result.unparsed_files,
                            result.limits_hit)).encode())
    if profiler is not None:
        profiler.disable()
    cpu = time.process_time() - started
    ast.parse = real_parse
    hits, misses = hits + cache.hits, misses + cache.misses
    incremental += cache.incremental
    print(f"{args.repo}: {len(commits)} commits, {changes} changes, cpu {cpu:.2f} s, "
          f"digest {digest.hexdigest()[:16]}, cache hits {hits} misses {misses} "
          f"incremental {incremental}, ast.parse {parsed[0]} calls {parsed[1] / 1e6:.1f} MB")
    if profiler is not None:
        profiler.dump_stats(str(args.profile))
        pstats.Stats(str(args.profile)).sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
