"""``warpline changed``, ``timeline`` and ``churn``: flags in, tool arguments out."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from warpline.cli.runner import ToolCommand, choices, grouped, listing, put, ref
from warpline.cli.views import changed_view, churn_view, timeline_view


def _changed(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": args.repo}
    put(out, "rev_range", args.rev_range)
    put(out, "base_ref", args.base)
    put(out, "head_ref", args.head)
    put(out, "include_worktree", args.worktree)
    put(out, "skip_cosmetic", args.skip_cosmetic)
    put(out, "filters", grouped(change_kinds=args.change_kind, entity_kinds=args.entity_kind,
                                paths=args.path, actors=args.actor, since=args.since,
                                until=args.until))
    put(out, "all_history", args.all)
    listing(args, out)
    return out  # no range: the tool answers for my work (service/shared/mywork.py)


def _timeline(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": args.repo}
    entity = None if args.entity is None else ref(args.entity, args.ref_kind)
    if isinstance(entity, str):
        out["entity"] = entity
    elif entity is not None:
        out["entity_ref"] = entity
    put(out, "filters", grouped(change_kinds=args.change_kind, since=args.since,
                                until=args.until))
    listing(args, out)
    return out


def _churn(args: argparse.Namespace) -> dict[str, Any]:
    refs = list(args.refs)
    if args.refs_file:
        text = Path(args.refs_file).read_text(encoding="utf-8")
        refs.extend(line.strip() for line in text.splitlines() if line.strip())
    out: dict[str, Any] = {"repo": args.repo,
                           "entity_refs": [ref(r, args.ref_kind) for r in refs]}
    put(out, "window", grouped(since=args.since, until=args.until, rev_range=args.range))
    put(out, "skip_cosmetic", args.skip_cosmetic)
    listing(args, out)
    return out


def _changed_flags(p: argparse.ArgumentParser) -> None:
    from warpline.models.vocab import ChangeKind, EntityKind

    p.add_argument("rev_range", nargs="?", help="A..B, or one rev for that one commit")
    p.add_argument("--base", help="base ref (with --head; instead of REV_RANGE)")
    p.add_argument("--head", help="head ref (default HEAD when --base is given)")
    p.add_argument("--worktree", action="store_true", help="add uncommitted changes")
    p.add_argument("--skip-cosmetic", action="store_true",
                   help="leave out cosmetic changes (comments, layout, docstrings)")
    p.add_argument("--all", action="store_true",
                   help="all recorded history (default without a range: my work, i.e. "
                        "uncommitted changes + commits not on the upstream)")
    p.add_argument("--change-kind", action="append", choices=choices(ChangeKind))
    p.add_argument("--entity-kind", action="append", choices=choices(EntityKind))
    p.add_argument("--path", action="append", help="path prefix (repeatable)")
    p.add_argument("--actor", action="append", help="author name, email or 'Name <email>'")
    p.add_argument("--since", help="ISO-8601 instant")
    p.add_argument("--until", help="ISO-8601 instant")


def _timeline_flags(p: argparse.ArgumentParser) -> None:
    from warpline.models.vocab import ChangeKind, EntityRefKind

    # Optional here: a missing entity is the tool's missing_required_field, as over MCP.
    p.add_argument("entity", nargs="?", help="locator, SEI, path, dotted qualname or key id")
    p.add_argument("--ref-kind", choices=choices(EntityRefKind))
    p.add_argument("--change-kind", action="append", choices=choices(ChangeKind))
    p.add_argument("--since")
    p.add_argument("--until")


def _churn_flags(p: argparse.ArgumentParser) -> None:
    from warpline.models.vocab import EntityRefKind

    p.add_argument("refs", nargs="*", help="entity refs")
    p.add_argument("--refs-file", help="a file with one ref per line")
    p.add_argument("--ref-kind", choices=choices(EntityRefKind))
    p.add_argument("--since")
    p.add_argument("--until")
    p.add_argument("--range", help="count only changes in this rev range")
    p.add_argument("--skip-cosmetic", action="store_true",
                   help="count no cosmetic changes (comments, layout, docstrings)")


COMMANDS: dict[str, ToolCommand] = {
    "warpline_change_list": ToolCommand(
        "entities changed in a revision range", _changed_flags, _changed, view=changed_view),
    "warpline_entity_timeline_get": ToolCommand(
        "one entity's change history", _timeline_flags, _timeline, view=timeline_view),
    "warpline_entity_churn_count_get": ToolCommand(
        "change counts per entity", _churn_flags, _churn, view=churn_view),
}
