"""``warpline import-coverage``: a test map from a coverage.py data file (per-test contexts)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warpline.cli.output import EXIT_OK, emit_json, emit_text


def _import_coverage(args: argparse.Namespace) -> int:
    from warpline.git.repo import resolve_commit
    from warpline.runners.pytest_covimport import import_coverage
    from warpline.service.shared.context import open_context

    data_file = Path(args.coverage_file).expanduser()
    if not data_file.is_absolute():
        data_file = Path.cwd() / data_file
    with open_context(args.repo, Path.cwd()) as ctx:
        commit = resolve_commit(ctx.repo, args.commit, field="commit")
        row = import_coverage(ctx, data_file, commit, args.rootdir)
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
    p.add_argument("--rootdir", default="",
                   help="the pytest rootdir of the recording, relative to the repository "
                        "(default: the repository root)")
    common(p, listing=False)
    p.set_defaults(run=_import_coverage)
