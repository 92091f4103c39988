"""Change events as items: filters parsed, rows shaped, notes worded (the SQL, with its
filters, sort and paging, is ``store.events``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from warpline.lang import read_only_as_files
from warpline.models.wire import language_fields
from warpline.service.shared.envelope import iso_z, parse_instant
from warpline.service.shared.nature import nature_of, unknown_note
from warpline.store.db import Store
from warpline.store.events import (
    Where,
    changed_entities_latest_first,
    unread_commits,
)
from warpline.store.pathprefixes import normalised


def where_from_filters(filters: Any) -> Where:
    """A tool's ``filters`` as the store's event filter (paths normalised, instants parsed)."""
    if filters is None:
        return Where()
    raw: dict[str, Any] = filters.model_dump(mode="json", exclude_none=True)
    return Where(
        change_kinds=list(raw.get("change_kinds") or []),
        entity_kinds=list(raw.get("entity_kinds") or []),
        paths=normalised(raw.get("paths") or []),
        actors=list(raw.get("actors") or []),
        since=parse_instant(raw["since"], "filters.since") if raw.get("since") else None,
        until=parse_instant(raw["until"], "filters.until") if raw.get("until") else None,
        echoed=raw,
    )


def item_from_row(row: Sequence[Any], doctests: bool = False) -> dict[str, Any]:
    return {
        "change_id": f"warpline:change:{row[0]}",
        "entity": {"locator": row[6], "sei": row[8], "warpline_entity_key_id": row[5],
                   "path": row[2], "kind": row[7], **language_fields(row[6], row[2])},
        "change_kind": row[1],
        "actor": f"{row[10]} <{row[11]}>",
        "commit": row[9],
        "changed_at": iso_z(row[4]),
        "previous_locator": row[3],
        "previous_path": row[12],
        "also_modified": bool(row[13]) if row[1] == "moved" else None,
        "origin": "commit",
        "nature": nature_of(row[7], row[1], row[14], row[15], row[16], doctests),
    }


def unknown_natures(items: Sequence[dict[str, Any]]) -> list[str]:
    """The note for definitions' events whose nature was never recorded."""
    return unknown_note(sum(1 for i in items if i["nature"] is None
                            and i["change_kind"] in ("modified", "moved")
                            and i["entity"]["kind"] != "file"))


def _sort_key(sort_by: str, item: dict[str, Any]) -> Any:
    value = {
        # Uncommitted changes are the newest of all.
        "changed_at": item["changed_at"] or "9999",
        "locator": item["entity"]["locator"],
        "path": item["entity"]["path"],
        "change_kind": item["change_kind"],
        "actor": item["actor"] or "",
    }[sort_by]
    return value or ""


def sort_items(items: list[dict[str, Any]], sort_by: str, order: str) -> list[dict[str, Any]]:
    return sorted(items, key=lambda item: _sort_key(sort_by, item), reverse=order == "desc")


def distinct_refs(
    store: Store, shas: Sequence[str] | None, where: Where,
    items: list[dict[str, Any]], bound: int,
) -> tuple[list[dict[str, str]], list[int], bool]:
    """Refs (SEI when known) and key ids of the distinct changed entities, at most
    ``bound`` of each, and whether that bound cut the list."""
    rows = changed_entities_latest_first(store, shas, where, bound + 1)
    refs: list[dict[str, str]] = [
        {"kind": "locator", "value": i["entity"]["locator"]}
        for i in items if i["origin"] == "worktree"
    ]
    seen = {r["value"] for r in refs}
    key_ids: list[int] = []
    for locator, sei, entity_id in rows:
        if locator in seen:
            continue
        seen.add(locator)
        key_ids.append(int(entity_id))
        refs.append({"kind": "sei", "value": sei} if sei else {"kind": "locator", "value": locator})
    return refs[:bound], key_ids[:bound], len(refs) > bound


_NOTE_LIMIT = 5


def unread_language_note(refs: Sequence[dict[str, str]]) -> list[str]:
    """Changed files in languages warpline does not read at entity level, in words: their
    file events are all an answer has (``warpline.lang.UNREAD_CODE``)."""
    paths = [r["value"].removeprefix("core:file:") for r in refs
             if r["kind"] == "locator" and r["value"].startswith("core:file:")]
    found = read_only_as_files(paths)
    if not found:
        return []
    parts = []
    for language, files in found.items():
        more = f" and {len(files) - _NOTE_LIMIT} more" if len(files) > _NOTE_LIMIT else ""
        parts.append(f"{language}: {', '.join(files[:_NOTE_LIMIT])}{more}")
    count = sum(len(files) for files in found.values())
    return [f"{count} changed files are in languages warpline reads only as files (their "
            "file events are recorded; changes of their functions and classes are unknown, "
            f"not absent): {'; '.join(parts)}."]
_LIMIT_WORDS = {
    "rename_limit": ("changed more files than rename detection examines "
                     "(WARPLINE_RENAME_LIMIT): some renames there are recorded as removed "
                     "plus added. Raise the limit and re-ingest to pair them"),
    "lineage_limit": ("had more removed and added definitions than lineage pairing compares: "
                      "some renamed or moved definitions there are recorded as removed plus "
                      "added"),
    "ingest_failed": ("could not be read (recorded as failed and skipped; `warpline doctor` "
                      "says why, `warpline backfill --retry-failed` tries again): their "
                      "changes are missing from this answer"),
}


def _languages(versions: list[str]) -> str:
    """``python 2, java 1``: the languages (their rows' names) of ``path@sha`` versions."""
    from warpline.lang import language_of

    counts: dict[str, int] = {}
    for version in versions:
        row = language_of(version.rsplit("@", 1)[0])
        name = "unknown language" if row is None else (row.label or row.name)
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{name} {n}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def range_notes(store: Store, shas: Sequence[str] | None) -> list[str]:
    """What the answer's commits could not fully read, in words: source file versions no
    parser could read (only their file events are recorded; each named with its
    language) and limits attribution hit."""
    unread: list[str] = []
    limited: dict[str, list[str]] = {}
    for sha, unparsed, limits in unread_commits(store, shas):
        unread.extend(f"{path}@{sha[:12]}" for path in unparsed)
        for name in limits:
            limited.setdefault(name, []).append(sha[:12])
    notes: list[str] = []
    if unread:
        more = f" and {len(unread) - _NOTE_LIMIT} more" if len(unread) > _NOTE_LIMIT else ""
        notes.append(f"{len(unread)} file versions in this range ({_languages(unread)}) could "
                     "not be read for definitions (only their file events are recorded, "
                     "entity changes there are unknown): "
                     f"{', '.join(unread[:_NOTE_LIMIT])}{more}.")
    for name, commits in sorted(limited.items()):
        words = _LIMIT_WORDS.get(name, f"hit the limit {name!r}")
        notes.append(f"{len(commits)} commits in this range {words}: "
                     f"{', '.join(commits[:_NOTE_LIMIT])}.")
    return notes
