"""The one resolver for entity refs, used by every tool.

A ref is ``{kind, value}`` or a bare string (``kind: auto``). Kinds:
``auto | locator | sei | path | qualname | warpline_entity_key_id``. ``path`` means every
entity in that file; ``qualname`` is the dotted form (``demo.auth.Client.get``).
A well-formed ref that names nothing known resolves to no rows; that is not an error.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from warpline.errors import InvalidEntityRef, WarplineError
from warpline.lang import LANGUAGES, LOCATOR_HEAD
from warpline.models.vocab import EntityRefKind
from warpline.store.db import Store
from warpline.store.entities import Column, EntityRow, rows_by

REF_KINDS: tuple[str, ...] = get_args(EntityRefKind)
_LOCATOR = re.compile(rf"^(?:{LOCATOR_HEAD})\S")
# A locator with nothing to strip (what ``parse_ref`` of an ``auto`` string gives as is).
_PLAIN_LOCATOR = re.compile(rf"(?:{LOCATOR_HEAD})\S(?:.*\S)?\Z", re.DOTALL)
_SEI_PREFIX = "loomweave:eid:"
_COLUMN: dict[str, Column] = {"locator": "locator", "sei": "sei", "path": "path",
                               "warpline_entity_key_id": "id"}


@dataclass(frozen=True, slots=True)
class Ref:
    """A reference as the caller gave it: its kind and value."""
    kind: str
    value: str

    def as_wire(self) -> dict[str, str]:
        return {"kind": self.kind, "value": self.value}


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


def parse_refs(raws: Sequence[object], *, field: str,
               error: Callable[..., WarplineError] = InvalidEntityRef) -> list[Ref]:
    """``parse_ref`` of each element of the list argument ``field`` (``field[i]`` in an
    error). A plain locator string, the bulk of a peer's 50,000-ref call, is recognised
    without the general path; anything else takes it."""
    out: list[Ref] = []
    locator = _PLAIN_LOCATOR.match
    for index, raw in enumerate(raws):
        if type(raw) is str and locator(raw) is not None:
            out.append(Ref("locator", raw))
        else:
            out.append(parse_ref(raw, field=f"{field}[{index}]", error=error))
    return out


def classify(value: str) -> str:
    """What an ``auto`` ref most plausibly is."""
    if value.startswith(_SEI_PREFIX):
        return "sei"
    if _LOCATOR.match(value):
        return "locator"
    if value.isdigit():
        return "warpline_entity_key_id"
    if "/" in value or "\\" in value or (
            "." in value and value.rsplit(".", 1)[1].lower() in _PATH_SUFFIXES):
        return "path"
    return "qualname"


# A bare ``name.<suffix>`` is a file when the suffix is one a language row reads or a
# common file type; anything else with a dot is a dotted qualname (``pkg.mod.func``) — so
# one-letter and word-like suffixes (``.c``, ``.mod``, ``.lock``) stay qualnames here;
# ``--ref-kind path`` or a ``core:file:`` locator names such a file.
_PATH_SUFFIXES = frozenset(
    {suffix.lstrip(".") for lang in LANGUAGES for suffix in lang.suffixes} | {
        "pyi", "md", "rst", "txt", "toml", "cfg", "ini", "json", "yaml", "yml", "lock",
        "xml", "html", "css", "sh", "cc", "cpp", "hpp", "kt", "rb", "gradle", "properties"})


# A dotted qualname may name a function, a class or a module, most specific first.
QUALNAME_KINDS = ("function", "class", "module")


def qualname_locators(dotted: str) -> list[str]:
    """The locators a dotted qualname may mean (the one expansion every lookup uses):
    Python's first, then every other row's kinds (``demo_crate.Shape`` may be a Rust
    struct, ``org.demo.Outer`` a Java class)."""
    return [f"python:{kind}:{dotted}" for kind in QUALNAME_KINDS] + [
        f"{prefix}:{kind}:{dotted}" for prefix, kind in _OTHER_KINDS]


_OTHER_KINDS: tuple[tuple[str, str], ...] = tuple(dict.fromkeys(
    (lang.prefix, kind) for lang in LANGUAGES if lang.prefix != "python"
    for kind in lang.kinds))


# A backslash is a Windows separator, except in ``\xff``: a byte of a name that is not
# UTF-8, as warpline shows it (``warpline.git.paths``).
_SEPARATOR = re.compile(r"\\(?!x[89a-f][0-9a-f])")


def normalise_path(value: str) -> str:
    path = _SEPARATOR.sub("/", value)
    while path.startswith("./"):
        path = path[2:]
    return path.strip("/")


def resolve(store: Store, refs: Sequence[Ref]) -> list[list[EntityRow]]:
    """Rows for each ref, in ref order (batched: one query per kind per 900 refs). The one
    path from refs to entity rows: every tool, and every lookup by key id or locator,
    comes through here or ``by_ids`` / ``by_locators`` below, all over ``store.entities``."""
    results: list[list[EntityRow]] = [[] for _ in refs]
    by_kind: dict[str, list[int]] = {}
    for index, ref in enumerate(refs):
        by_kind.setdefault(ref.kind, []).append(index)
    for kind, indexes in by_kind.items():
        if kind == "qualname":
            # One lookup for every candidate locator of every qualname in the batch.
            expanded = {i: qualname_locators(refs[i].value) for i in indexes}
            hits = rows_by(store, "locator", [c for cs in expanded.values() for c in cs])
            for i, candidates in expanded.items():
                results[i] = sorted((row for c in candidates for row in hits.get(c, [])),
                                    key=lambda row: row.id)
            continue
        column = _COLUMN[kind]
        keys = {i: int(refs[i].value) if column == "id" else refs[i].value for i in indexes}
        hits = rows_by(store, column, keys.values())
        for i, key in keys.items():
            results[i] = hits.get(key, [])
    return results


def by_ids(store: Store, ids: Sequence[int]) -> dict[int, EntityRow]:
    """Rows by key id (ids naming nothing are absent)."""
    refs = [Ref("warpline_entity_key_id", str(i)) for i in dict.fromkeys(ids)]
    return {int(ref.value): rows[0] for ref, rows in zip(refs, resolve(store, refs), strict=True)
            if rows}


def by_locators(store: Store, locators: Iterable[str]) -> dict[str, EntityRow]:
    """Rows by exact locator (locators naming nothing are absent)."""
    refs = [Ref("locator", loc) for loc in sorted(set(locators))]
    return {ref.value: rows[-1] for ref, rows in zip(refs, resolve(store, refs), strict=True)
            if rows}
