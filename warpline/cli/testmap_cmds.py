"""``warpline import-coverage``: a test map from coverage data a runner's own tooling wrote
(pytest's: a coverage.py data file with per-test contexts), through the runner's row
(``import_map``, ``warpline.runners``)."""

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
