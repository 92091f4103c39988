"""``warpline backfill`` and ``warpline ingest-commit``: filling the store from git."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warpline.cli.output import EXIT_BAD_INPUT, EXIT_OK, emit_json, emit_text

# How long `warpline backfill` waits for a background ingest to let go of the lock; past
# it, it runs beside it (both converge: a commit is recorded once).
_WAIT_S = 24 * 3600.0


def _report_dict(report: Any, seconds: float, root: Path) -> dict[str, Any]:
    return {
        "repo": str(root),
        "commits_ingested": report.commits_ingested,
        "commits_skipped": report.commits_skipped,
        "events_written": report.events_written,
        "unparsed_files": report.unparsed_files,
        "unparsed_paths": list(report.unparsed_paths),
        "failures": [{"commit": sha, "error": err} for sha, err in report.failures],
        "commits_behind": report.commits_behind,
        "complete": report.complete,
        "stopped_by": report.stopped_by,
        "seconds": round(seconds, 3),
    }


def _print(summary: dict[str, Any], as_json: bool) -> int:
    if as_json:
        emit_json(summary)
    else:
        lines = [
            f"ingested {summary['commits_ingested']} commits "
            f"({summary['events_written']} change events, {summary['unparsed_files']} "
            f"unreadable source file versions) in {summary['seconds']:.1f}s"
            + (f"; {len(summary['failures'])} commits failed (see `warpline doctor`)"
               if summary["failures"] else "")]
        paths = summary["unparsed_paths"]
        if paths:
            shown = ", ".join(paths[:10])
            more = (f" and {len(paths) - 10} more (`--json` lists up to 100)"
                    if len(paths) > 10 else "")
            lines.append(f"unparsable (their definitions may be incomplete): {shown}{more}")
        emit_text("\n".join(lines))
    return EXIT_OK if not summary["failures"] else EXIT_BAD_INPUT


def _backfill(args: argparse.Namespace) -> int:
    from warpline.cli.progress import stderr_progress
    from warpline.ingest import lock as ingestlock
    from warpline.ingest.stopping import stop_on_signals
    from warpline.service.shared.context import catch_up, open_context

    started = time.perf_counter()
    with open_context(args.repo, Path.cwd()) as ctx:
        # A background backfill (a hook's, or the one a read tool left running) holds the
        # ingest lock: wait for it rather than walk the same commits beside it. Ctrl-C
        # ends the wait (signals stop the run only once it has the lock).
        if ingestlock.held(ctx.store.path.parent):
            print("warpline: a background backfill is running; waiting for it to finish",
                  file=sys.stderr, flush=True)
        with ingestlock.exclusive(ctx.root, _WAIT_S), stop_on_signals() as stop:
            report = catch_up(ctx, interactive=False, progress=stderr_progress("backfill"),
                              stop=stop, retry_failed=args.retry_failed)
            facts = _facts(ctx, stop, now=args.facts and report.complete)
            summary = _report_dict(report, time.perf_counter() - started, ctx.root)
            summary.update(facts)
            code = _print(summary, args.json)
        if summary["facts_pending"] and stop.signum is None:
            # What each change means is read at low priority after the events (answers
            # read what they show themselves): a detached pass, once the lock is free.
            from warpline.service.shared.background import continue_backfill

            continue_backfill(ctx.root, ctx.store.path.parent)
    if stop.signum is not None:  # stopped between two commits; the next run resumes
        print(f"warpline: stopped by {stop.name}; {report.commits_behind} commits left for "
              "the next `warpline backfill`", file=sys.stderr)
        return 128 + stop.signum
    return code


def _facts(ctx: Any, stop: Any, *, now: bool) -> dict[str, int]:
    """``--facts``: read what every stored change means now (else the background pass
    does); how many were read and how many are left."""
    from warpline.store.eventfacts import count_pending

    read = 0
    if now and count_pending(ctx.store):
        from warpline.ingest.facts import fill

        read = fill(ctx.store, ctx.repo, stop=stop).read
    return {"facts_read": read, "facts_pending": count_pending(ctx.store)}


def _ingest_commit(args: argparse.Namespace) -> int:
    from warpline.git.repo import resolve_commit
    from warpline.ingest.driver import Ingestor
    from warpline.service.shared.context import open_context

    started = time.perf_counter()
    with open_context(args.repo, Path.cwd(), prefer_read_only=False) as ctx:
        commit = resolve_commit(ctx.repo, args.rev, field="rev")
        report = Ingestor(ctx.store, ctx.repo).run([commit])
        return _print(_report_dict(report, time.perf_counter() - started, ctx.root), args.json)


def add_parsers(sub: Any, common: Callable[..., None]) -> None:
    p = sub.add_parser("backfill", help="ingest the history reachable from HEAD (resumable)")
    p.add_argument("--retry-failed", action="store_true",
                   help="read again the commits recorded as failed (skipped otherwise)")
    p.add_argument("--facts", action="store_true",
                   help="also read now what every change means (its nature); otherwise "
                        "a background pass reads it, and answers read what they show")
    common(p, listing=False)
    p.set_defaults(run=_backfill)
    p = sub.add_parser("ingest-commit",
                       help="ingest one commit (for scripts; the git hooks run hook-ingest)")
    p.add_argument("rev", nargs="?", default="HEAD")
    common(p, listing=False)
    p.set_defaults(run=_ingest_commit)
