"""``warpline import-coverage``: a test map from coverage data a runner's own tooling wrote
(pytest's: a coverage.py data file with per-test contexts), through the runner's row
(``import_map``, ``warpline.runners``); ``warpline record-tests``: a map recorded by running
the whole suite of a runner that records through warpline (the row's ``record``), with the
receipt of the run it saw."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warpline.cli.output import EXIT_OK, emit_json, emit_text


def _import_coverage(args: argparse.Namespace) -> int:
    from warpline.errors import InvalidArgument
    from warpline.git.repo import resolve_commit
    from warpline.runners import RUNNERS, by_name
    from warpline.service.shared.context import open_context
    from warpline.store.testmaps import write_map

    runner = by_name(args.runner)
    if runner is None or runner.import_map is None:
        known = ", ".join(r.name for r in RUNNERS if r.import_map is not None)
        raise InvalidArgument(f"No coverage import for runner {args.runner!r}: use one of "
                              f"{known}.", field="runner", value=args.runner)
    data_file = Path(args.coverage_file).expanduser()
    if not data_file.is_absolute():
        data_file = Path.cwd() / data_file
    with open_context(args.repo, Path.cwd()) as ctx:
        commit = resolve_commit(ctx.repo, args.commit, field="commit")
        row = write_map(ctx.store, runner.import_map(ctx.root, ctx.repo, commit, data_file,
                                                     args.rootdir))
    summary = {"map_id": row.id, "commit_sha": row.commit_sha, "source": row.source,
               "tracer_version": row.tracer_version, "rootdir": row.rootdir,
               "tests": row.test_count, "entities": row.entity_count, "links": row.hit_count,
               "unmapped_files": row.unmapped_files}
    if args.json:
        emit_json(summary)
    else:
        emit_text(f"test map {row.id} at {row.commit_sha[:12]} from {data_file.name}: "
                  f"{row.test_count} tests, {row.entity_count} entities, {row.hit_count} "
                  "test-entity links"
                  + (f"; {len(row.unmapped_files)} files could not be parsed"
                     if row.unmapped_files else ""))
    return EXIT_OK


def _record_tests(args: argparse.Namespace) -> int:
    from warpline.errors import InvalidArgument
    from warpline.runners import RUNNERS, by_name
    from warpline.runners.receipt import RunWatchState, head_sha, run_relevant_changes, write
    from warpline.service.shared.context import open_context
    from warpline.service.shared.own_files import own_paths
    from warpline.store.testmaps import write_map

    recorders = [r for r in RUNNERS if r.record is not None]
    names = ", ".join(r.name for r in recorders)
    with open_context(args.repo, Path.cwd()) as ctx:
        if args.runner:
            chosen = by_name(args.runner)
            if chosen is None or chosen.record is None:
                raise InvalidArgument(f"warpline records maps for {names} through this "
                                      f"command (pytest: `pytest --warpline-record`), not for "
                                      f"{args.runner!r}.", field="runner", value=args.runner)
            runners = [chosen]
        else:
            runners = [r for r in recorders if r.detect(ctx.root)]
            if not runners:
                raise InvalidArgument(f"The repository uses none of the runners warpline "
                                      f"records through this command ({names}); pytest's: "
                                      "`pytest --warpline-record`.", field="runner")
        summaries = []
        for runner in runners:
            assert runner.record is not None
            state = RunWatchState(commit_at_start=head_sha(ctx.repo))
            ours = own_paths(ctx.root, ctx.repo)
            recorded, outcomes, seconds = runner.record(ctx.root, ctx.repo)
            # What ran was the work tree: a map of changed files describes no commit and
            # never travels (``warpline sync``).
            recorded.dirty_paths = run_relevant_changes(ctx.repo, runner.run_input, ours)
            for test_id, outcome in outcomes.items():
                state.outcome(test_id, outcome)
            state.collected = len(outcomes)
            failed = sum(1 for o in outcomes.values() if o == "failed")
            receipt = write(ctx.root, ctx.repo, state, 1 if failed else 0, [], "", runner, ours)
            row = write_map(ctx.store, recorded)
            summaries.append({"runner": runner.name, "map_id": row.id,
                              "commit_sha": row.commit_sha, "source": row.source,
                              "tracer_version": row.tracer_version, "tests": row.test_count,
                              "failed": failed, "entities": row.entity_count,
                              "links": row.hit_count, "seconds": round(seconds, 1),
                              "receipt_id": receipt["id"], "clean": receipt["clean"],
                              "unmapped_files": row.unmapped_files})
    if args.json:
        emit_json({"maps": summaries})
    else:
        for found in summaries:
            emit_text(f"test map {found['map_id']} at {found['commit_sha'][:12]} "
                      f"({found['runner']}, {found['tracer_version']}): {found['tests']} "
                      f"tests, {found['failed']} failed, {found['entities']} entities, "
                      f"{found['links']} test-entity links, {found['seconds']} s; "
                      f"receipt {found['receipt_id']}"
                      + ("" if found["clean"] else " (the work tree differs from HEAD: the "
                         "run backs no pass)"))
    return EXIT_OK


def add_parsers(sub: Any, common: Callable[..., None]) -> None:
    p = sub.add_parser("import-coverage",
                       help="import a test map from a .coverage file recorded with "
                            "pytest --cov --cov-context=test")
    p.add_argument("coverage_file", help="the coverage.py data file (e.g. .coverage)")
    p.add_argument("--commit", default="HEAD", help="the commit the data was recorded at")
    p.add_argument("--runner", default="pytest",
                   help="the test runner whose coverage data it is (a row of "
                        "docs/runners.md; default: pytest)")
    p.add_argument("--rootdir", default="",
                   help="the pytest rootdir of the recording, relative to the repository "
                        "(default: the repository root)")
    common(p, listing=False)
    p.set_defaults(run=_import_coverage)
    r = sub.add_parser("record-tests",
                       help="record a test map by running the whole suite of the "
                            "repository's runner (Maven: JaCoCo per test)")
    r.add_argument("--runner", default=None,
                   help="the runner to record (a row of docs/runners.md with a recorder; "
                        "default: every such runner the repository uses)")
    common(r, listing=False)
    r.set_defaults(run=_record_tests)
