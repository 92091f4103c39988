"""The CLI's subcommands: flags in, a tool's arguments out. No tool semantics live here."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warpline._version import __version__
from warpline.cli import EXIT_OK, emit_json, emit_text

Build = Callable[[argparse.Namespace], dict[str, Any]]


def _ref(value: str, kind: str | None) -> str | dict[str, str]:
    return value if kind in (None, "auto") else {"kind": kind, "value": value}


def _put(target: dict[str, Any], key: str, value: Any) -> None:
    """Only what the user said goes into the arguments (so the echo matches MCP's)."""
    if value is not None and value != [] and value is not False:
        target[key] = value


def _listing(args: argparse.Namespace, out: dict[str, Any]) -> None:
    _put(out, "sort_by", args.sort_by)
    _put(out, "sort_order", args.sort_order)
    _put(out, "limit", args.limit)
    _put(out, "cursor", args.cursor)


def _changed(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": args.repo}
    _put(out, "rev_range", args.rev_range)
    _put(out, "base_ref", args.base)
    _put(out, "head_ref", args.head)
    _put(out, "include_worktree", args.worktree)
    filters: dict[str, Any] = {}
    _put(filters, "change_kinds", args.change_kind)
    _put(filters, "entity_kinds", args.entity_kind)
    _put(filters, "paths", args.path)
    _put(filters, "actors", args.actor)
    _put(filters, "since", args.since)
    _put(filters, "until", args.until)
    _put(out, "filters", filters or None)
    _listing(args, out)
    return out


def _timeline(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": args.repo}
    ref = _ref(args.entity, args.ref_kind)
    if isinstance(ref, str):
        out["entity"] = ref
    else:
        out["entity_ref"] = ref
    filters: dict[str, Any] = {}
    _put(filters, "change_kinds", args.change_kind)
    _put(filters, "since", args.since)
    _put(filters, "until", args.until)
    _put(out, "filters", filters or None)
    _listing(args, out)
    return out


def _churn(args: argparse.Namespace) -> dict[str, Any]:
    refs = list(args.refs)
    if args.refs_file:
        text = Path(args.refs_file).read_text(encoding="utf-8")
        refs.extend(line.strip() for line in text.splitlines() if line.strip())
    out: dict[str, Any] = {"repo": args.repo,
                           "entity_refs": [_ref(r, args.ref_kind) for r in refs]}
    window: dict[str, Any] = {}
    _put(window, "since", args.since)
    _put(window, "until", args.until)
    _put(window, "rev_range", args.range)
    _put(out, "window", window or None)
    _listing(args, out)
    return out


def tool_runner(tool: str, build: Build) -> Callable[[argparse.Namespace], int]:
    """The one way a subcommand calls a tool: build arguments, call, print."""
    def run(args: argparse.Namespace) -> int:
        from warpline.cli.views import render
        from warpline.registry import call_tool

        result = call_tool(tool, build(args), cwd=Path.cwd())
        if args.json:
            emit_json(result)
        else:
            emit_text(render(tool, result))
        return EXIT_OK

    return run


def _common(p: argparse.ArgumentParser, listing: bool = True) -> None:
    p.add_argument("--repo", default=".", help="path of the git repository (default: .)")
    p.add_argument("--json", action="store_true", help="print the JSON envelope")
    if listing:
        p.add_argument("--sort-by", dest="sort_by")
        p.add_argument("--sort-order", dest="sort_order", choices=("asc", "desc"))
        p.add_argument("--limit", type=int)
        p.add_argument("--cursor", help="the next_cursor of a previous page")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="warpline",
        description="Which code entities changed, what depends on them, what to re-verify.")
    parser.add_argument("--version", action="version", version=f"warpline {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("changed", help="entities changed in a revision range")
    p.add_argument("rev_range", nargs="?", help="A..B, or one rev for that one commit")
    p.add_argument("--base", help="base ref (with --head; instead of REV_RANGE)")
    p.add_argument("--head", help="head ref (default HEAD when --base is given)")
    p.add_argument("--worktree", action="store_true", help="add uncommitted changes")
    p.add_argument("--change-kind", action="append", choices=("added", "modified", "removed",
                                                             "moved"))
    p.add_argument("--entity-kind", action="append",
                   choices=("file", "module", "class", "function"))
    p.add_argument("--path", action="append", help="path prefix (repeatable)")
    p.add_argument("--actor", action="append", help="author name, email or 'Name <email>'")
    p.add_argument("--since", help="ISO-8601 instant")
    p.add_argument("--until", help="ISO-8601 instant")
    _common(p)
    p.set_defaults(run=tool_runner("warpline_change_list", _changed))

    p = sub.add_parser("timeline", help="one entity's change history")
    p.add_argument("entity", help="locator, SEI, path, dotted qualname or key id")
    p.add_argument("--ref-kind", choices=("auto", "locator", "sei", "path", "qualname",
                                          "warpline_entity_key_id"))
    p.add_argument("--change-kind", action="append", choices=("added", "modified", "removed",
                                                             "moved"))
    p.add_argument("--since")
    p.add_argument("--until")
    _common(p)
    p.set_defaults(run=tool_runner("warpline_entity_timeline_get", _timeline))

    p = sub.add_parser("churn", help="change counts per entity")
    p.add_argument("refs", nargs="*", help="entity refs")
    p.add_argument("--refs-file", help="a file with one ref per line")
    p.add_argument("--ref-kind", choices=("auto", "locator", "sei", "path", "qualname",
                                          "warpline_entity_key_id"))
    p.add_argument("--since")
    p.add_argument("--until")
    p.add_argument("--range", help="count only changes in this rev range")
    _common(p)
    p.set_defaults(run=tool_runner("warpline_entity_churn_count_get", _churn))

    for name in _EXTENSIONS:
        module = importlib.import_module(name)
        module.add_parsers(sub, _common)
    return parser


# Subcommand groups beyond the history tools; each module offers
# ``add_parsers(subparsers, common)`` and keeps its own flags-to-arguments code.
_EXTENSIONS: tuple[str, ...] = (
    "warpline.cli.ingest",
    "warpline.cli.smoke",
    "warpline.cli.admin_cmds",
    "warpline.cli.graph_cmds",
    "warpline.cli.setup_cmds",
    "warpline.cli.testmap_cmds",
)
