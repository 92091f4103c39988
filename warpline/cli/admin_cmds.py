"""``warpline verify-record`` and ``warpline status``: flags in, tool arguments out."""

from __future__ import annotations

import argparse
from typing import Any

from warpline.cli.runner import ToolCommand, put


def _verify_record(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {"repo": args.repo}
    put(out, "commit", args.commit)
    put(out, "kind", args.kind)
    put(out, "actor", args.actor)
    return out


def _status(args: argparse.Namespace) -> dict[str, Any]:
    return {"repo": args.repo}


def _text(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _verify_view(env: dict[str, Any], width: int) -> list[str]:
    data = env["data"]
    verb = "recorded" if data["idempotency"] == "recorded" else "already recorded"
    actor = f" by {data['actor']}" if data["actor"] else ""
    return [f"{verb}: {data['kind']} at {data['commit_sha']}{actor} ({data['verified_at']})"]


def _status_view(env: dict[str, Any], width: int) -> list[str]:
    data = env["data"]
    store = data["store"]
    rows = [
        ("repository", data["resolved_root"]),
        ("store status", data["store_status"]),
        ("binding ok", data["binding_ok"]),
        ("schema version", f"{store['schema_version']} (this build serves up to "
                           f"{data['served_schema_version']})"),
        ("change events", store["change_event_count"]),
        ("commits behind HEAD", store["commits_behind_head"]),
        ("snapshot commit", store["snapshot_rev"]),
        ("history", "shallow (partial)" if data.get("shallow") else "complete"),
    ]
    label = max(len(name) for name, _ in rows)
    return [f"{name:<{label}}  {_text(value)}" for name, value in rows]


def _verify_flags(p: argparse.ArgumentParser) -> None:
    # Required by the tool, not the parser: a missing one is missing_required_field, as
    # over MCP.
    p.add_argument("--commit", help="commit ref (stored as its object id; required)")
    p.add_argument("--kind", help="label, e.g. test_pass, ci_pass, gate_pass (required)")
    p.add_argument("--actor", help="who recorded it, e.g. ci or a job id")


def _no_flags(p: argparse.ArgumentParser) -> None:
    pass


COMMANDS: dict[str, ToolCommand] = {
    "warpline_verification_record": ToolCommand(
        "record that a commit passed a verification (e.g. test_pass)", _verify_flags,
        _verify_record, view=_verify_view, listing=False),
    "warpline_project_status_get": ToolCommand(
        "read-only probe: can this build serve the repo's store?", _no_flags, _status,
        view=_status_view, listing=False),
}
