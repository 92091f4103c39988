"""The one resolver for entity refs, used by every tool.

A ref is ``{kind, value}`` or a bare string (``kind: auto``). Kinds:
``auto | locator | sei | path | qualname | warpline_entity_key_id``. ``path`` means every
entity in that file; ``qualname`` is the dotted form (``demo.auth.Client.get``).
A well-formed ref that names nothing known resolves to no rows; that is not an error.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from warpline.errors import InvalidEntityRef, WarplineError
from warpline.models.vocab import EntityRefKind

REF_KINDS: tuple[str, ...] = get_args(EntityRefKind)
_LOCATOR = re.compile(r"^(core:file:|python:(module|class|function):)\S")
_SEI_PREFIX = "loomweave:eid:"
_CHUNK = 900


@dataclass(frozen=True, slots=True)
class EntityRow:
    id: int
    locator: str
    kind: str
    path: str
    sei: str | None
    lineage: int


@dataclass(frozen=True, slots=True)
class Ref:
    kind: str
    value: str

    def as_wire(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.value}


_COLUMNS = "id, locator, kind, path, sei, lineage"


def _row(raw: Sequence[Any]) -> EntityRow:
    return EntityRow(int(raw[0]), str(raw[1]), str(raw[2]), str(raw[3]),
                     None if raw[4] is None else str(raw[4]), int(raw[5]))


def parse_ref(raw: object, *, field: str,
              error: Callable[..., WarplineError] = InvalidEntityRef) -> Ref:
    """Validate one ref's shape; ``error`` is the class to raise (per calling field)."""
    value: Any
    if isinstance(raw, str):
        kind, value = "auto", raw
    elif hasattr(raw, "kind") and hasattr(raw, "value"):  # an already-validated EntityRef
        kind, value = str(raw.kind), raw.value
        if isinstance(value, int) and not isinstance(value, bool):
            value = str(value)
    elif isinstance(raw, dict):
        unknown = set(raw) - {"kind", "value"}
        if unknown:
            raise error(f"Unknown key(s) {sorted(unknown)} in an entity ref; use {{kind, value}}.",
                        field=field, value=raw)
        kind = str(raw.get("kind", "auto"))
        value = raw.get("value")
        if isinstance(value, int) and not isinstance(value, bool) \
                and kind == "warpline_entity_key_id":
            value = str(value)
    else:
        raise error("An entity ref is a string or an object {kind, value}.",
                    field=field, value=raw)
    if kind not in REF_KINDS:
        raise error(f"Unknown entity ref kind {kind!r}; use one of {', '.join(REF_KINDS)}.",
                    field=f"{field}.kind", value=kind)
    if not isinstance(value, str) or not value.strip():
        raise error("An entity ref needs a non-empty string `value`.",
                    field=f"{field}.value", value=value)
    value = value.strip()
    if kind == "auto":
        kind = classify(value)
    if kind == "warpline_entity_key_id" and not value.isdigit():
        raise error("A warpline_entity_key_id is a positive integer.",
                    field=f"{field}.value", value=value)
    if kind == "path":
        value = normalise_path(value)
    return Ref(kind, value)


def classify(value: str) -> str:
    """What an ``auto`` ref most plausibly is."""
    if value.startswith(_SEI_PREFIX):
        return "sei"
    if _LOCATOR.match(value):
        return "locator"
    if value.isdigit():
        return "warpline_entity_key_id"
    if "/" in value or "\\" in value or ("." in value and value.rsplit(".", 1)[1] in (
            "py", "pyi", "md", "txt", "toml", "cfg", "json", "yaml", "yml", "rs", "js", "ts")):
        return "path"
    return "qualname"


# A dotted qualname may name a function, a class or a module, most specific first.
QUALNAME_KINDS = ("function", "class", "module")


def qualname_locators(dotted: str) -> list[str]:
    """The locators a dotted qualname may mean (the one expansion every lookup uses)."""
    return [f"python:{kind}:{dotted}" for kind in QUALNAME_KINDS]


def normalise_path(value: str) -> str:
    path = value.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path.strip("/")


def resolve(conn: sqlite3.Connection, refs: Sequence[Ref]) -> list[list[EntityRow]]:
    """Rows for each ref, in ref order (batched: one query per kind per chunk)."""
    results: list[list[EntityRow]] = [[] for _ in refs]
    by_kind: dict[str, list[int]] = {}
    for index, ref in enumerate(refs):
        by_kind.setdefault(ref.kind, []).append(index)
    for kind, indexes in by_kind.items():
        if kind == "qualname":
            _resolve_qualnames(conn, refs, indexes, results)
            continue
        column = {"locator": "locator", "sei": "sei", "path": "path",
                  "warpline_entity_key_id": "id"}[kind]
        for start in range(0, len(indexes), _CHUNK):
            chunk = indexes[start : start + _CHUNK]
            keys = [sql_id(int(refs[i].value)) if column == "id" else refs[i].value
                    for i in chunk]
            marks = ",".join("?" * len(keys))
            hits: dict[object, list[EntityRow]] = {}
            for raw in conn.execute(
                    f"SELECT {_COLUMNS} FROM entities WHERE {column} IN ({marks}) ORDER BY id",
                    keys):
                row = _row(raw)
                hits.setdefault(getattr(row, column if column != "id" else "id"), []).append(row)
            for i in chunk:
                key: object = int(refs[i].value) if column == "id" else refs[i].value
                results[i] = hits.get(key, [])
    return results


def _resolve_qualnames(conn: sqlite3.Connection, refs: Sequence[Ref], indexes: list[int],
                       results: list[list[EntityRow]]) -> None:
    for i in indexes:
        candidates = qualname_locators(refs[i].value)
        rows = [_row(r) for r in conn.execute(
            f"SELECT {_COLUMNS} FROM entities WHERE locator IN (?, ?, ?) ORDER BY id",
            candidates)]
        results[i] = rows


_SQL_INT_MAX = 2**63 - 1


def sql_id(value: int) -> int:
    """A key id as an SQLite integer: one past SQLite's range (no row has it) becomes -1,
    which matches nothing, instead of an ``OverflowError`` in the driver."""
    return value if -_SQL_INT_MAX <= value <= _SQL_INT_MAX else -1


def entities_by_ids(conn: sqlite3.Connection, ids: Sequence[int]) -> dict[int, EntityRow]:
    out: dict[int, EntityRow] = {}
    unique = list(dict.fromkeys(sql_id(i) for i in ids))
    for start in range(0, len(unique), _CHUNK):
        chunk = unique[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for raw in conn.execute(f"SELECT {_COLUMNS} FROM entities WHERE id IN ({marks})", chunk):
            row = _row(raw)
            out[row.id] = row
    return out
