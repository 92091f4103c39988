"""``warpline install``, ``doctor``, ``session-context`` and the hooks' ``hook-ingest``.

Flags in, a ``warpline.setup`` call, a table (or ``--json``) out. Exit codes: install 0
when every component is in place, 1 on a conflict or failure; doctor 0 only when every
required check passes, else 1; session-context and hook-ingest always 0.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from warpline.cli.output import EXIT_BAD_INPUT, EXIT_OK, emit_json, emit_text
from warpline.cli.render import table, terminal_width, use_color

_COMPONENT_HELP = {
    "ignore": "add /.weft/ to git's exclude file",
    "config": "write .weft/warpline/config.json",
    "mcp": "register warpline-mcp in the repository's .mcp.json (implies --config)",
    "hooks": "install the post-commit, post-merge and post-rewrite hooks (implies --config)",
}
_PAINT = {"ok": "32", "created": "32", "updated": "32", "warn": "33", "fail": "31",
          "failed": "31", "conflict": "31"}


def _install(args: argparse.Namespace) -> int:
    from warpline.cli.progress import stderr_progress
    from warpline.setup.install import install

    report = install(args.repo, Path.cwd(), components=args.components or (),
                     backfill=not args.no_backfill, progress=stderr_progress("backfill"),
                     shared_mcp=args.shared_mcp)
    if args.json:
        emit_json(report.to_dict())
    else:
        rows = [(a.result, a.component, _relative(a.target, report.repo), a.detail)
                for a in report.actions]
        counts = _tally(a.result for a in report.actions)
        verdict = "nothing changed" if not report.changed else counts
        emit_text("\n".join([f"warpline install: {report.repo}",
                             _table(("RESULT", "COMPONENT", "TARGET", "DETAIL"), rows),
                             f"{verdict}" + ("" if report.ok else
                                             "; fix the conflicts above and rerun install")]))
    return EXIT_OK if report.ok else EXIT_BAD_INPUT


def _doctor(args: argparse.Namespace) -> int:
    from warpline.setup.doctor import run_doctor

    report = run_doctor(args.repo, Path.cwd(), fix=args.fix)
    if args.json:
        emit_json(report.to_dict())
        return EXIT_OK if report.ok else EXIT_BAD_INPUT
    rows = [(c.status, c.name, c.detail) for c in report.checks]
    lines = [f"warpline doctor: {report.repo}", _table(("STATUS", "CHECK", "DETAIL"), rows)]
    if report.fixed:
        lines.append("fixed:")
        lines.extend(f"  {a.result} {a.component}: {_relative(a.target, report.repo)}"
                     + (f" ({a.detail})" if a.detail else "") for a in report.fixed)
    fixes = [c for c in report.checks if c.fix and c.status in ("fail", "warn")]
    lines.extend(f"fix {c.name}: {c.fix}" for c in fixes)
    failed = sum(1 for c in report.checks if c.required and c.status == "fail")
    lines.append("healthy" if report.ok else
                 f"{failed} required check{'s' if failed != 1 else ''} failed"
                 + ("" if args.fix else "; `warpline doctor --fix` repairs what it can"))
    emit_text("\n".join(lines))
    return EXIT_OK if report.ok else EXIT_BAD_INPUT


def _session_context(args: argparse.Namespace) -> int:
    from warpline.setup.session import session_context

    context = session_context(args.repo, Path.cwd())
    if args.json:
        emit_json(context)
    else:
        emit_text(context["line"])
    return EXIT_OK


def _hook_ingest(args: argparse.Namespace) -> int:
    from warpline.setup.hook_runner import hook_ingest

    return hook_ingest(args.repo, args.hook)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table whose first column (a status word) is coloured on a colour terminal."""
    tty = sys.stdout.isatty()
    text = table(headers, rows, width=terminal_width(tty))
    if not use_color(tty):
        return text
    lines = text.split("\n")
    for index, row in enumerate(rows, start=2):
        code = _PAINT.get(row[0])
        if code and lines[index].startswith(row[0]):
            lines[index] = f"\x1b[{code}m{row[0]}\x1b[0m{lines[index][len(row[0]):]}"
    return "\n".join(lines)


def _relative(target: str, root: Path) -> str:
    path = Path(target)
    return str(path.relative_to(root)) if path.is_relative_to(root) else target


def _tally(results: Any) -> str:
    counts: dict[str, int] = {}
    for result in results:
        counts[result] = counts.get(result, 0) + 1
    return ", ".join(f"{n} {result}" for result, n in counts.items())


def add_parsers(sub: Any, common: Callable[..., None]) -> None:
    p = sub.add_parser("install", help="wire warpline into a repository (MCP entry, git hooks, "
                       "ignore rules, config, first backfill); safe to rerun")
    for name in _COMPONENT_HELP:  # the order of warpline.setup.install.COMPONENTS
        p.add_argument(f"--{name}", dest="components", action="append_const", const=name,
                       help=f"only this component (combinable): {_COMPONENT_HELP[name]}")
    p.add_argument("--no-backfill", action="store_true", help="skip the first backfill")
    p.add_argument("--shared-mcp", action="store_true", help="also add the warpline entry "
                   "to a .mcp.json git tracks (the team's file; left alone without this)")
    common(p, listing=False)
    p.set_defaults(run=_install, components=None)

    p = sub.add_parser("doctor", help="check that hooks, MCP server and store work; exit 0 "
                       "only when healthy")
    p.add_argument("--fix", action="store_true", help="repair what can be repaired, then "
                   "check again")
    common(p, listing=False)
    p.set_defaults(run=_doctor)

    p = sub.add_parser("session-context", help="one line of state for an agent's session "
                       "start (never fails, never writes)")
    common(p, listing=False)
    p.set_defaults(run=_session_context)

    p = sub.add_parser("hook-ingest", help="(run by the git hooks, detached) catch the store "
                       "up to HEAD; always exits 0")
    p.add_argument("--hook", default="manual", help="which hook started it (for the log)")
    common(p, listing=False)
    p.set_defaults(run=_hook_ingest)
