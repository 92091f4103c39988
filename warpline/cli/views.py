"""Pure renderings of envelopes for people: the footer every view shares and the history
tools' views. Each tool's view is named by its ``ToolCommand`` (``warpline.cli.runner``)."""

from __future__ import annotations

import shlex
from typing import Any

from warpline.cli.next_cmd import shell_command
from warpline.cli.render import person, table, terminal_width, when
from warpline.cli.runner import View

Env = dict[str, Any]


def _short(sha: str | None) -> str:
    return sha[:10] if sha else "(worktree)"


def _footer(env: Env, argv: list[str] | None = None) -> list[str]:
    lines = [f"warning: {w}" for w in env.get("warnings", [])]
    page = env["data"].get("page") or {}
    if page.get("has_more"):
        lines.append(f"more: {next_page(argv, page['next_cursor'])}")
    for action in env.get("next_actions", {}).get("commands", []):
        lines.append(f"next: {action['command']}  ({action['why']})")
    for action in env.get("next_actions", {}).get("tools", []):
        command = shell_command(action["tool"], action.get("arguments") or {})
        lines.append(f"next: {command}  ({action['why']})")
    return lines


def _kind(item: dict[str, Any]) -> str:
    """``moved+modified`` for a moved entity whose own text changed too."""
    return "moved+modified" if item.get("also_modified") else str(item["change_kind"])


def changed_view(env: Env, width: int) -> list[str]:
    items = env["data"]["items"]
    if not items:
        return ["no changes recorded for this query"]
    rows = [(_kind(i), i["entity"]["kind"], i.get("nature"), i["entity"]["locator"],
             _short(i["commit"]), when(i["changed_at"]), person(i["actor"])) for i in items]
    total = env["data"].get("total", len(items))
    return [table(("CHANGE", "KIND", "NATURE", "ENTITY", "COMMIT", "WHEN", "ACTOR"), rows,
                  width=width), f"{len(items)} of {total} change events"]


def timeline_view(env: Env, width: int) -> list[str]:
    entity = env["data"]["entity"]
    if entity.get("warpline_entity_key_id") is None:  # unknown: the warning says more
        asked = env["query"]["arguments"].get("entity") or env["query"]["arguments"].get(
            "entity_ref", {}).get("value")
        return [f"no entity named {asked!r}"]
    head = f"{entity.get('locator') or entity.get('sei')}  (sei: {entity.get('sei') or '-'})"
    items = env["data"]["items"]
    rows = [(when(i["changed_at"]), _kind(i), i.get("nature"), _short(i["commit"]),
             person(i["actor"]), i["path"]) for i in items]
    body = table(("WHEN", "CHANGE", "NATURE", "COMMIT", "ACTOR", "PATH"), rows, width=width) \
        if rows else "no recorded changes"
    return [head, body]


def churn_view(env: Env, width: int) -> list[str]:
    rows = [(i["churn_count"] if i.get("observed", True) else "unknown",
             i["entity"]["locator"] or i["ref"]["value"], i["entity"]["sei"],
             when(i["last_changed_at"]), person(i["last_actor"])) for i in env["data"]["items"]]
    unknown = sum(1 for i in env["data"]["items"] if not i.get("observed", True))
    lines = [table(("CHURN", "ENTITY", "SEI", "LAST CHANGED", "LAST ACTOR"), rows, width=width)]
    if unknown:  # never a plain 0: nothing is known of them (the warnings name close ones)
        lines.append(f"{unknown} of {len(rows)} names unknown to this repository's history")
    return lines


def next_page(argv: list[str] | None, cursor: str) -> str:
    """The command that printed this page, with the next page's cursor: runnable as
    printed (without the command, only the flag to add)."""
    if argv is None:
        return f"--cursor {cursor}"
    words, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word == "--cursor":
            skip = True
        elif not word.startswith("--cursor="):
            words.append(word)
    return shlex.join(["warpline", *words, "--cursor", cursor])


def render(view: View, env: Env, argv: list[str] | None = None) -> str:
    import sys

    width = terminal_width(sys.stdout.isatty())
    return "\n".join([*view(env, width), *_footer(env, argv)])
