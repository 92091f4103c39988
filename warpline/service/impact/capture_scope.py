"""Narrowing a capture: ``changed_only`` and ``max_entities``.

``changed_only`` keeps the named entities, every edge that touches them and the entities
at the other end of those edges: enough for one hop of impact, deliberately a partial
graph (always DELTA). ``max_entities`` keeps the first N entities (named ones first, then
by path and locator, so files stay together where possible) and lists the rest in
``failed_entities`` with reason ``over_max_entities``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from warpline.errors import InvalidChangedRefs
from warpline.graph.loomweave_source import resolve_locators
from warpline.graph.model import EdgeCapture
from warpline.service.shared.resolve import Ref, by_ids, parse_ref, qualname_locators, resolve
from warpline.store.db import Store


def parse_changed_refs(raw: Sequence[Any] | None) -> list[Ref]:
    refs: list[Ref] = []
    for index, ref in enumerate(raw or []):
        value = ref if isinstance(ref, str) else ref.model_dump(mode="json")
        refs.append(parse_ref(value, field=f"changed_refs[{index}]", error=InvalidChangedRefs))
    return refs


def _named(capture: EdgeCapture, refs: list[Ref], store: Store | None,
           root: Path) -> tuple[set[str], list[str]]:
    """Locators of ``capture`` the refs name, and the refs that named nothing."""
    by_sei = {e.sei: e.locator for e in capture.entities if e.sei}
    by_path: dict[str, list[str]] = {}
    for entity in capture.entities:
        by_path.setdefault(entity.path, []).append(entity.locator)
    present = {e.locator for e in capture.entities}
    seis = [r.value for r in refs if r.kind == "sei" and r.value not in by_sei]
    if seis and store is not None:
        sei_refs = [Ref("sei", s) for s in seis]
        by_sei.update({ref.value: rows[0].locator for ref, rows
                       in zip(sei_refs, resolve(store, sei_refs), strict=True) if rows})
    missing_seis = [s for s in seis if s not in by_sei]
    if missing_seis:
        by_sei.update(resolve_locators(root, missing_seis))
    ids = [int(r.value) for r in refs if r.kind == "warpline_entity_key_id"]
    by_id = by_ids(store, ids) if ids and store is not None else {}
    named: set[str] = set()
    unresolved: list[str] = []
    for ref in refs:
        hits: list[str]
        if ref.kind == "locator":
            hits = [ref.value]
        elif ref.kind == "sei":
            hits = [by_sei[ref.value]] if ref.value in by_sei else []
        elif ref.kind == "path":
            hits = by_path.get(ref.value, [])
        elif ref.kind == "qualname":
            hits = qualname_locators(ref.value)
        else:
            row = by_id.get(int(ref.value))
            hits = [row.locator] if row is not None else []
        hits = [h for h in hits if h in present]
        if not hits:
            unresolved.append(ref.value)
        named.update(hits)
    return named, unresolved


def restrict_to_changed(capture: EdgeCapture, raw_refs: Sequence[Any] | None,
                        store: Store | None, root: Path, warnings: list[str]) -> EdgeCapture:
    named, unresolved = _named(capture, parse_changed_refs(raw_refs), store, root)
    if unresolved:
        warnings.append(f"{len(unresolved)} changed_refs name no entity at this commit "
                        f"(first: {unresolved[0]!r}); they were not captured.")
    edges = tuple(e for e in capture.edges
                  if e.source_locator in named or e.target_locator in named)
    keep = set(named)
    for edge in edges:
        keep.add(edge.source_locator)
        keep.add(edge.target_locator)
    return replace(
        capture,
        entities=tuple(e for e in capture.entities if e.locator in keep),
        edges=edges,
        failed_entities=tuple(f for f in capture.failed_entities if f[0] in keep),
        degraded_files=tuple(d for d in capture.degraded_files
                             if any(e.path == d[0] for e in capture.entities
                                    if e.locator in named)),
    )


def apply_max_entities(capture: EdgeCapture, max_entities: int | None,
                       raw_refs: Sequence[Any] | None) -> EdgeCapture:
    if max_entities is None or len(capture.entities) <= max_entities:
        return capture
    first = {r.value for r in parse_changed_refs(raw_refs) if r.kind == "locator"}
    ordered = sorted(capture.entities,
                     key=lambda e: (e.locator not in first, e.path, e.locator))
    kept = ordered[:max_entities]
    keep = {e.locator for e in kept}
    dropped = [(e.locator, "over_max_entities") for e in ordered[max_entities:]]
    failed = sorted({*(f for f in capture.failed_entities if f[0] in keep), *dropped})
    return replace(
        capture,
        entities=tuple(sorted(kept, key=lambda e: e.locator)),
        edges=tuple(e for e in capture.edges
                    if e.source_locator in keep and e.target_locator in keep),
        failed_entities=tuple(failed),
    )
