"""A ready-to-call tool action (``next_actions.tools``) as a command a shell user can type.

``{"tool": "warpline_reverify_worklist_get", "arguments": {"repo": R, "rev_range": "A..B",
"depth": 2}}`` prints as ``warpline reverify A..B --depth 2 --repo R`` (the command is the
tool row's ``cli_command``; actions name tools by their endorsed names). An argument this
table does not know makes the action print as the tool name with its JSON arguments, so
nothing is silently dropped.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from warpline.registry import lookup

_POSITIONAL = ("rev_range", "entity")
_SCALAR_FLAGS = {"depth": "--depth", "commit": "--commit", "kind": "--kind",
                 "actor": "--actor", "limit": "--limit", "mode": "--mode",
                 "cursor": "--cursor", "sort_by": "--sort-by", "sort_order": "--sort-order",
                 "group_by": "--group-by"}


def _refs(value: Any) -> list[str] | None:
    out: list[str] = []
    for ref in value if isinstance(value, list) else []:
        if isinstance(ref, str):
            out += ["--ref", ref]
        elif isinstance(ref, dict) and isinstance(ref.get("value"), str):
            kind = ref.get("kind")
            out += ["--ref", ref["value"] if kind in (None, "auto", "locator")
                    else f"{ref['value']}"]
        else:
            return None
    return out


def shell_command(tool: str, arguments: dict[str, Any]) -> str:
    spec = lookup(tool)
    words = ["warpline", spec.cli_command] if spec is not None and spec.endorsed == tool \
        else None
    for key, value in arguments.items():
        if words is None:
            break
        if key in _POSITIONAL and isinstance(value, str):
            words.insert(2, value)
        elif key == "repo" and isinstance(value, str):
            continue
        elif key in _SCALAR_FLAGS and isinstance(value, str | int):
            words += [_SCALAR_FLAGS[key], str(value)]
        elif key == "include_worktree":
            words += ["--worktree"] if value else []
        elif key == "changed_entity_key_ids" and isinstance(value, list):
            for key_id in value:
                words += ["--key-id", str(key_id)]
        elif key == "changed_refs":
            refs = _refs(value)
            words = None if refs is None else words + refs
        else:
            words = None
    if words is None:
        return f"{tool} {json.dumps(arguments, sort_keys=True)}"
    if isinstance(arguments.get("repo"), str):
        words += ["--repo", arguments["repo"]]
    return shlex.join(words)
