"""Profile the walker alone: every commit of a history through ``commit_changes``, in one
process, in the order a backfill walks them, with the cache a worker uses. No store.

    python bench/profile_walk.py REPO [--limit N] [--skip N] [--profile OUT.prof]
        [--top 40] [--merges-only] [--sort tottime|cumulative] [--slice N] [--phases]
    python bench/profile_walk.py REPO --parsers [--repeat 3]

Prints the CPU time (process time, so a busy machine changes it little), the commit and
change counts, a digest of the changes (equal digests: equal attribution, before and after
a speed change), the bytes handed to ``ast.parse`` and, with ``--profile``, the top
functions. ``--slice N`` starts a fresh cache every N commits, as a worker does at each
slice (the cost of cold starts, in parse bytes). The parse figures split into the
parses that succeeded and those that failed (a py2-era version: ``ast`` fails, then the
tolerant parser reads it), each with its CPU share.

``--parsers`` measures instead what a tree-sitter parser would save: every Python file at
HEAD parsed by ``ast.parse``, by tree-sitter alone, and by tree-sitter plus a query for
the definition nodes (the least a tree-sitter span reader needs), best of ``--repeat``.

It measures where walker time goes; ``bench_backfill.py`` measures the backfill as users
run it.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import pstats
import sys
import time
from collections.abc import Callable
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
    parser.add_argument("--check-regions", action="store_true",
                        help="read every tree-sitter version re-read in edited regions "
                             "whole too, and count the differences")
    parser.add_argument("--no-regions", action="store_true",
                        help="tree-sitter readers query whole trees (the reference)")
    parser.add_argument("--phases", action="store_true",
                        help="CPU by phase of the walk (parse, query, facts, lineage, ...)")
    parser.add_argument("--no-window", action="store_true",
                        help="edits read whole compare whole files (the reference)")
    parser.add_argument("--parsers", action="store_true",
                        help="compare ast.parse with tree-sitter on HEAD's Python files")
    parser.add_argument("--repeat", type=int, default=3, help="with --parsers: best of N")
    args = parser.parse_args(argv)
    if args.parsers:
        return compare_parsers(args.repo, args.repeat)

    import ast

    import pygit2

    from warpline.git import window
    from warpline.git.attribution import DefinitionCache, commit_changes
    from warpline.ingest import pipeline
    from warpline.lang import tsregions

    tsregions.CHECK = args.check_regions
    tsregions.EDITED_REGIONS = not args.no_regions
    window.ENABLED = not args.no_window

    repo = pygit2.Repository(str(args.repo))
    walker = repo.walk(repo.head.target,
                       pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE)
    commits = list(walker)[args.skip:]
    if args.limit:
        commits = commits[: args.limit]
    if args.merges_only:
        commits = [c for c in commits if len(c.parent_ids) > 1]
    parsed = [0, 0]  # calls, bytes handed to ast.parse
    failed = [0, 0]  # the same, for the parses that raised
    parse_cpu = [0.0, 0.0]  # CPU in ast.parse: all, failed
    real_parse = ast.parse

    def counting_parse(source: str | bytes, *args: object, **kwargs: object) -> ast.AST:
        parsed[0] += 1
        parsed[1] += len(source)
        began = time.process_time()
        try:
            return real_parse(source, *args, **kwargs)  # type: ignore[call-overload, no-any-return]
        except Exception:
            failed[0] += 1
            failed[1] += len(source)
            parse_cpu[1] += time.process_time() - began
            raise
        finally:
            parse_cpu[0] += time.process_time() - began

    ast.parse = counting_parse  # type: ignore[assignment]

    def fresh_cache() -> DefinitionCache:
        return DefinitionCache(maxsize=pipeline.WORKER_PARSES,
                               lines_budget=pipeline.WORKER_LINES_BUDGET)

    cache = fresh_cache()
    hits = misses = incremental = 0
    digest = hashlib.sha256()
    changes = 0
    profiler = cProfile.Profile(time.process_time) if args.profile else None
    phases = None
    if args.phases:
        from _walk_phases import Phases

        phases = Phases().install()
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
    print(f"  ast.parse cpu {parse_cpu[0]:.2f} s ({share(parse_cpu[0], cpu)} of the walk); "
          f"failed {failed[0]} calls {failed[1] / 1e6:.1f} MB, cpu {parse_cpu[1]:.2f} s "
          f"({share(parse_cpu[1], cpu)})")
    print(f"  tree-sitter records: {tsregions.stats}")
    if phases is not None:
        print("\n".join(phases.report(cpu)))
    if profiler is not None:
        profiler.dump_stats(str(args.profile))
        pstats.Stats(str(args.profile)).sort_stats(args.sort).print_stats(args.top)
    return 0


def share(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def compare_parsers(path: Path, repeat: int) -> int:
    import ast

    import pygit2
    import tree_sitter_python
    from _bench_util import python_blobs
    from tree_sitter import Language, Parser, Query, QueryCursor

    repo = pygit2.Repository(str(path))
    sources = [bytes(memoryview(b)) for b in python_blobs(repo.head.peel(pygit2.Commit))]
    valid = []
    for source in sources:
        try:
            ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        valid.append(source)
    language = Language(tree_sitter_python.language())
    parser = Parser(language)
    query = Query(language, "(function_definition) @d (class_definition) @d "
                            "(decorated_definition) @d")

    def with_ast() -> None:
        for source in valid:
            ast.parse(source)

    def with_tree_sitter() -> None:
        for source in valid:
            parser.parse(source)

    def with_query() -> None:
        spans = 0  # what a span reader reads of each node: its first and last line
        for source in valid:
            nodes = QueryCursor(query).captures(parser.parse(source).root_node).get("d", [])
            for node in nodes:
                spans += node.end_point[0] - node.start_point[0]

    def best(run: Callable[[], None]) -> float:
        times = []
        for _ in range(max(1, repeat)):
            began = time.process_time()
            run()
            times.append(time.process_time() - began)
        return min(times)

    base = best(with_ast)
    size = sum(map(len, valid)) / 1e6
    print(f"{path}: {len(valid)} Python files at HEAD that ast parses ({size:.1f} MB), "
          f"best of {max(1, repeat)}, CPU time")
    print(f"  ast.parse                    {base * 1000:8.1f} ms  1.00x")
    for label, run in (("tree-sitter parse", with_tree_sitter),
                       ("tree-sitter parse + query", with_query)):
        took = best(run)
        print(f"  {label:28} {took * 1000:8.1f} ms  {took / base:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
