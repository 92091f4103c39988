"""The part impact radius and the re-verify worklist share: which graph answers, how
honest it is (completeness, staleness, warnings), and the downstream walk over it.

When no usable snapshot exists, one is captured at HEAD with the fastest available source
if that fits a small budget (``WARPLINE_AUTO_CAPTURE_BUDGET_S``, default 5 s; 0 disables
it): loomweave's index is read in well under a second; the built-in extractor's time is
estimated from the bytes of Python first. Otherwise the answer is ``NO_SNAPSHOT`` ("no
graph", never "nothing affected") with the command that fixes it.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from warpline import settings
from warpline.errors import StoreUnwritable
from warpline.git.repo import head_commit
from warpline.graph.graph import Affected, downstream
from warpline.service.impact import edge_basis, edge_sources
from warpline.service.impact.snapshot import snapshot_data
from warpline.service.shared.choice import Choice, choose_snapshot, staleness
from warpline.service.shared.context import RepoContext
from warpline.store.snapshots import NewSnapshot, SnapshotRow, graph_for, write_snapshot


@dataclass(slots=True)
class GraphView:
    """The graph an answer is computed on, with its completeness and staleness."""
    completeness: str
    choice: Choice[SnapshotRow] | None
    graph: nx.DiGraph | None
    staleness: dict[str, Any]
    edges_enrichment: str
    commands: list[dict[str, str]] = field(default_factory=list)
    basis: dict[str, Any] | None = None  # the wire's edge_basis (None without a snapshot)

    def reach(self, seeds: list[str], depth: int) -> dict[str, Affected]:
        if self.graph is None:
            return {}
        return downstream(self.graph, seeds, depth)


def capture_command(ctx: RepoContext, why: str) -> dict[str, str]:
    return {"command": f"warpline capture-snapshot --repo {shlex.quote(str(ctx.root))}",
            "why": why}


def open_graph(ctx: RepoContext, edge_kinds: list[str] | None,
               warnings: list[str]) -> GraphView:
    choice = choose_snapshot(ctx.store, ctx.repo)
    skipped = False
    if choice is None:
        choice, skipped = _auto_capture(ctx, warnings)
    if choice is None:
        completeness = "SKIPPED" if skipped else "NO_SNAPSHOT"
        warnings.append(
            f"{completeness}: there is no edge snapshot, so dependents cannot be computed. "
            "The answer lists the changed entities only; an empty `affected` means 'no "
            "graph', not 'nothing affected'. Run `warpline capture-snapshot`.")
        return GraphView(completeness, None, None, staleness(ctx.repo, None, set()),
                         "skipped" if skipped else "absent",
                         [capture_command(ctx, "Capture an edge snapshot at HEAD so dependents "
                                               "can be computed, then ask again.")])
    kinds = frozenset(edge_kinds) if edge_kinds else None
    if kinds == frozenset(("calls", "references")):
        kinds = None  # every kind: the one cached graph
    graph = graph_for(ctx.store, choice.row, kinds)
    paths = graph.graph.get("paths")
    if paths is None:
        paths = graph.graph["paths"] = {d.get("path") for _, d in graph.nodes(data=True)}
    stale = staleness(ctx.repo, choice, paths)
    row = choice.row
    view = GraphView(row.completeness, choice, graph, stale, "present")
    candidates = edge_basis.candidate_edges(graph)
    view.basis = edge_basis.basis_for_view(graph.graph.get("basis") or {}, row.edge_count,
                                           row.completeness, candidates)
    for said in (edge_basis.warning(view.basis["unresolved_calls"], row.edge_count),
                 edge_basis.candidates_warning(candidates)):
        if said is not None:
            warnings.append(said)
    if row.completeness != "FULL":
        view.edges_enrichment = "partial"
        why = ("a changed_only capture" if row.mode == "changed_only"
               else f"{len(row.failed_entities)} entities failed to capture"
               if row.failed_entities else "its source gave no edges")
        warnings.append(f"The edge snapshot is DELTA ({why}): dependents listed are a floor, "
                        "some may be missing.")
    if stale["stale"]:
        view.edges_enrichment = "stale"
        warnings.append(_stale_words(stale))
        view.commands.append(capture_command(
            ctx, "Refresh the edge snapshot at HEAD so the graph describes the current code."))
    return view


def _stale_words(stale: dict[str, Any]) -> str:
    sha = str(stale["snapshot_commit"])[:12]
    parts = []
    if not stale["is_ancestor"]:
        parts.append(f"its commit {sha} is not an ancestor of HEAD (history was rewritten "
                     "or HEAD is on another branch)")
    elif stale["commits_behind"]:
        parts.append(f"it is {stale['commits_behind']} commits behind HEAD (at {sha})")
    if stale["dirty_paths"]:
        parts.append(f"uncommitted changes touch {len(stale['dirty_paths'])} graph files "
                     f"(first: {stale['dirty_paths'][0]})")
    return ("The edge snapshot may not describe HEAD: " + "; ".join(parts) +
            ". Edges added or removed since are not reflected.")


def _auto_capture(ctx: RepoContext,
                  warnings: list[str]) -> tuple[Choice[SnapshotRow] | None, bool]:
    """Capture at HEAD within the budget. Returns (choice, skipped: no source could)."""
    budget = settings.auto_capture_budget_s()
    head = head_commit(ctx.repo)
    if budget <= 0 or head is None:
        return None, False
    sha = str(head.id)
    chosen = edge_sources.plan(ctx.root, sha, sha)
    if chosen.source == "none":
        warnings.extend(chosen.notes)
        return None, True
    if chosen.source == "builtin":
        estimate = edge_sources.builtin_estimate_seconds(head)
        if estimate > budget:
            warnings.append(
                f"No edge snapshot exists, and capturing one with the built-in source would "
                f"take about {estimate:.0f}s, over the {budget:.0f}s budget of an "
                "interactive answer.")
            return None, False
    started = time.monotonic()
    complete = edge_sources.builtin_estimate_seconds(head) <= budget
    capture, notes = edge_sources.run(chosen, ctx.root, ctx.repo, head, complete=complete)
    warnings.extend(notes)
    if capture is None:
        return None, True
    failed = capture.failed_entities
    new = NewSnapshot(commit_sha=sha, source=capture.source,
                      source_version=capture.source_version, mode="full",
                      completeness=edge_basis.completeness_of(capture, "full"),
                      captured_at=int(time.time()),
                      capture=capture, failed_entities=failed)
    try:
        write_snapshot(ctx.store, new, lambda sid: snapshot_data(new, sid, "created"))
    except StoreUnwritable as exc:
        warnings.append(f"An edge snapshot was captured at HEAD ({sha[:12]}) but could not "
                        f"be stored, so this answer has no graph. Cause: {exc.hint}")
        return None, False
    warnings.append(
        f"No usable edge snapshot existed, so one was captured now at HEAD ({sha[:12]}) "
        f"from the {capture.source} source in {time.monotonic() - started:.1f}s.")
    return choose_snapshot(ctx.store, ctx.repo), False
