"""Seeds of an impact query: what changed.

The union of ``changed_entity_key_ids``, the resolved ``changed_refs``, the change events
of ``rev_range`` (the ``change_list`` machinery: the range is parsed, commits off HEAD's
history are ingested on demand) and, with ``include_worktree``, the uncommitted changes.

Refs resolve through the store's one resolver first; a ref the store has never seen
change (a locator, qualname, path or SEI of untouched code) is looked up in the snapshot
graph, so "what depends on X" works for any X the graph knows. A ref that names nothing
is not an error: it is counted and warned about.

A code file's ``core:file:`` seed (a file some language row reads) is folded into the
file's own entity seeds when there are any (the file event only restates them); other
files' seeds stay.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import networkx as nx

from warpline.lang import language_of
from warpline.service.history.ranges import commits_of_range
from warpline.service.impact.capture_scope import parse_changed_refs
from warpline.service.shared.context import RepoContext, worktree_hashes
from warpline.service.shared.facts import read_facts
from warpline.service.shared.nature import combined, nature_of, runs_doctests
from warpline.service.shared.resolve import Ref, by_ids, by_locators, qualname_locators, resolve
from warpline.service.shared.sei import backfill_seis
from warpline.store.entities import EntityRow
from warpline.store.events import changed_in, facts_in


@dataclass(frozen=True, slots=True)
class Seed:
    """A changed entity an impact question starts from."""
    locator: str
    kind: str | None
    path: str | None
    key_id: int | None
    sei: str | None
    lineage: int | None
    uncommitted: bool = False
    # What its changes in the range mean (``shared.nature.combined``); None: unknown, or
    # not seeded by a range.
    nature: str | None = None


@dataclass(slots=True)
class Seeds:
    """The seeds of a question, and the refs and key ids that named none."""
    items: list[Seed] = field(default_factory=list)
    unresolved_refs: list[str] = field(default_factory=list)
    unknown_key_ids: list[int] = field(default_factory=list)
    range: dict[str, Any] | None = None
    # Every commit of ``range`` is ingested (None: no range asked).
    range_complete: bool | None = None

    def locators(self) -> list[str]:
        return [s.locator for s in self.items]


def has_seed_arguments(params: Any) -> bool:
    """Whether the call says what changed (else it means "my work")."""
    return not (params.rev_range is None and params.changed_refs is None
                and params.changed_entity_key_ids is None and not params.include_worktree)



def _seed(row: EntityRow) -> Seed:
    return Seed(row.locator, row.kind, row.path, row.id, row.sei, row.lineage)


def collect(ctx: RepoContext, params: Any, warnings: list[str],
            graph: nx.DiGraph | None) -> Seeds:
    out = Seeds()
    found: dict[str, Seed] = {}

    def add(seed: Seed) -> None:
        previous = found.get(seed.locator)
        if previous is None:
            found[seed.locator] = seed
        else:  # named twice (a ref and a range, committed and uncommitted)
            found[seed.locator] = replace(
                previous, uncommitted=previous.uncommitted or seed.uncommitted,
                nature=combined([previous.nature, seed.nature]))

    store = ctx.store
    ids = list(params.changed_entity_key_ids or [])
    rows = by_ids(store, ids)
    out.unknown_key_ids = [i for i in ids if i not in rows]
    for key_id in ids:
        if key_id in rows:
            add(_seed(rows[key_id]))
    refs = parse_changed_refs(params.changed_refs)
    if refs:
        for seed in _from_refs(ctx, refs, graph, out):
            add(seed)
    if params.rev_range is not None:
        for seed in _from_range(ctx, params.rev_range, warnings, out, params.include_worktree):
            add(seed)
    if params.include_worktree:
        for seed in _from_worktree(ctx):
            add(seed)
    out.items = _fold_files(sorted(found.values(), key=lambda s: s.locator))
    if out.unresolved_refs:
        warnings.append(f"{len(out.unresolved_refs)} changed_refs name no known entity "
                        f"(first: {out.unresolved_refs[0]!r}); they seed nothing.")
    if out.unknown_key_ids:
        warnings.append(f"{len(out.unknown_key_ids)} changed_entity_key_ids name no entity "
                        f"(first: {out.unknown_key_ids[0]}); they seed nothing.")
    return out


def _from_refs(ctx: RepoContext, refs: list[Ref], graph: nx.DiGraph | None,
               out: Seeds) -> list[Seed]:
    sei_locators = backfill_seis(ctx, refs)
    resolved = resolve(ctx.store, refs)
    index = _GraphIndex(graph)
    seeds: list[Seed] = []
    for ref, rows in zip(refs, resolved, strict=True):
        if rows:
            seeds.extend(_seed(row) for row in rows)
            continue
        hits = index.hits(ref, sei_locators)
        if not hits:
            out.unresolved_refs.append(ref.value)
        seeds.extend(hits)
    return seeds


class _GraphIndex:
    """Lookups of refs the store does not know, in the snapshot graph (indexes built once,
    on first need)."""

    def __init__(self, graph: nx.DiGraph | None) -> None:
        self.graph = graph
        self._by_path: dict[str, list[str]] | None = None
        self._by_sei: dict[str, str] | None = None

    def _build(self) -> None:
        self._by_path, self._by_sei = {}, {}
        if self.graph is None:
            return
        for name, attrs in self.graph.nodes.items():
            self._by_path.setdefault(attrs.get("path") or "", []).append(name)
            if attrs.get("sei"):
                self._by_sei[attrs["sei"]] = name

    def hits(self, ref: Ref, sei_locators: dict[str, str]) -> list[Seed]:
        if ref.kind in ("path", "sei") and (self._by_path is None or self._by_sei is None):
            self._build()
        by_path, by_sei = self._by_path or {}, self._by_sei or {}
        if ref.kind == "locator":
            names = [ref.value]
        elif ref.kind == "qualname":
            names = qualname_locators(ref.value)
        elif ref.kind == "path":
            names = sorted(by_path.get(ref.value, []))
        elif ref.kind == "sei":
            found = by_sei.get(ref.value) or sei_locators.get(ref.value)
            names = [found] if found else []
        else:
            names = []
        nodes = self.graph.nodes if self.graph is not None else {}
        hits = []
        for name in names:
            attrs = nodes[name] if name in nodes else None
            if attrs is None and ref.kind != "sei":
                continue  # only an SEI loomweave binds may name code outside the graph
            hits.append(Seed(name, attrs.get("kind") if attrs else None,
                             attrs.get("path") if attrs else None, None,
                             attrs.get("sei") if attrs else ref.value, None))
        return hits


def _from_range(ctx: RepoContext, rev_range: str, warnings: list[str],
                out: Seeds, worktree: bool) -> list[Seed]:
    missing: list[str] = []
    shas, info = commits_of_range(ctx, missing, rev_range=rev_range, worktree=worktree,
                                  notes=warnings)
    warnings.extend(missing)
    out.range, out.range_complete = info, not missing
    doctests = runs_doctests(ctx.root)
    warnings.extend(read_facts(ctx, shas=shas or [])[1])
    events = facts_in(ctx.store, shas or [])
    return [replace(_seed(row), nature=combined(
        [nature_of(*event, doctests) for event in events.get(row.id, [])]))
        for row in changed_in(ctx.store, shas or [])]


def _from_worktree(ctx: RepoContext) -> list[Seed]:
    if ctx.repo.head_is_unborn and not ctx.repo.status():
        return []
    from warpline.git.attribution import worktree_changes  # the walker, on demand
    from warpline.service.shared.own_files import own_paths

    ours = own_paths(ctx.root, ctx.repo)
    changes = [c for c in worktree_changes(ctx.repo, worktree_hashes(ctx))
               if c.path not in ours]
    known = by_locators(ctx.store, [c.locator for c in changes])
    doctests = runs_doctests(ctx.root)
    seeds = []
    for change in changes:
        row = known.get(change.locator)
        code_same, docs, signature = change.facts or (None, None, None)
        seeds.append(Seed(change.locator, change.kind, change.path,
                          row.id if row else None, row.sei if row else None,
                          row.lineage if row else None, uncommitted=True,
                          nature=nature_of(change.kind, change.change_kind, code_same, docs,
                                           signature, doctests)))
    return seeds


def _fold_files(seeds: list[Seed]) -> list[Seed]:
    covered = {s.path for s in seeds if s.kind != "file" and s.path}
    return [s for s in seeds
            if not (s.kind == "file" and s.path and language_of(s.path) is not None
                    and s.path in covered)]
