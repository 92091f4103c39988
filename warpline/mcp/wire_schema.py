"""What ``tools/list`` sends of a contract: the least that says how to call and read a tool.

The contracts in ``contracts/`` stay whole and frozen (every answer is validated against
them in the tests); the listing carries a *wire form* derived from them, here:

* ``call_schema``: the input schema with what pydantic writes for itself and an agent does
  not need removed — ``title``, ``$id``/``$schema``, a ``null`` branch whose default is
  ``null`` (leaving the argument out says the same), ``default: null``. Every property,
  type, enum, bound, ``required`` and ``additionalProperties`` stays, so an argument the
  wire form accepts the contract accepts (``tests/test_mcp_listing.py``).
* ``outline``: the envelope's ``data`` as one line of field names (``items[{entity,
  change_kind, …}], total, page``), no types: the answer is self-describing JSON and its
  full schema is the contract named in ``_meta``.
"""

from __future__ import annotations

from typing import Any

_DROP = frozenset({"title", "$id", "$schema"})
# Maps whose keys are names (a property called ``title`` is kept).
_NAMED = frozenset({"properties", "$defs", "patternProperties"})
# How deep an outline names fields (data's own, then an item's, then an item's item's).
_OUTLINE_DEPTH = 1


# Arguments several tools share, described once (``SHARED_ARGUMENTS``, in the server's
# instructions) instead of in every tool's schema.
SHARED_ARGUMENTS: dict[str, str] = {
    "repo": "path of the git repository (relative to the server's working directory)",
    "rev_range": "a git range A..B (B's commits not in A); one rev = that commit",
    "include_worktree": "also count uncommitted changes against HEAD",
    "cursor": "the previous answer's data.page.next_cursor",
    "limit": "page size",
}
# A ref anywhere: ``{kind, value}`` or a bare string (kind auto), said once too.
REF_NOTE = ("an entity ref (a seed, an entity to count) is a string (a locator, SEI, path "
            "or dotted name) or {kind, value}; an instant is ISO-8601 (2026-06-25T10:00:00Z) "
            "or a date")


def call_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The contract's input schema in its wire form (a new object; the contract is kept)."""
    out = _strip(schema)
    assert isinstance(out, dict)
    for name, prop in out.get("properties", {}).items():
        if name in SHARED_ARGUMENTS and isinstance(prop, dict):
            prop.pop("description", None)
    _drop_said_once(out)
    return out


# Descriptions the instructions say once (by their opening words in the contracts).
_SAID_ONCE = ("ISO-8601 instant", "The locator, SEI, path, qualname or key id",
              "An input reference to an entity", "Seed entities as {kind, value}")


def _drop_said_once(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _drop_said_once(item)
    elif isinstance(node, dict):
        text = node.get("description")
        if isinstance(text, str) and text.startswith(_SAID_ONCE):
            del node["description"]
        for value in node.values():
            _drop_said_once(value)


def shared_arguments() -> str:
    """The shared arguments' meaning, one sentence."""
    said = "; ".join(f"`{name}`: {text}" for name, text in SHARED_ARGUMENTS.items())
    return f"Arguments every tool reads alike: {said}; {REF_NOTE}."


def _strip(node: Any) -> Any:
    if isinstance(node, list):
        return [_strip(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    branches = node.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches \
            and "default" in node and node["default"] is None:
        rest = [b for b in branches if b != {"type": "null"}]
        if len(rest) == 1:  # X | None = None: leaving it out says "none"
            outer = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
            stripped = _strip(outer)
            assert isinstance(stripped, dict)
            return {**_strip(rest[0]), **stripped}
    for key, value in node.items():
        if key in _DROP or (key == "default" and value is None):
            continue
        if key in _NAMED and isinstance(value, dict):  # names, not keywords: keep them all
            out[key] = {name: _strip(sub) for name, sub in value.items()}
        elif key in ("enum", "const", "required", "default"):
            out[key] = value
        else:
            out[key] = _strip(value)
    return out


# Shapes several answers share: an outline names them (``ingest:IngestStatus``) and
# ``shared_shapes`` spells each out once (the server's instructions carry it).
SHARED = ("EntityOut", "IngestStatus", "Page", "Staleness", "EdgeBasis", "ViaEdge")


def outline(schema: dict[str, Any]) -> str:
    """``data``'s fields as one line, from an envelope contract (``$ref``s followed)."""
    defs = schema.get("$defs", {})
    data = _resolve(schema.get("properties", {}).get("data", {}), defs)
    return _fields(data, defs, 0, named=True)


def shared_shapes(schemas: list[dict[str, Any]]) -> str:
    """Each shared shape once: ``EntityOut{kind, locator, …}; IngestStatus{…}``."""
    found: dict[str, str] = {}
    for schema in schemas:
        defs = schema.get("$defs", {})
        for name in SHARED:
            if name in defs and name not in found:
                found[name] = _fields(defs[name], defs, 0, named=False)
    return "; ".join(f"{name}{{{found[name]}}}" for name in SHARED if name in found)


def _shared_name(node: dict[str, Any]) -> str | None:
    branches = [b for b in node.get("anyOf", []) if b != {"type": "null"}]
    ref = (branches[0] if len(branches) == 1 else node).get("$ref")
    name = ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None
    return name if name in SHARED else None


def _resolve(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    for _ in range(16):
        if "$ref" in node:
            node = defs.get(node["$ref"].rsplit("/", 1)[-1], {})
            continue
        branches = [b for b in node.get("anyOf", []) if b != {"type": "null"}]
        if len(branches) != 1:
            break
        node = branches[0]
    return node


def _fields(node: dict[str, Any], defs: dict[str, Any], depth: int, *, named: bool) -> str:
    props = node.get("properties")
    if not isinstance(props, dict) or not props:
        return ""
    parts = []
    for name, raw in props.items():
        sub = _resolve(raw, defs)
        is_array = sub.get("type") == "array"
        inner_raw = sub.get("items", {}) if is_array else raw
        shared = _shared_name(inner_raw) if named else None
        if shared is not None:
            parts.append(f"{name}:{shared}[]" if is_array else f"{name}:{shared}")
            continue
        inner = ""
        if depth < _OUTLINE_DEPTH:
            target = _resolve(inner_raw, defs) if is_array else sub
            body = _fields(target, defs, depth + 1, named=named)
            inner = f"{{{body}}}" if body else ""
        parts.append(name + (f"[{inner}]" if is_array else inner))
    return ", ".join(parts)
