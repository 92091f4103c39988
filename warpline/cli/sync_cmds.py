"""``warpline sync [REMOTE]``: fetch, merge and push the verification notes ref."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warpline.cli.output import EXIT_OK, emit_json, emit_text


def _sync(args: argparse.Namespace) -> int:
    from warpline.service.admin.sync import sync
    from warpline.service.shared.context import open_repo_only

    root, repo = open_repo_only(args.repo, Path.cwd())
    report = sync(root, repo, args.remote, push=not args.no_push)
    if args.json:
        emit_json(report.to_dict())
        return EXIT_OK
    got = "fetched and merged" if report.merged else "nothing to fetch"
    sent = "pushed" if report.pushed else ("not pushed (--no-push)" if args.no_push
                                           else "nothing to push")
    emit_text(f"{report.notes_ref} with {report.remote}: {got}; {sent}")
    return EXIT_OK


def add_parsers(sub: Any, common: Callable[..., None]) -> None:
    p = sub.add_parser(
        "sync", help="exchange verification records (git notes) with a remote")
    p.add_argument("remote", nargs="?",
                   help="remote name, path or URL (default: the branch's upstream remote, "
                        "else origin)")
    p.add_argument("--no-push", action="store_true", help="only fetch and merge")
    common(p, listing=False)
    p.set_defaults(run=_sync)
