"""What a v1 contract promises, flattened: every property path and every enum value.

``python -m tests.contract_pin`` writes ``tests/pins/contracts-v1.json`` from the current
``contracts/``; do that only when adding to v1 (an additive change). The pin test fails
when a pinned path or enum value disappears, i.e. on any non-additive change.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CONTRACTS = ROOT / "contracts"
PIN = Path(__file__).resolve().parent / "pins" / "contracts-v1.json"

Promises = dict[str, dict[str, list[Any]]]  # file -> path -> enum values ([] = a field)


def _walk(node: Any, path: str, out: dict[str, list[Any]]) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item, path, out)
        return
    if not isinstance(node, dict):
        return
    if "enum" in node:
        out.setdefault(path, []).extend(v for v in node["enum"] if v not in out.get(path, []))
    if "const" in node:
        out.setdefault(path, [])
        if node["const"] not in out[path]:
            out[path].append(node["const"])
    for name, sub in (node.get("properties") or {}).items():
        out.setdefault(f"{path}.{name}", [])
        _walk(sub, f"{path}.{name}", out)
    for name, sub in (node.get("$defs") or {}).items():
        _walk(sub, f"$defs.{name}", out)
    for key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties"):
        if key in node:
            _walk(node[key], f"{path}[]" if key == "items" else path, out)


def promises(directory: Path = CONTRACTS) -> Promises:
    result: Promises = {}
    for path in sorted(directory.glob("*.json")):
        if path.name == "tools.json":
            continue
        flat: dict[str, list[Any]] = {}
        _walk(json.loads(path.read_text(encoding="utf-8")), "", flat)
        result[path.name] = {key: sorted(flat[key], key=json.dumps) for key in sorted(flat)}
    return result


def tool_promises(directory: Path = CONTRACTS) -> dict[str, dict[str, Any]]:
    tools = json.loads((directory / "tools.json").read_text(encoding="utf-8"))["tools"]
    return {row["endorsed"]: {k: row[k] for k in ("shim", "schema", "input_schema",
                                                   "output_schema")} for row in tools}


def broken(pinned: Promises, current: Promises) -> list[str]:
    """Every pinned promise the current contracts no longer keep."""
    problems = []
    for name, paths in pinned.items():
        now = current.get(name)
        if now is None:
            problems.append(f"{name}: the contract file is gone")
            continue
        for path, values in paths.items():
            if path not in now:
                problems.append(f"{name}: {path or '<root>'} was removed")
                continue
            problems.extend(f"{name}: {path}: enum value {v!r} was removed"
                            for v in values if v not in now[path])
    return problems


def main() -> int:
    PIN.parent.mkdir(exist_ok=True)
    PIN.write_text(json.dumps({"contracts": promises(), "tools": tool_promises()},
                              indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(PIN, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
