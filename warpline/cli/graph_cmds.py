"""``warpline capture-snapshot``, ``blast-radius`` and ``reverify``: flags in, tool
arguments out, envelopes rendered. Refs and rev ranges are accepted wherever key ids are."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from warpline.cli import EXIT_OK, emit_json, emit_text
from warpline.cli.commands import tool_runner
from warpline.cli.render import table
from warpline.cli.views import register

_REF_KINDS = ("auto", "locator", "sei", "path", "qualname", "warpline_entity_key_id")
_ENTITY_KINDS = ("file", "module", "class", "function")


def _put(target: dict[str, Any], key: str, value: Any) -> None:
    """Only what the user said goes into the arguments (so the echo matches MCP's)."""
    if value is not None and value != [] and value is not False:
        target[key] = value


def _refs(values: list[str] | None, kind: str | None) -> list[Any] | None:
    if not values:
        return None
    return [v if kind in (None, "auto") else {"kind": kind, "value": v} for v in values]


def _capture(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": args.repo}
    _put(out, "commit", args.commit)
    _put(out, "mode", args.mode)
    _put(out, "changed_refs", _refs(args.changed_ref, args.ref_kind))
    _put(out, "dry_run", args.dry_run)
    _put(out, "idempotency_key", args.idempotency_key)
    _put(out, "if_stale_after", args.if_stale_after)
    _put(out, "max_entities", args.max_entities)
    return out


def _seeded(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": args.repo}
    _put(out, "rev_range", args.rev_range)
    _put(out, "changed_refs", _refs(args.ref, args.ref_kind))
    _put(out, "changed_entity_key_ids", args.key_id)
    _put(out, "include_worktree", args.worktree)
    _put(out, "depth", args.depth)
    return out


def _filters(args: argparse.Namespace, extra: dict[str, Any]) -> dict[str, Any] | None:
    filters: dict[str, Any] = {}
    _put(filters, "entity_kinds", args.entity_kind)
    _put(filters, "paths", args.path)
    _put(filters, "edge_kinds", args.edge_kind)
    for key, value in extra.items():
        _put(filters, key, value)
    return filters or None


def _listing(args: argparse.Namespace, out: dict[str, Any]) -> None:
    _put(out, "sort_by", args.sort_by)
    _put(out, "sort_order", args.sort_order)
    _put(out, "limit", args.limit)
    _put(out, "cursor", args.cursor)


def _impact(args: argparse.Namespace) -> dict[str, Any]:
    out = _seeded(args)
    _put(out, "filters", _filters(args, {}))
    _listing(args, out)
    return out


def _reverify(args: argparse.Namespace) -> dict[str, Any]:
    out = _seeded(args)
    _put(out, "filters", _filters(args, {"reasons": args.reason,
                                         "verification_states": args.verification_state}))
    _listing(args, out)
    _put(out, "group_by", args.group_by)
    _put(out, "include_federation", args.federation)
    _put(out, "verified_kinds", args.verified_kind)
    return out


def formatted_runner(tool: str, build: Callable[[argparse.Namespace], dict[str, Any]]
                     ) -> Callable[[argparse.Namespace], int]:
    """``tool_runner`` plus ``--format``: table (the view), json, or a format of
    ``warpline.cli.formats``."""
    plain = tool_runner(tool, build)

    def run(args: argparse.Namespace) -> int:
        fmt = getattr(args, "format", None)
        if args.json or fmt in (None, "table"):
            return plain(args)
        from warpline.registry import call_tool

        result = call_tool(tool, build(args), cwd=Path.cwd())
        if fmt == "json":
            emit_json(result)
        else:
            from warpline.cli.formats import render_format

            emit_text(render_format(tool, result, fmt))
        return EXIT_OK

    return run


def _seed_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("rev_range", nargs="?", help="A..B, or one rev for that one commit")
    p.add_argument("--ref", action="append",
                   help="a changed entity: locator, SEI, path, dotted qualname or key id")
    p.add_argument("--ref-kind", choices=_REF_KINDS, help="how to read every --ref")
    p.add_argument("--key-id", action="append", type=int, help="a changed entity's key id")
    p.add_argument("--worktree", action="store_true", help="add uncommitted changes")
    p.add_argument("--depth", type=int, help="dependency hops, 0-5 (default 2)")
    p.add_argument("--entity-kind", action="append", choices=_ENTITY_KINDS)
    p.add_argument("--path", action="append", help="list only entities under this path")
    p.add_argument("--edge-kind", action="append", choices=("calls", "references"),
                   help="follow only these edges")


def add_parsers(sub: Any, common: Callable[..., None]) -> None:
    p = sub.add_parser("capture-snapshot", help="store a call/reference edge snapshot")
    p.add_argument("--commit", help="commit to stamp (default HEAD)")
    p.add_argument("--mode", choices=("full", "changed_only"))
    p.add_argument("--changed-ref", action="append", help="for --mode changed_only")
    p.add_argument("--ref-kind", choices=_REF_KINDS)
    p.add_argument("--dry-run", action="store_true", help="report; write nothing")
    p.add_argument("--idempotency-key")
    p.add_argument("--if-stale-after", help="capture only if older than this instant")
    p.add_argument("--max-entities", type=int)
    common(p, listing=False)
    p.set_defaults(run=tool_runner("warpline_edge_snapshot_capture", _capture))

    p = sub.add_parser("blast-radius", help="entities that depend on the changed ones")
    _seed_flags(p)
    p.add_argument("--format", choices=("table", "json", "mermaid", "dot"))
    common(p)
    p.set_defaults(run=formatted_runner("warpline_impact_radius_get", _impact))

    p = sub.add_parser("reverify", help="what to re-verify, with the tests to run")
    _seed_flags(p)
    p.add_argument("--reason", action="append", choices=("changed", "downstream"))
    p.add_argument("--verification-state", action="append",
                   choices=("fresh", "stale", "unverified"))
    p.add_argument("--group-by", choices=("entity", "file", "reason", "none"))
    p.add_argument("--federation", action="store_true", help="read filigree work links")
    p.add_argument("--verified-kind", action="append",
                   help="verification kinds that count (default: all)")
    p.add_argument("--format", choices=("table", "json", "markdown", "pytest"),
                   help="pytest: print only the test command")
    common(p)
    p.set_defaults(run=formatted_runner("warpline_reverify_worklist_get", _reverify))


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
    elif d["completeness"] in ("NO_SNAPSHOT", "SKIPPED"):
        lines.append("affected: unknown (no graph)")
    else:
        lines.append("affected: none within the depth")
    lines.append(f"{len(d['affected'])} of {d['total']} affected entities")
    return lines


def _first_suggestion(item: dict[str, Any]) -> str:
    first = item["suggested_verification"][0] if item["suggested_verification"] else None
    if first is None:
        return "-"
    if first["kind"] == "test":
        return str(first["command"])
    return "read: " + (", ".join(first["callers"][:3]) or "the change")


def _reverify_view(env: dict[str, Any], width: int) -> list[str]:
    d = env["data"]
    summary = d["verification_summary"]
    lines = [_graph_line(d), f"verification: {summary['fresh']} fresh, {summary['stale']} "
                             f"stale, {summary['unverified']} unverified"]
    rows = [(i["reason"], i["depth"], i["entity"]["locator"], i["verification"]["state"],
             i["priority"], _first_suggestion(i)) for i in d["items"]]
    if rows:
        lines.append(table(("REASON", "DEPTH", "ENTITY", "VERIFIED", "PRIORITY", "CHECK"),
                           rows, width=width))
    lines.append(f"{len(d['items'])} of {d['total']} worklist items")
    return lines


register("warpline_edge_snapshot_capture", _capture_view)
register("warpline_impact_radius_get", _impact_view)
register("warpline_reverify_worklist_get", _reverify_view)
