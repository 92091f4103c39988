"""``warpline record-tests`` and ``warpline run-tests``: runs warpline starts for a runner
without a plugin (``go test``), leaving a map and receipts (``service/testing/testruns``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warpline.cli.output import EXIT_OK, emit_json, emit_text

EXIT_TESTS_FAILED = 1


def _record(args: argparse.Namespace) -> int:
    from warpline.service.testing.testruns import record_tests

    found = record_tests(args.repo, Path.cwd(), args.runner, args.jobs)
    if args.json:
        emit_json(found)
    else:
        for row in found["records"]:
            emit_text(
                f"{row['runner']}: test map {row['map_id']} at {row['commit_sha'][:12]}: "
                f"{row['tests']} tests, {row['entities']} entities, {row['links']} "
                "test-entity links"
                + (f"; {len(row['failed_tests'])} tests failed" if row["failed_tests"] else "")
                + (f"; partial: {'; '.join(row['partial'])}" if row["partial"] else ""))
    return EXIT_OK if found["exit_status"] == 0 else EXIT_TESTS_FAILED


def _run(args: argparse.Namespace) -> int:
    from warpline.service.testing.testruns import run_tests

    found = run_tests(args.repo, Path.cwd(), args.select, args.runner)
    for note in found["notes"]:
        print(f"warpline: {note}", file=sys.stderr)
    if args.json:
        emit_json(found)
    else:
        for run in found["runs"]:
            if not run["ran"]:
                emit_text(f"{run['runner']}: nothing to run ({run['why']})")
                continue
            receipt = run["receipt"]
            emit_text(f"{run['runner']}: {run['why']}: {receipt['tests_run']} tests run, "
                      f"{receipt['tests_failed']} failed (exit status {run['exit_status']})")
    return EXIT_OK if found["exit_status"] == 0 else EXIT_TESTS_FAILED


def add_parsers(sub: Any, common: Callable[..., None]) -> None:
    p = sub.add_parser("record-tests",
                       help="run the whole suite under the runner's coverage and record a "
                            "test map (go test; pytest records with --warpline-record)")
    p.add_argument("--runner", default=None,
                   help="the runner (a row of docs/runners.md; default: every one the "
                        "repository uses that warpline can run)")
    p.add_argument("--jobs", type=int, default=2, help="tests run at once (default 2)")
    common(p, listing=False)
    p.set_defaults(run=_record)
    p = sub.add_parser("run-tests",
                       help="run the whole suite or warpline's selection with the repository's "
                            "runner, leaving a receipt `warpline ci --record` can rest on")
    p.add_argument("--select", nargs="?", const="", default=None, metavar="RANGE",
                   help="run only what reverify selects for RANGE (no value: the CI job's "
                        "range, else what changed), plus the working tree")
    p.add_argument("--runner", default=None,
                   help="the runner (default: every one the repository uses that warpline "
                        "can run)")
    common(p, listing=False)
    p.set_defaults(run=_run)
