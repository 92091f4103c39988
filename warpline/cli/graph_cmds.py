"""``warpline capture-snapshot``, ``blast-radius`` and ``reverify``: flags in, tool
arguments out, envelopes rendered. Refs and rev ranges are accepted wherever key ids are."""

from __future__ import annotations

import argparse
from typing import Any

from warpline.cli.mywork import default_to_my_work
from warpline.cli.render import table
from warpline.cli.runner import ToolCommand, choices, integer, listing, put
from warpline.limits import DEFAULT_DEPTH, DEPTH_RANGE
from warpline.models.vocab import (
    CaptureMode,
    EdgeKind,
    EntityKind,
    EntityRefKind,
    GroupBy,
    Reason,
    VerificationState,
)


def _refs(values: list[str] | None, kind: str | None) -> list[Any] | None:
    if not values:
        return None
    return [v if kind in (None, "auto") else {"kind": kind, "value": v} for v in values]


def _capture(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": args.repo}
    put(out, "commit", args.commit)
    put(out, "mode", args.mode)
    put(out, "changed_refs", _refs(args.changed_ref, args.ref_kind))
    put(out, "dry_run", args.dry_run)
    put(out, "idempotency_key", args.idempotency_key)
    put(out, "if_stale_after", args.if_stale_after)
    put(out, "max_entities", args.max_entities)
    return out


def _seeded(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": args.repo}
    put(out, "rev_range", args.rev_range)
    put(out, "changed_refs", _refs(args.ref, args.ref_kind))
    put(out, "changed_entity_key_ids", args.key_id)
    put(out, "include_worktree", args.worktree)
    put(out, "depth", args.depth)
    default_to_my_work(args, out, "changed_refs", "changed_entity_key_ids")
    return out


def _filters(args: argparse.Namespace, extra: dict[str, Any]) -> dict[str, Any] | None:
    filters: dict[str, Any] = {}
    put(filters, "entity_kinds", args.entity_kind)
    put(filters, "paths", args.path)
    put(filters, "edge_kinds", args.edge_kind)
    for key, value in extra.items():
        put(filters, key, value)
    return filters or None


def _impact(args: argparse.Namespace) -> dict[str, Any]:
    out = _seeded(args)
    put(out, "filters", _filters(args, {}))
    listing(args, out)
    return out


def _reverify(args: argparse.Namespace) -> dict[str, Any]:
    out = _seeded(args)
    put(out, "filters", _filters(args, {"reasons": args.reason,
                                         "verification_states": args.verification_state}))
    listing(args, out)
    put(out, "group_by", args.group_by)
    put(out, "include_federation", args.federation)
    put(out, "verified_kinds", args.verified_kind)
    return out


def _seed_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("rev_range", nargs="?", help="A..B, or one rev for that one commit")
    p.add_argument("--ref", action="append",
                   help="a changed entity: locator, SEI, path, dotted qualname or key id")
    p.add_argument("--ref-kind", choices=choices(EntityRefKind), help="how to read every --ref")
    p.add_argument("--key-id", action="append", type=integer, help="a changed entity's key id")
    p.add_argument("--worktree", action="store_true", help="add uncommitted changes")
    p.add_argument("--depth", type=integer,
                   help=f"dependency hops, {DEPTH_RANGE} (default {DEFAULT_DEPTH})")
    p.add_argument("--entity-kind", action="append", choices=choices(EntityKind))
    p.add_argument("--path", action="append", help="list only entities under this path")
    p.add_argument("--edge-kind", action="append", choices=choices(EdgeKind),
                   help="follow only these edges")


def _capture_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--commit", help="commit to stamp (default HEAD)")
    p.add_argument("--mode", choices=choices(CaptureMode))
    p.add_argument("--changed-ref", action="append", help="for --mode changed_only")
    p.add_argument("--ref-kind", choices=choices(EntityRefKind))
    p.add_argument("--dry-run", action="store_true", help="report; write nothing")
    p.add_argument("--idempotency-key")
    p.add_argument("--if-stale-after", help="capture only if older than this instant")
    p.add_argument("--max-entities", type=integer)


def _reverify_flags(p: argparse.ArgumentParser) -> None:
    _seed_flags(p)
    p.add_argument("--reason", action="append", choices=choices(Reason))
    p.add_argument("--verification-state", action="append",
                   choices=choices(VerificationState))
    p.add_argument("--group-by", choices=choices(GroupBy))
    p.add_argument("--federation", action="store_true", help="read filigree work links")
    p.add_argument("--verified-kind", action="append",
                   help="verification kinds that count (default: all)")




# -- table views --------------------------------------------------------------------------

def _graph_line(data: dict[str, Any]) -> str:
    stale = data["staleness"]
    if stale["snapshot_commit"] is None:
        return f"graph: {data['completeness']} (no edge snapshot)"
    behind = stale["commits_behind"]
    where = "not an ancestor of HEAD" if behind is None else f"{behind} commits behind HEAD"
    dirty = f", {len(stale['dirty_paths'])} dirty graph files" if stale["dirty_paths"] else ""
    return (f"graph: {data['completeness']} snapshot {stale['snapshot_id']} at "
            f"{stale['snapshot_commit'][:10]} ({stale['snapshot_source']}), {where}{dirty}")


def _capture_view(env: dict[str, Any], width: int) -> list[str]:
    d = env["data"]
    ident = "dry run" if d["snapshot_id"] is None else f"snapshot {d['snapshot_id']}"
    lines = [f"{d['idempotency']}: {ident} at {d['commit_sha'][:10]} from {d['source']} "
             f"({d['source_version']}): {d['completeness']}, {d['entities']} entities, "
             f"{d['edges']} edges"]
    lines.extend(f"  failed: {f['locator']} ({f['reason']})" for f in d["failed_entities"][:20])
    return lines


def _impact_view(env: dict[str, Any], width: int) -> list[str]:
    d = env["data"]
    lines = [_graph_line(d), f"changed: {len(d['changed'])} entities"]
    rows = [(a["depth"], a["entity"]["locator"], a["seed"],
             " <- ".join(e["kind"] for e in a["via_edges"])) for a in d["affected"]]
    if rows:
        lines.append(table(("DEPTH", "AFFECTED", "SEED", "VIA"), rows, width=width))
    else:
        from warpline.cli.formats import affected_words

        lines.append(affected_words(d))
    lines.append(f"{len(d['affected'])} of {d['total']} affected entities")
    return lines


def _first_suggestion(item: dict[str, Any]) -> str:
    first = item["suggested_verification"][0] if item["suggested_verification"] else None
    if first is None:
        return "-"
    if first["kind"] == "test":
        return str(first["command"])
    if item.get("map_tests"):  # the map saw tests run it: not a blind spot
        return f"the test map: {item['map_tests']} tests"
    return "read: " + (", ".join(first["callers"][:3]) or "the change")


def _reverify_view(env: dict[str, Any], width: int) -> list[str]:
    d = env["data"]
    summary = d["verification_summary"]
    lines = [_graph_line(d), f"verification: {summary['fresh']} fresh, {summary['stale']} "
                             f"stale, {summary['unverified']} unverified"]
    from warpline.cli.formats import work_links

    linked = any(work_links(i) for i in d["items"])
    rows = [(i["reason"], i["depth"], i.get("nature"), i["entity"]["locator"],
             i["verification"]["state"],
             None if i["priority"] == "unknown" else i["priority"],  # said only when known
             *((work_links(i) or "-",) if linked else ()),
             _first_suggestion(i)) for i in d["items"]]
    if rows:
        head = ("REASON", "DEPTH", "NATURE", "ENTITY", "VERIFIED", "PRIORITY",
                *(("WORK",) if linked else ()), "CHECK")
        lines.append(table(head, rows, width=width))
    lines.append(f"{len(d['items'])} of {d['total']} worklist items")
    from warpline.cli.formats import selection_command

    lines.append(_selection_line(d.get("selection") or {}, selection_command(env) is not None))
    from warpline.cli.formats import co_change_lines

    lines += co_change_lines(d)
    return lines


def _selection_line(selection: dict[str, Any], runnable: bool) -> str:
    """The one selection in a line (its command is the first ``next:``)."""
    from warpline.cli.formats import selection_summary

    return "tests: " + selection_summary(selection, runnable)


COMMANDS: dict[str, ToolCommand] = {
    "warpline_edge_snapshot_capture": ToolCommand(
        "store a call/reference edge snapshot", _capture_flags, _capture, view=_capture_view,
        listing=False),
    "warpline_impact_radius_get": ToolCommand(
        "entities that depend on the changed ones", _seed_flags, _impact, view=_impact_view,
        formats=("mermaid", "dot")),
    "warpline_reverify_worklist_get": ToolCommand(
        "what to re-verify, with the tests to run", _reverify_flags, _reverify,
        view=_reverify_view, formats=("markdown", "pytest")),
}
